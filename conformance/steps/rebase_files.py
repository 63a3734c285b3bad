"""Reading and editing the files a rebase wrote: the target's entries and the journal record.

A plain helper module (no ``_steps`` suffix).  Their location and bytes are the interop format
(D1), so the steps read them from disk at the paths :class:`conformance.world.RebaseWorld`
derives through :mod:`conformance.interop_layout`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from conformance.world import RebaseWorld

CHECKPOINT_TYPE: Final = "ds4-rebase-checkpoint-v1"
LINK_TYPE: Final = "ds4-rebase-link-v1"
HANDOFF_TYPE: Final = "ds4-rebase-handoff-v1"
HANDOFF_OPEN: Final = "[DS4 REBASE HANDOFF \u2014 QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]"
HANDOFF_CLOSE: Final = "[END DS4 REBASE HANDOFF]"
#: The checkpoint's limitations, which are also a verified result's warnings.
LIMITATIONS: Final = ["deterministic-handoff", "verification-not-inferred", "older-state-requires-recall"]


def records(path: Path) -> list[dict[str, Any]]:
    """The JSON value of every non-blank line of a session file (line 0 is the header)."""
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def target_entries(rebase: RebaseWorld) -> list[dict[str, Any]]:
    return records(rebase.target)[1:]


def custom_entries(rebase: RebaseWorld, custom_type: str) -> list[dict[str, Any]]:
    return [e for e in target_entries(rebase) if e.get("customType") == custom_type]


def checkpoint_data(rebase: RebaseWorld) -> dict[str, Any]:
    """The data of the target's checkpoint entry."""
    entries = custom_entries(rebase, CHECKPOINT_TYPE)
    assert entries, "the target holds no checkpoint entry"
    data: dict[str, Any] = entries[0]["data"]
    return data


def handoff_entry(rebase: RebaseWorld) -> dict[str, Any]:
    entries = custom_entries(rebase, HANDOFF_TYPE)
    assert entries, "the target holds no handoff message"
    return entries[0]


def journal_value(rebase: RebaseWorld) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(rebase.journal.read_bytes())
    return value


def rewrite_line(path: Path, index: int, change: Callable[[str], str]) -> None:
    """Replace line ``index`` (0 = header) with ``change(line_text)``, bytes elsewhere kept."""
    lines = path.read_bytes().split(b"\n")
    lines[index] = change(lines[index].decode("utf-8")).encode("utf-8")
    path.write_bytes(b"\n".join(lines))
