"""``recall-rebase rebase``: the manual session rebase as a one-shot command (contract §6).

The one-shot host has no live Pi to switch: activation opens the verified target from disk
and ends there, and the readable output tells the person how to continue in Pi.  With
``--json`` stdout is exactly the ``RebaseResult`` (which never holds a path).
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reference.cli import history_command
from reference.cli.history_command import add_trust_arguments, trust_argv
from reference.cli.output import EXIT_RECOVERABLE, EXIT_UNAVAILABLE, print_json
from reference.cli.refusals import (
    FIND_A_LEAF,
    MIGRATE,
    check_session,
    exact_unknown_leaf,
    operation_refusal,
    scope_mismatch_hint,
    session_problem,
)

if TYPE_CHECKING:
    from reference.rebase.service import RebaseFailure

HINTS = {
    **{code: history_command.HINTS[code]  # said as history search says them
       for code in ("project-untrusted", "source-scope-mismatch", "ephemeral-session")},
    "operation-exists-use-recover": "this source was already rebased at this leaf: run again with --recover <operationId>",
    "rebase-busy": "the rebase lock of this session could not be taken (another rebase holds it?); try again",
    "archive-changed": "the session file changed while the rebase ran (is Pi still writing it?); nothing was lost, run again",
    "archive-incomplete": "the session has a malformed or unterminated line; Pi may still be writing it",
    "pending-or-orphan-tool-exchange": "a tool call at this leaf has no result yet (Pi would still wait for it): "
    "finish or abort it in Pi, or rebase at a settled entry before it with --leaf ID; " + FIND_A_LEAF,
    "checkpoint-budget": "the handoff does not fit: raise sessionRebase.checkpointTargetTokens (512-24000)",
    "disabled": "rebase is disabled: recall-rebase config set sessionRebase.enabled true",
    "history-tools-required": "rebase needs the history tools: recall-rebase config set historyTools.enabled true",
    "unsupported-source-version": "only version 3 sessions can be rebased: " + MIGRATE,
    "invalid-operation": "--recover takes an operation id: rebase_ and 32 lowercase hex digits",
}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rebase = commands.add_parser(
        "rebase",
        help="move a long session onto a fresh target that starts from a quoted checkpoint",
        description="Rebase a Pi session: check the source, build a deterministic checkpoint, write a new "
        "target session beside it (ds4-rebase_<id>.jsonl; DS4 is the name of the Pi context extension, "
        "ds4-context-engine, whose rebase this is) and verify it. The source is never written. "
        "--dry-run checks everything and writes no journal and no target (the rebase lock, "
        ".ds4-rebase/locks/<sha256>.sqlite beside the source, is taken by every run, a dry run too); "
        "--recover finishes an interrupted operation, from the source or from the target. Run it from "
        "the session's project (its header's cwd) or pass --cwd.",
    )
    rebase.add_argument("--session", required=True, metavar="FILE", help="the Pi session to rebase (never written)")
    rebase.add_argument("--leaf", metavar="ID", help="the active leaf (default: the last entry, as Pi does on load)")
    mode = rebase.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="check and build the checkpoint in memory; "
                      "write no journal and no target")
    mode.add_argument("--recover", metavar="ID", help="resume or re-verify operation rebase_<32 hex> "
                      "(default: none, a new rebase)")
    rebase.add_argument("--cwd", metavar="DIR", help="the project folder; the session is rebased only from the "
                        "project its header's cwd names (default: the current directory)")
    rebase.add_argument("--index", metavar="PATH",
                        help="the projection index (default: <agentDir>/recall-rebase/index.sqlite)")
    add_trust_arguments(rebase)
    rebase.add_argument("--json", action="store_true", help="print exactly the RebaseResult")
    rebase.set_defaults(handler=run_rebase)


def failure_hints(failure: RebaseFailure | None, session: str, project: str) -> dict[str, str]:
    """Hints from what actually happened: the existing operation's id, why the lock failed, what
    the session file is, the OS error behind ``rebase-unavailable``."""
    hints: dict[str, str] = {}
    if failure is not None:
        message = failure.message
        if failure.code == "operation-exists-use-recover" and failure.operation_id is not None:
            hints["operation-exists-use-recover"] = (
                f"this source was already rebased at this leaf: run again with --recover {failure.operation_id}")
        hints["rebase-busy"] = f"{message}; try again when it ends" if "another rebase" in message else message
        hints["rebase-unavailable"] = message
    problem = session_problem(os.path.abspath(session))
    if problem is not None:  # the runtime layer answers first (§6.2 steps 1-3), then the gates
        hints.update(dict.fromkeys(("rebase-state-unavailable", "lineage-integrity-unavailable", "ephemeral-session",
                                    "unsupported-source-version"), problem))
    hints["source-scope-mismatch"] = scope_mismatch_hint(os.path.abspath(session), project)
    return hints


def pending_hint(session: str, leaf: str | None, cwd: str | None = None) -> str:
    """``pending-or-orphan-tool-exchange`` with the next step: the nearest settled leaf, in a
    command that can be run as it is (the ``--cwd`` the user gave kept)."""
    settled = settled_leaf(os.path.abspath(session), leaf)
    if settled is None:
        return HINTS["pending-or-orphan-tool-exchange"]
    where = f" --cwd {shlex.quote(cwd)}" if cwd else ""
    return (f"a tool call at this leaf has no result yet (Pi would still wait for it; sessions of "
            f"`fixtures generate` end so on purpose): finish or abort it in Pi, or rebase at the nearest settled entry: "
            f"recall-rebase rebase --session {shlex.quote(session)}{where} --leaf {settled} (add --dry-run to check "
            "first); " + FIND_A_LEAF)


#: How many entries back from the leaf :func:`settled_leaf` looks for one with no open tool call.
SETTLED_LEAF_SEARCH = 200


def settled_leaf(session: str, leaf: str | None) -> str | None:
    """The nearest entry on the path to the leaf (the leaf itself excluded) whose context has no
    active incomplete tool exchange: where a rebase refused with ``pending-or-orphan-tool-exchange``
    can run with ``--leaf``.  None when the session model cannot read the file or none is found."""
    from reference.pi.leaf import leaf_from_cli
    from reference.pi.session_inspect import describe_model, inspectable_model
    from reference.primitives.errors import ContractViolation

    try:
        model = inspectable_model(session)
        if model is None:
            return None
        path = describe_model(model, leaf_from_cli(leaf), messages=False)["pathIds"]
        for candidate in reversed(path[-SETTLED_LEAF_SEARCH - 1:-1]):
            tools = describe_model(model, candidate, messages=False)["toolExchange"]
            if tools is not None and tools["activeIssueCount"] == 0:
                return str(candidate)
    except (ContractViolation, OSError, ValueError, KeyError):
        return None
    return None


def lock_note(lock: str) -> str:
    """What a run that took the rebase lock for the first time left beside the source (contract
    §6.2 step 14, §6.12: every mode takes it, a dry run too, before the version and scope gates)."""
    return (f"  the rebase lock {lock} was created (an empty SQLite lock file, no history; every rebase "
            "of this source, a dry run too, takes it there; it may be deleted when no rebase runs)")


def render(result: dict[str, Any], target: str | None, hints: dict[str, str] | None = None,
           lock_created: str | None = None) -> str:
    """The result for people; the paths that appear are the 'continue in Pi' hint and the lock."""
    hints = {**HINTS, **(hints or {})}
    status = result["status"]
    lock = [lock_note(lock_created)] if lock_created else []
    if status == "unavailable":
        code = result["warnings"][0]
        return "\n".join([f"unavailable: {code}" + (f"\n  {hints[code]}" if code in hints else ""), *lock])
    if status == "recoverable":
        return (f"recoverable: {result['warnings'][0]} (operation {result['operationId']})\n"
                f"  nothing was lost and the source is untouched; do not delete it.\n"
                f"  finish with: recall-rebase rebase --session <source or target> --recover {result['operationId']}")
    lines = [
        f"{status}: operation {result['operationId']}",
        f"  source: {result['sourceEntries']} entries, {result['sourceBytes']} bytes (unchanged)",
        f"  checkpoint {result['checkpointId']}: {result['checkpointTokens']} tokens, "
        f"{result['preservedPins']} pin(s), {result['preservedMemories']} memory item(s) carried",
    ]
    diagnostics = result.get("toolExchangeDiagnostics")
    if diagnostics and diagnostics["historicalIssueCount"]:
        lines.append(f"  {diagnostics['historicalIssueCount']} incomplete tool exchange(s) stay in the archived history")
    lines.append(f"  notes: {', '.join(result['warnings'])}")
    if status == "preview":
        lines.append("  dry run: no journal and no target were written, the source is unchanged. "
                     "Run again without --dry-run to rebase.")
    elif target:
        lines.append(f"  continue in Pi with: pi --session {target}")
    return "\n".join([*lines, *lock])


def _lock_file(source: str | None) -> str | None:
    """The rebase lock's path for this source, or None when it cannot be named."""
    from reference.rebase.lock import lock_path

    if source is None:
        return None
    try:
        return os.fspath(lock_path(source))
    except (OSError, ValueError):
        return None


def run_rebase(args: argparse.Namespace) -> int:
    from reference.pi.leaf import DEFAULT_LEAF
    from reference.rebase.host import build_rebase_host
    from reference.rebase.service import RebaseRequest, RebaseService

    refusal = (operation_refusal(args.recover) if args.recover is not None else None) or check_session(
        os.path.abspath(args.session), args.leaf).refusal
    if refusal is not None:
        return refusal.report()
    argv = trust_argv(args)
    host, default_index = build_rebase_host(
        home=str(Path.home()), cwd=os.path.abspath(args.cwd or os.getcwd()), env=dict(os.environ), argv=argv,
        session_file=os.path.abspath(args.session), leaf=args.leaf if args.leaf is not None else DEFAULT_LEAF)
    service = RebaseService(host, index_path=args.index or default_index)
    lock = _lock_file(host.session_file)
    lock_existed = lock is None or os.path.lexists(lock)
    outcome = service.rebase(RebaseRequest.of(dry_run=args.dry_run, recover=args.recover))  # --recover '' too
    result = outcome.result.to_json()  # the command line's edge
    if args.leaf is not None and result["warnings"][:1] == ["archive-branch-invalid"]:
        refusal = exact_unknown_leaf(os.path.abspath(args.session), args.leaf)  # "ID" was only in a text
        if refusal is not None:
            return refusal.report()
    if args.json:
        print_json(result)
    else:
        hints = failure_hints(outcome.failure, args.session, os.path.abspath(args.cwd or os.getcwd()))
        if result["warnings"][:1] == ["pending-or-orphan-tool-exchange"] and result["status"] == "unavailable":
            hints["pending-or-orphan-tool-exchange"] = pending_hint(args.session, args.leaf, args.cwd)
        created = lock if not lock_existed and lock is not None and os.path.lexists(lock) else None
        print(render(result, host.session_file if result["status"] == "verified" else None, hints, created))
    if result["status"] == "unavailable":
        return EXIT_UNAVAILABLE
    return EXIT_RECOVERABLE if result["status"] == "recoverable" else 0
