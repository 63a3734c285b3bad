"""The privacy corpus rebased, in parts, through the adapter protocol (issue 11, PRIVACY-103).

A handoff quotes the compaction-aware context of its source (contract §6.4): only the latest
compaction's summary and the entries after its ``firstKeptEntryId``.  So that every corpus entry
passes through a handoff, and no secret rides in a handoff that another secret raises, the corpus
is rebased in parts (one per secret-bearing entry, the near-miss entries left out): the entries in order, cut before each secret-bearing entry that would
be the second of its part (a tool call and its result stay together) and after each compaction.
Each part has the corpus header (its id numbered per part), its entries chained in order, and
its compaction, if any, keeping the whole part (``firstKeptEntryId`` = the part's first entry).
Each part is well under the default ``checkpointTargetTokens`` (8000).

Per part: a dry run (the preview envelope), a run, a recover of the operation it reported, and
then what the target sends to the provider: its handoff message through the history host's
context event (``history.contextEvent``) and as the final provider payload
(``history.providerRequest``), with the target opened in the history host for that provider.
For the near-miss rule the corpus is rebased a second time with its secret entries (and the other
side of their tool exchanges) left out, in parts of at most ``NEAR_MISS_PART`` entries (issue 29's
378 near-misses do not fit one handoff), so that a near-miss is judged in a handoff no secret raises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from conformance.interop_layout import target_path
from conformance.privacy_corpus import LabelledItem, PrivacyCorpus
from conformance.privacy_walk import (
    HANDOFF_TYPE,
    Tally,
    answer,
    line_of,
    open_history,
    strings_of,
)
from conformance.protocol import Adapter, JsonObject
from conformance.world import HistoryProject

SENTINEL: Final = "[DS4 history content omitted by current policy]"
HANDOFF_MARK: Final = "[DS4 REBASE HANDOFF"
PATHS: Final = ("rebase preview", "rebase run", "rebase recover", "rebase target context")
#: Entries in a part of the near-miss rebase at most: 40 of the longest near-misses quote about a
#: third of the default 8000-token budget, and the whole corpus of them does not fit one handoff.
NEAR_MISS_PART: Final = 40


def tool_partners(records: list[dict[str, Any]]) -> dict[str, str]:
    """Entry id -> the entry on the other side of its tool exchange (a call and its result)."""
    calls: dict[str, str] = {}
    results: dict[str, str] = {}
    for entry in records[1:]:
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        if message.get("role") == "toolResult":
            results[str(message.get("toolCallId"))] = entry["id"]
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                calls[str(block.get("id"))] = entry["id"]
    partners: dict[str, str] = {}
    for key in calls.keys() & results.keys():
        partners[calls[key]], partners[results[key]] = results[key], calls[key]
    return partners


def corpus_parts(records: list[dict[str, Any]], *, drop: frozenset[str] = frozenset(),
                 alone: frozenset[str] = frozenset(), most: int = 0) -> list[list[dict[str, Any]]]:
    """The corpus entries cut after each compaction, each part chained anew.

    ``drop``: entries left out, with the other side of their tool exchanges (no call or result
    is orphaned).  ``alone``: entries no two of which share a part (but a call and its result).
    ``most``: a part is cut after this many entries (0: no limit), but never between a call and
    its result, so that each part's handoff fits the default budget.
    """
    partners = tool_partners(records)
    drop = drop | {partners[i] for i in drop if i in partners}
    stretches: list[list[dict[str, Any]]] = [[]]
    for entry in records[1:]:
        if entry.get("id") in drop:
            continue
        stretch = stretches[-1]
        partner = partners.get(entry["id"])
        if entry["id"] in alone and any(e["id"] in alone and e["id"] != partner for e in stretch):
            cut = next((n for n, e in enumerate(stretch) if e["id"] == partner), len(stretch))
            stretches[-1:] = [stretch[:cut], stretch[cut:]]
        elif most and len(stretch) >= most and not any(e["id"] == partner for e in stretch):
            stretches.append([])
        stretches[-1].append(dict(entry))
        if entry.get("type") == "compaction":
            stretches.append([])
    parts = []
    for stretch in (s for s in stretches if s):
        parent = None
        for entry in stretch:
            entry["parentId"] = parent
            parent = entry["id"]
            if entry.get("type") == "compaction":
                entry["firstKeptEntryId"] = stretch[0]["id"]
        parts.append(stretch)
    return parts


def part_session(header: dict[str, Any], cwd: Path, number: int, entries: list[dict[str, Any]]) -> bytes:
    head = {**header, "cwd": str(cwd), "id": f"{header['id'][:-4]}{number:04d}"}
    return "".join(line_of(value) + "\n" for value in [head, *entries]).encode("utf-8")


@dataclass
class RebaseWalk:
    """The four rebase paths of one provider, and the corpus terms some target's handoff quoted."""

    tallies: dict[str, Tally]
    handed_off: set[str] = field(default_factory=set)
    #: Per part: its entry ids and the handoff strings its target's context sent out.
    sent: list[tuple[frozenset[str], list[str]]] = field(default_factory=list)
    parts: int = 0
    runs_verified: int = 0


def _handoffs(target: Path) -> list[dict[str, Any]]:
    if not target.is_file():
        return []
    values = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [v for v in values[1:] if v.get("type") == "custom_message" and v.get("customType") == HANDOFF_TYPE]


def _target_context(adapter: Adapter, project: HistoryProject, target: Path, provider: str,
                    tally: Tally) -> list[JsonObject]:
    """What the target sends: its handoff messages through the context event and the provider payload."""
    handoffs = _handoffs(target)
    if not handoffs:
        return []
    tally.add(open_history(adapter, project, target, provider))
    messages = [{"role": "custom", "customType": HANDOFF_TYPE, "content": h.get("content"),
                 "display": h.get("display", False)} for h in handoffs]
    payload = {"messages": [{"role": "user", "content": [{"type": "text", "text": h.get("content")}]}
                            for h in handoffs]}
    outputs = [answer(adapter, "history.contextEvent", {"messages": messages}),
               answer(adapter, "history.providerRequest", {"payload": payload})]
    for output in outputs:
        tally.add(output)
    return outputs


def quoted_forms(whole: str) -> tuple[str, ...]:
    """A near-miss as a handoff may show it: as is, or JSON-escaped once or twice (the handoff
    quotes its context as a JSON string of ``JSON.stringify``'d entries, §6.6 step 5, so a quote
    or a newline of the text is escaped there: it is still shown whole)."""
    once = json.dumps(whole, ensure_ascii=False)[1:-1]
    return whole, once, json.dumps(once, ensure_ascii=False)[1:-1]


def sent_handoffs(outputs: list[JsonObject]) -> list[str]:
    """The handoff strings as they went out (a handoff, or the omission sentinel in its place)."""
    return [text for text in strings_of(outputs, keys=False) if text == SENTINEL or HANDOFF_MARK in text]


def walk_rebase(adapter: Adapter, project: HistoryProject, provider: str, corpus: PrivacyCorpus, *,
                near_misses_only: bool = False) -> RebaseWalk:
    """Rebase every part of the corpus (without its secret entries for ``near_misses_only``)."""
    walk = RebaseWalk({path: Tally(path, provider) for path in PATHS})
    labels, records = corpus.labels, list(corpus.records)
    secret_entries = labels.secret_entries()
    near_entries = frozenset(item.entry_id for item in labels.near_misses)
    first_near = next((n for n, e in enumerate(records) if e.get("id") in near_entries), len(records))
    near_stretch = near_entries | {e["id"] for e in records[first_near:] if e.get("type") == "compaction"}
    # Each walk leaves the other's entries out: the near-misses are judged in parts of their own,
    # and 378 of them after the last secret would not fit its handoff (nor would their compactions
    # alone make a part worth a rebase).
    drop, alone = (secret_entries, frozenset()) if near_misses_only else (near_stretch, secret_entries)
    items: tuple[LabelledItem, ...] = labels.near_misses if near_misses_only else labels.secrets
    kind = "near" if near_misses_only else "all"
    context = walk.tallies["rebase target context"]
    if near_misses_only:
        context.judged()
    parts = corpus_parts(records, drop=drop, alone=alone, most=NEAR_MISS_PART if near_misses_only else 0)
    for number, entries in enumerate(parts):
        walk.parts += 1
        source = project.folder / f"privacy-{kind}-{provider}-{number:02d}.jsonl"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_bytes(part_session(records[0], project.cwd, number, entries))
        ids = [f"7a2e0c1d-{number:04d}-4000-8{len(kind):03d}-{n:012d}" for n in range(1, 5)]
        walk.tallies["rebase preview"].add(answer(adapter, "rebase.open", {
            **project.host_params(), "sessionFile": str(source), "indexPath": str(project.index_path),
            "targetSessionIds": ids}))
        walk.tallies["rebase preview"].add(answer(adapter, "rebase.run", {"mode": "dry-run"}))
        run = answer(adapter, "rebase.run", {"mode": "run"})
        walk.tallies["rebase run"].add(run)
        operation = (run.get("result") or {}).get("operationId")
        if not isinstance(operation, str) or not operation:
            continue
        walk.runs_verified += (run.get("result") or {}).get("status") == "verified"
        walk.tallies["rebase recover"].add(answer(adapter, "rebase.run", {"mode": "recover", "operationId": operation}))
        target = target_path(Path(source.resolve()).parent, operation)
        terms = "\n".join(str(h.get("content", "")) for h in _handoffs(target))
        present = {item.entry_id for item in items if item.term in terms}
        walk.handed_off |= {item.id for item in items if item.entry_id in present}
        outputs = _target_context(adapter, project, target, provider, context)
        walk.sent.append((frozenset(e["id"] for e in entries), sent_handoffs(outputs)))
        if near_misses_only:
            shown = "\n".join(strings_of(outputs))
            for near in labels.near_misses:
                if near.entry_id in {e["id"] for e in entries} and not any(
                        form in shown for form in quoted_forms(near.whole)):
                    context.flag(near.id)
    if near_misses_only:
        for item in items:
            if item.id not in walk.handed_off:
                context.flag(item.id)
    return walk
