"""The facts of a session file's bytes: what Pi's loader makes of them and what is wrong with them.

Why: ``fixtures/MANIFEST.json`` records these facts for every fixture (spec §1.7, §3.1), and the
conformance steps trust them; they are computed from the bytes alone, never from the generator.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from reference.primitives.jsonbytes import JsonObject, JsonParseError, js_parse


@dataclass
class _Lines:
    """The file split at LF, with what JSON.parse made of each line."""

    raw: list[str]
    unterminated: bool
    blank: int = 0
    malformed: int = 0
    tail_is_json: bool = False
    parsed: list[Any] = field(default_factory=list)


def file_facts(data: bytes) -> JsonObject:
    """What Pi's loader (spec §1.7, §3.1) makes of these bytes, plus what is wrong with them."""
    facts: JsonObject = {"sessionId": None, "entryCount": 0, "defaultLeafId": None}
    lines = _split_lines(data)
    header = lines.parsed[0] if lines.parsed else None
    valid_header = (
        isinstance(header, dict) and header.get("type") == "session" and isinstance(header.get("id"), str)
    )
    if not data:
        facts["openResult"] = "fresh-header"
    elif not valid_header:
        facts["openResult"] = "rejected"
    else:
        assert isinstance(header, dict)
        facts.update(_loaded_facts(header, lines.parsed[1:]))
    facts.update(_line_facts(data, lines))
    return facts


def _split_lines(data: bytes) -> _Lines:
    text = data.decode("utf-8", errors="replace")
    raw_lines = text.split("\n")
    lines = _Lines(raw_lines, unterminated=raw_lines[-1] != "")
    if not lines.unterminated:
        raw_lines.pop()
    for number, line in enumerate(raw_lines, 1):
        is_tail = lines.unterminated and number == len(raw_lines)
        if not line.strip():
            lines.blank += 1
            continue
        try:
            value = js_parse(line)
        except JsonParseError:
            lines.malformed += 0 if is_tail else 1  # a torn tail is reported as unterminatedTail instead
            continue
        lines.tail_is_json = is_tail
        if value is None or value is False or value == 0:
            continue
        lines.parsed.append(value)
    return lines


def _loaded_facts(header: JsonObject, rest: list[Any]) -> JsonObject:
    """Session id, entries, default leaf, name and migration of a file with a valid header."""
    entries = [p for p in rest if not (isinstance(p, dict) and p.get("type") == "session")]
    version = header.get("version", 1)
    legacy = isinstance(version, (int, float)) and version < 3
    facts: JsonObject = {
        "sessionId": header["id"],
        "entryCount": len(entries),
        "openResult": "migrated" if legacy else "loaded",
    }
    last = entries[-1] if entries else None
    facts["defaultLeafId"] = (
        last.get("id") if isinstance(last, dict) and isinstance(last.get("id"), str) else None
    )
    names = [e.get("name") for e in entries if isinstance(e, dict) and e.get("type") == "session_info"]
    if names:
        facts["sessionName"] = (names[-1] or "").strip() or None
    if legacy:
        facts["legacyVersion"] = int(version)
        if version < 2 and entries:  # migration ids from a counter, as oracle.mjs --deterministic-ids
            facts["defaultLeafIdWithCounterIds"] = f"{len(entries):08x}"
    facts.update(_tree_faults(entries))
    return facts


def _line_facts(data: bytes, lines: _Lines) -> JsonObject:
    """Line count, damaged lines, torn tail, CRLF, BOM and invalid UTF-8."""
    facts: JsonObject = {"lineCount": len(lines.raw)}
    if lines.malformed:
        facts["malformedLines"] = lines.malformed
    if lines.blank:
        facts["blankLines"] = lines.blank
    if lines.unterminated and data:
        facts["unterminatedTail"] = True
        facts["unterminatedTailIsJson"] = lines.tail_is_json
    terminated = lines.raw[:-1] if lines.unterminated else lines.raw
    if terminated and all(line.endswith("\r") for line in terminated):
        facts["crlf"] = True
    if data.startswith(b"\xef\xbb\xbf"):
        facts["bom"] = True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        facts["invalidUtf8"] = True
    return facts


def _tree_faults(entries: list[Any]) -> JsonObject:
    """Duplicate ids, dangling parents and parent cycles: the tree faults a reader must survive."""
    objs = [e for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]
    counts = Counter(e["id"] for e in objs)
    parent = {e["id"]: e.get("parentId") for e in objs}
    faults: JsonObject = {}
    duplicates = sorted(k for k, n in counts.items() if n > 1)
    if duplicates:
        faults["duplicateIds"] = duplicates
    missing = [e["id"] for e in objs if isinstance(e.get("parentId"), str) and e["parentId"] not in parent]
    if missing:
        faults["missingParents"] = missing
    in_cycle: set[str] = set()
    for start in parent:
        seen: list[str] = []
        node: Any = start
        while isinstance(node, str) and node in parent and node not in seen:
            seen.append(node)
            node = parent[node]
        if isinstance(node, str) and node in seen:
            in_cycle.update(seen[seen.index(node) :])
    if in_cycle:
        faults["parentCycle"] = sorted(in_cycle)
    return faults
