"""Steps that build what a rebase cannot build for itself, and read what a crash left on disk:
a hand-made lineage chain of any depth (contract §6.13: 15, 16 and 17 pairs), edits of one line of
the target, and the journal, target and temporary that a crash at each point leaves (§6.5, D11).

The chain is written by the harness from the interop format alone (D1): each link's target is a
Pi v3 session beside the current one holding a checkpoint, a link and a handoff, bound to its
source's prefix by size and SHA-256 and to its checkpoint by SHA-256 of its compact JSON.  The
values are ASCII plus the handoff sentinel's em dash, so Python's compact ``json.dumps`` (non-ASCII
raw) is JavaScript's ``JSON.stringify`` here.  Nothing here imports the reference.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest
from pytest_bdd import parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.history_calls import open_history
from conformance.steps.rebase_calls import open_rebase
from conformance.steps.rebase_files import (
    CHECKPOINT_TYPE,
    HANDOFF_CLOSE,
    HANDOFF_OPEN,
    HANDOFF_TYPE,
    LIMITATIONS,
    LINK_TYPE,
    checkpoint_data,
    journal_value,
    records,
    rewrite_line,
)
from conformance.world import RebaseWorld

#: The checkpoint keys in insertion order (contract §6.6 item 7): the order is hashed.
CHECKPOINT_KEYS: Final = (
    "sourceSessionId", "sourceLeafId", "sourceSize", "sourceHash", "sourceCompactionCount", "createdAt",
    "classification", "pins", "memories", "schemaVersion", "id", "handoff", "verificationState", "limitations",
)
CREATED_AT: Final = 1767229200000
STAMP: Final = "2026-01-01T01:00:00.000Z"


@dataclass
class LineageChain:
    """The hand-made targets, nearest the root first; the last one is the chain's tip."""

    files: list[Path] = field(default_factory=list)

    @property
    def tip(self) -> Path:
        assert self.files, "no lineage chain was written"
        return self.files[-1]


@pytest.fixture
def chain() -> LineageChain:
    return LineageChain()


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_link(source: Path, target: Path, target_id: str, level: int, cwd: str) -> None:
    """A target of ``source`` at its last entry, as a rebase writes it (contract §6.6, §6.8)."""
    data = source.read_bytes()
    lines = records(source)
    source_id, leaf = lines[0]["id"], lines[-1]["id"]
    source_file, project = os.path.realpath(source), os.path.realpath(cwd)
    suffix = _sha256(f"{source_id}:{leaf}:{_sha256(data)}".encode())[:32]
    context = _compact({"type": "message", "id": leaf, "note": f"level {level}"})
    handoff = "\n".join((HANDOFF_OPEN, f"A hand-made handoff at level {level}.", json.dumps(context), HANDOFF_CLOSE))
    checkpoint = dict(zip(CHECKPOINT_KEYS, (
        source_id, leaf, len(data), _sha256(data), 0, CREATED_AT, "normal", [], [], 1, f"checkpoint_{suffix}",
        handoff, "unknown", list(LIMITATIONS)), strict=True))
    link = {"schemaVersion": 1, "operationId": f"rebase_{suffix}", "checkpointId": checkpoint["id"],
            "checkpointHash": _sha256(_compact(checkpoint).encode("utf-8")), "sourceSessionId": source_id,
            "sourceSessionFile": source_file, "sourceLeafId": leaf, "sourceSize": len(data),
            "sourceHash": _sha256(data), "projectPath": project, "targetSessionId": target_id}
    ids = [f"{level:02d}0000c{n}" for n in range(4)]
    lines_out = [
        {"type": "session", "version": 3, "id": target_id, "timestamp": STAMP, "cwd": cwd, "parentSession": source_file},
        {"type": "custom", "customType": CHECKPOINT_TYPE, "data": checkpoint, "id": ids[0], "parentId": None,
         "timestamp": STAMP},
        {"type": "custom", "customType": LINK_TYPE, "data": link, "id": ids[1], "parentId": ids[0], "timestamp": STAMP},
        {"type": "custom_message", "customType": HANDOFF_TYPE, "content": f"[ds4:normal]{handoff}[/ds4:normal]",
         "display": False, "id": ids[2], "parentId": ids[1], "timestamp": STAMP},
        {"type": "message", "id": ids[3], "parentId": ids[2], "timestamp": STAMP,
         "message": {"role": "user", "content": f"Continue at chain level {level}", "timestamp": CREATED_AT}},
    ]
    target.write_bytes("".join(_compact(line) + "\n" for line in lines_out).encode("utf-8"))


def _write_chain(rebase: RebaseWorld, chain: LineageChain, target_ids: list[str]) -> None:
    project = rebase.history.project
    source = rebase.source
    for level, target_id in enumerate(target_ids, start=1):
        target = project.folder / f"chain-{level:02d}.jsonl"
        write_link(source, target, target_id, level, str(project.cwd))
        chain.files.append(target)
        source = target


@when(parsers.parse("a hand-made lineage chain of {count:d} rebases is written from the current session"))
def when_chain(rebase: RebaseWorld, chain: LineageChain, count: int) -> None:
    """``count`` targets, each the rebase of the one before, the first of the current session."""
    _write_chain(rebase, chain, [f"chain-{level:02d}-0000-4000-8000-000000000000" for level in range(1, count + 1)])


@when(parsers.parse('a hand-made lineage chain whose targets are the sessions "{ids}" is written from the current session'))
def when_chain_ids(rebase: RebaseWorld, chain: LineageChain, ids: str) -> None:
    _write_chain(rebase, chain, ids.split())


@when("the history host opens the tip of the lineage chain")
def when_history_tip(adapter: Adapter, rebase: RebaseWorld, chain: LineageChain) -> None:
    open_history(adapter, rebase.history, provider="openai", sessionFile=str(chain.tip))


@when("the rebase host opens the tip of the lineage chain")
def when_rebase_tip(adapter: Adapter, rebase: RebaseWorld, chain: LineageChain) -> None:
    open_rebase(adapter, rebase, str(chain.tip))


@when("the rebase host opens the rebase target with these facts:")
def when_open_target_facts(adapter: Adapter, rebase: RebaseWorld, docstring: str) -> None:
    open_rebase(adapter, rebase, str(rebase.target), **json.loads(docstring))


@when(parsers.parse('line {index:d} of the rebase target is edited, "{old}" becoming "{new}"'))
def when_edit_target_line(rebase: RebaseWorld, index: int, old: str, new: str) -> None:
    def change(line: str) -> str:
        assert old in line, f"{old!r} is not on line {index} of the rebase target"
        return line.replace(old, new)
    rewrite_line(rebase.target, index, change)


@when(parsers.parse('the link of the rebase target names a copy of the source in the folder "{name}"'))
def when_link_copy(rebase: RebaseWorld, name: str) -> None:
    """A byte-identical copy elsewhere: only the link's folder check can refuse it (the link
    itself is not hashed)."""
    folder = rebase.history.project.folder / name
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / Path(rebase.canonical_source).name
    shutil.copyfile(rebase.canonical_source, copy)
    old, new = json.dumps(rebase.canonical_source), json.dumps(os.path.realpath(copy))

    def change(line: str) -> str:
        assert LINK_TYPE in line and f'"sourceSessionFile":{old}' in line, "line 2 of the target is not the link"
        return line.replace(f'"sourceSessionFile":{old}', f'"sourceSessionFile":{new}')
    rewrite_line(rebase.target, 2, change)


@then(parsers.parse('the rebase result is {status} with the warnings "{warnings}"'))
def then_rebase_status(rebase: RebaseWorld, status: str, warnings: str) -> None:
    result = rebase.last
    assert (result["status"], result["warnings"]) == (status, warnings.split()), result


@then("the checkpoint keys are in the contract's order")
def then_checkpoint_order(rebase: RebaseWorld) -> None:
    assert tuple(checkpoint_data(rebase)) == CHECKPOINT_KEYS, list(checkpoint_data(rebase))


def _temporaries(target: Path) -> list[Path]:
    prefix = target.name + "."
    return sorted(p for p in target.parent.iterdir() if p.name.startswith(prefix) and p.name.endswith(".tmp"))


@then(parsers.parse('on disk the rebase journal phase is "{phase}", the fingerprint is {fingerprint}, '
                    "the target is {target} and its temporary is {temporary}"))
def then_on_disk(rebase: RebaseWorld, phase: str, fingerprint: str, target: str, temporary: str) -> None:
    """What a process killed at a crash point left (contract §6.5 durable write, §6.8, D11):
    fingerprint ``absent`` or ``recorded``; target ``absent`` or ``installed`` (its bytes are the
    recorded fingerprint); temporary ``absent``, ``staged`` (the recorded bytes, not installed)
    or ``linked`` (the same file as the target: the hard link made, the temporary not yet unlinked)."""
    record = journal_value(rebase)
    assert record["phase"] == phase, record
    recorded = "targetHash" in record or "targetSize" in record
    assert recorded == (fingerprint == "recorded"), record
    path = rebase.target
    temporaries = _temporaries(path)

    def fingerprinted(data: bytes) -> bool:
        return (len(data), _sha256(data)) == (record.get("targetSize"), record.get("targetHash"))

    if target == "absent":
        assert not os.path.lexists(path), f"{path.name} exists"
    else:
        assert target == "installed" and path.is_file() and fingerprinted(path.read_bytes()), record
    if temporary == "absent":
        assert temporaries == [], temporaries
    else:
        assert len(temporaries) == 1, temporaries
        assert fingerprinted(temporaries[0].read_bytes()), record
        if temporary == "linked":
            assert os.path.samefile(temporaries[0], path), "the temporary is not a hard link of the target"
        else:
            assert temporary == "staged", temporary


@then(parsers.re(r'the recall result is (?P<status>[a-z]+) with the lineage warnings "(?P<warnings>[a-z -]*)" '
                 r'and the hits "(?P<ids>[^"]*)"'))
def then_lineage_recall(rebase: RebaseWorld, status: str, warnings: str, ids: str) -> None:
    """Status, warnings and hit entry ids of the last recall at once (an outline row may have none)."""
    result = rebase.history.last
    assert (result["status"], result["warnings"]) == (status, warnings.split()), result
    assert [hit["entryId"] for hit in result["hits"]] == ids.split(), result


@when(parsers.parse('the current history session is renamed "{name}"'))
def when_rename_current(rebase: RebaseWorld, name: str) -> None:
    """The same bytes under another file name (a name with capitals keeps the lock key's case)."""
    history = rebase.history
    path = history.current
    history.record("current", path.with_name(name), path.read_bytes())
    path.unlink()


@then(parsers.parse("the rebase result counts {tokens:d} checkpoint tokens"))
def then_checkpoint_tokens(rebase: RebaseWorld, tokens: int) -> None:
    assert rebase.last.get("checkpointTokens") == tokens, rebase.last


@when(parsers.parse("the checkpoint token budget becomes the previewed checkpoint tokens minus {less:d}"))
def when_budget_at_preview(rebase: RebaseWorld, less: int) -> None:
    """The budget set from the last preview's ``checkpointTokens`` (so the handoff's own wording,
    an upstream constant, does not enter the scenario): at the bound, or ``less`` below it."""
    tokens = rebase.last.get("checkpointTokens")
    assert rebase.last["status"] == "preview" and isinstance(tokens, int), rebase.last
    config = {"sessionRebase": {"checkpointTargetTokens": tokens - less}}
    (rebase.history.project.agent / "ds4-context.json").write_text(json.dumps(config), encoding="utf-8")
