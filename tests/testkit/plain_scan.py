"""The plain form of a scan's per-entry facts, for the equality tests of the compact scan
(``tests/pi/test_compact_scan.py`` on generated sessions, ``tests/oracle/test_compact_scan_on_pi.py``
on sessions Pi wrote): plain lists and a ``dict``, read from the exact reader's records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reference.pi.exact.entries import has_entry_fields
from reference.pi.exact.reader import RecordKind, open_session_file
from reference.pi.exact.session import HashingStream, iter_loaded_records
from reference.pi.model.entry_table import MISSING, ROOT
from reference.pi.model.session import SourceScan


def plain_ids(ids: list[Any]) -> tuple[dict[str, int], int | None]:
    mapping: dict[str, int] = {}
    first_repeat = None
    for number, entry_id in enumerate(ids):
        if isinstance(entry_id, str):
            if entry_id in mapping and first_repeat is None:
                first_repeat = number
            mapping[entry_id] = number
    return mapping, first_repeat


def plain_scan(path: Path) -> dict[str, Any]:
    """The scan's per-entry facts from the exact reader's records, with plain lists and a dict."""
    ids: list[Any] = []
    parent_ids: list[Any] = []
    types: list[Any] = []
    spans: list[tuple[int, int]] = []
    lines: list[int] = []
    first_invalid: int | None = None
    header_seen = False
    with open_session_file(str(path)) as raw:
        for record in iter_loaded_records(HashingStream(raw), str(path), hashed=False):  # type: ignore[arg-type]
            kind = record.kind
            if kind in (RecordKind.BLANK, RecordKind.MALFORMED, RecordKind.FALSY, RecordKind.OVERSIZE,
                        RecordKind.EXTRA_HEADER):
                continue
            if kind is RecordKind.HEADER or not header_seen:
                header_seen = True
                continue
            pi_entry = record.is_object and has_entry_fields(record.type, record.id, record.parent_id,
                                                               record.timestamped)
            if not pi_entry and first_invalid is None:
                first_invalid = record.line
            ids.append(record.id)
            parent_ids.append(record.parent_id if pi_entry and isinstance(record.parent_id, str) else None)
            types.append(record.type)
            spans.append((record.start, record.end))
            lines.append(record.line)
    mapping, first_repeat = plain_ids(ids)
    invalid = first_invalid
    if first_repeat is not None and (invalid is None or lines[first_repeat] < invalid):
        invalid = lines[first_repeat]
    parents = []
    for number, parent_id in enumerate(parent_ids):
        if parent_id is None:
            parents.append(ROOT)
            continue
        before = [n for n in range(number) if ids[n] == parent_id]
        after = [n for n in range(number, len(ids)) if ids[n] == parent_id]
        parents.append(before[-1] if before else after[-1] if after else MISSING)
    return {"ids": mapping, "id_of": ids, "parents": parents, "types": types, "spans": spans, "invalid": invalid,
            "empty": {n for n, parent_id in enumerate(parent_ids) if parent_id == ""}}


def compact_facts(scan: SourceScan) -> dict[str, Any]:
    count = scan.entry_count
    return {"ids": dict(scan.ids.items()), "id_of": [scan.ids.id_of(n) for n in range(count)],
            "parents": list(scan.parents), "types": list(scan.types),
            "spans": list(zip(scan.starts, scan.ends, strict=True)), "invalid": scan.invalid_line,
            "empty": scan.empty_parents}


