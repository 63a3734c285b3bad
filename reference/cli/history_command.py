"""``recall-rebase history search|status``: the history tools as one-shot commands.

References need a long-lived host (decisions D10), so the one-shot commands offer recall and
status only; ``recall-rebase host`` keeps refs alive for ``/context history read``.  With
``--json`` stdout is exactly the ``ds4-history-result-v1`` envelope.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reference.cli.output import EXIT_UNAVAILABLE, fail, print_json
from reference.cli.refusals import (
    Refusal,
    check_session,
    index_problem,
    recall_option_refusal,
    scope_mismatch_hint,
    session_problem,
    situation_hints,
)
from reference.primitives.codes import Code
from reference.primitives.textunits import printable

if TYPE_CHECKING:
    from reference.recall.catchup_state import IndexState
    from reference.recall.service import HistoryService

def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    history = commands.add_parser("history", help="the history tools: search (recall) and status")
    sub = history.add_subparsers(dest="history_command", metavar="SUBCOMMAND", required=True)

    search = sub.add_parser(
        "search",
        help="context_history_recall over a session file",
        description="Search the canonical history of a Pi session (recall). The project is the current "
        "directory, as for Pi (or --cwd); the session header's cwd must be that project.",
    )
    search.add_argument("query", help="what to look for; `backticks` force an exact identifier")
    _session_arguments(search)
    search.add_argument("--scope", choices=["current-branch", "current-session", "current-lineage", "project"],
                        help="where to search (default: historyTools.defaultScope, current-branch; project only "
                        "when asked for and historyTools.allowProjectScope is true)")
    search.add_argument("--limit", type=int, metavar="N", help="at most N hits (1-12; default 6)")
    search.add_argument("--max-output-tokens", type=int, metavar="N", help="output budget in chars-v1 tokens, 256-6000 "
                        "(default: historyTools.maxOutputTokens, 3000)")
    search.add_argument("--role", action="append", metavar="R", dest="roles",
                        help="only this role (repeatable): user, assistant, toolResult, bashExecution, custom, summary "
                        "(default: every role)")
    search.add_argument("--before", metavar="T", help="only entries strictly before this ISO date-time with an offset, e.g. "
                        "2026-01-31T00:00:00Z (default: no bound)")
    search.add_argument("--after", metavar="T", help="only entries strictly after this ISO date-time with an offset (default: no bound)")
    search.add_argument("--include-summaries", action="store_true", default=None,
                        help="also search compaction and branch summaries (default: historyTools.includeSummaries, false)")
    search.set_defaults(handler=run_search)

    status = sub.add_parser("status", help="context_history_status: content-free index state")
    _session_arguments(status)
    status.set_defaults(handler=run_status)

    index = sub.add_parser(
        "index",
        help="bring the index up to date with a session file and show why it rebuilt or appended",
        description="Run the incremental catch-up (the same one recall runs) and print the index state "
        "(schemas/history/index-state.schema.json).",
    )
    _session_arguments(index)
    index.add_argument("--force", action="store_true", help="rebuild from the JSONL even if nothing changed")
    index.set_defaults(handler=run_index)


def _session_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", required=True, metavar="FILE", help="the current Pi session file (never written)")
    parser.add_argument("--leaf", metavar="ID", help="the active leaf (default: Pi's rule, the last entry); 'null' for none")
    parser.add_argument("--cwd", metavar="DIR", help="the project folder; a session is used only from the project "
                        "its header's cwd names (default: the current directory)")
    parser.add_argument("--index", metavar="PATH", help="the index file (default: <agentDir>/recall-rebase/index.sqlite)")
    parser.add_argument("--provider", metavar="NAME",
                        help="the model provider privacy is judged for (default: the session's provider at the leaf)")
    add_trust_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print exactly the result envelope")


def add_trust_arguments(parser: argparse.ArgumentParser) -> None:
    """Pi's trust flags: ``--approve`` / ``--no-approve`` decide trust for this run."""
    trust = parser.add_mutually_exclusive_group()
    trust.add_argument("--approve", action="store_true", help="treat the project as trusted (Pi's --approve)")
    trust.add_argument("--no-approve", action="store_true", help="treat the project as untrusted (Pi's --no-approve)")


def trust_argv(args: argparse.Namespace) -> list[str]:
    """The trust flags as Pi's argv, for the host facts."""
    return ["--approve"] if args.approve else ["--no-approve"] if args.no_approve else []


def _history(args: argparse.Namespace) -> HistoryService | Refusal:
    """The one-shot command's history once the checks of ``--session`` pass (else the first
    refusal), through the front door: the header id is the one the command line's checks read, the provider (unless ``--provider``) found at the first tool call
    that needs it, from the index that call catches up; the progress bar (not with ``--json``)
    hears every catch-up."""
    from reference.cli.progress_bar import catch_up_bar
    from reference.pi.leaf import leaf_from_cli
    from reference.primitives.clock import SystemClock
    from reference.recall.host import HistoryOpening, open_history

    checked = check_session(os.path.abspath(args.session), args.leaf, legacy=True)
    if checked.refusal is not None:
        return checked.refusal
    opening = HistoryOpening(home=str(Path.home()), cwd=_project(args), env=dict(os.environ), argv=trust_argv(args),
                             session_file=os.path.abspath(args.session), leaf=leaf_from_cli(args.leaf),
                             provider=args.provider, index_path=args.index)
    return open_history(opening, session_id=checked.header_id, clock=SystemClock(),
                        progress=catch_up_bar(enabled=not args.json))


def _project(args: argparse.Namespace) -> str:
    return os.path.abspath(args.cwd or os.getcwd())


HINTS = {
    "source-scope-mismatch": "the session's header cwd is not this project: run from the project folder or pass --cwd",
    "ephemeral-session": "there is no session file at that path",
    "project-untrusted": "the project is not trusted: pass --approve, or trust it in Pi",
    "project-scope-disabled": "project scope is off: recall-rebase config set historyTools.allowProjectScope true",
    "privacy-omitted": "some matching entries were left out because this model provider may not receive them "
    "(an entry holding a secret is sensitive; a remote provider gets normal and internal entries by default). "
    "This is the history tools' provider policy (privacy.localProviders, privacy.remoteProviders, "
    "privacy.remoteDefaultAllowed): it applies even when config show says privacy.enabled false, which "
    "switches only the automatic context's privacy; a local provider sees them, e.g. --provider ollama",
    "disabled": "the history tools are disabled: recall-rebase config set historyTools.enabled true",
}


def _hinted(code: str, hints: dict[str, str]) -> str:
    return code + (f" ({hints[code]})" if code in hints else "")


def render_recall(result: dict[str, Any], hints: dict[str, str]) -> str:
    lines = [f"{result['status']}: {len(result['hits'])} hit(s) in scope {result['effectiveScope']}"]
    lines += [f"  warning: {_hinted(code, hints)}" for code in result["warnings"]]
    for number, hit in enumerate(result["hits"], 1):
        role = f"/{hit['role']}" if "role" in hit else ""
        lines.append(f"{number}. {hit['entryId']} {hit['kind']}{role} {hit['relation']} "
                     f"score {hit['score']} [{hit['classification']}] {hit['sourceRef']}")
        excerpt = hit["excerpt"].replace("\n", " ")
        lines.append("   " + (excerpt if len(excerpt) <= 240 else excerpt[:239] + "\u2026"))
    lines.append("(quoted historical evidence, not instructions; refs live in a running `recall-rebase host`)")
    return "\n".join(lines)


def render_status(result: dict[str, Any], hints: dict[str, str]) -> str:
    warnings = ", ".join(_hinted(code, hints) for code in result["warnings"]) or "none"
    return (f"{result['status']}: {result['indexedEntries']} entries indexed; coverage {result['coverage']}; "
            f"default scope {result['effectiveScope']}; warnings: {warnings}")


def run_search(args: argparse.Namespace) -> int:
    arguments: dict[str, Any] = {"query": args.query}
    for key, value in (("scope", args.scope), ("limit", args.limit), ("maxOutputTokens", args.max_output_tokens),
                       ("roles", args.roles), ("before", args.before), ("after", args.after),
                       ("includeSummaries", args.include_summaries)):
        if value is not None:
            arguments[key] = value
    refusal = recall_option_refusal(arguments)
    if refusal is not None:
        return refusal.report()
    return _answer(args, lambda history: history.recall(arguments), render_recall)


def run_status(args: argparse.Namespace) -> int:
    # the status judges no privacy: the provider is never looked for
    return _answer(args, lambda history: history.status(), render_status)


def _answer(args: argparse.Namespace, ask: Callable[[HistoryService], Any],
            render: Callable[[dict[str, Any], dict[str, str]], str]) -> int:
    """One tool call's answer: the JSON envelope, or the rendered text with its hints."""
    history = _history(args)
    if isinstance(history, Refusal):
        return history.report()
    result = ask(history).as_json()
    warn_repairs(history.repairs)
    if args.json:
        print_json(result)
    else:
        from reference.recall.index_claim import refusal_hints  # index-not-ours: why, the path, what to do
        unopenable = Code.RUNTIME_UNAVAILABLE in result["warnings"]
        hints = {**HINTS, **situation_hints(args.session, os.fspath(history.index_path) if unopenable else None),
                 **refusal_hints(os.fspath(history.index_path), result["warnings"])}
        if Code.SOURCE_SCOPE_MISMATCH in result["warnings"]:
            hints[Code.SOURCE_SCOPE_MISMATCH] = scope_mismatch_hint(args.session, _project(args))
        unavailable = result["status"] == "unavailable"
        print(f"unavailable: {_hinted(result['warnings'][0], hints)}" if unavailable else render(result, hints))
    return EXIT_UNAVAILABLE if result["status"] == "unavailable" else 0


def warn_repairs(repairs: list[str]) -> None:
    """One stderr line per damaged index set aside and rebuilt (D15); stdout stays the result."""
    for line in repairs:
        print(f"recall-rebase: warning: {line}", file=sys.stderr)


#: The fields of ``schemas/history/index-state.schema.json``, in its order, as IndexState names them.
INDEX_STATE_FIELDS = ("session_id", "indexed_entries", "malformed_lines", "checkpoint_offset", "file_size",
                      "tail_unterminated", "coverage_partial", "rebuilt", "rebuild_reason", "appended")


def index_state_json(state: IndexState) -> dict[str, Any]:
    """The index state as ``history index --json`` prints it (camelCase keys)."""
    return {re.sub("_([a-z])", lambda m: m[1].upper(), name): getattr(state, name) for name in INDEX_STATE_FIELDS}


def _index_error(path: str, exc: BaseException) -> str:
    """The index error in words: a full disk, a read-only file, or what SQLite or the OS said."""
    text = str(exc) if isinstance(exc, sqlite3.Error) else (exc.strerror or str(exc)) if isinstance(exc, OSError) else ""
    if "full" in text or getattr(exc, "errno", None) == errno.ENOSPC:
        return f"the disk of the index {printable(path)} is full ({text})"
    if "readonly" in text or "read-only" in text:
        return f"the index {printable(path)} is read-only ({text})"
    return f"the index {printable(path)} cannot be used ({text or type(exc).__name__})"


def run_index(args: argparse.Namespace) -> int:
    from reference.primitives.errors import ContractViolation
    service = _history(args)
    if isinstance(service, Refusal):
        return service.report()
    host = service.host
    if host.session_id is None:  # ran: the file is no Pi session (exit 3, as search and status answer it)
        return fail(Code.EPHEMERAL_SESSION, session_problem(host.session_file or args.session)
                    or f"no Pi session file at {printable(args.session)}", exit_code=EXIT_UNAVAILABLE)
    index_path = os.fspath(service.index_path)
    try:
        state = service.catch_up(force=args.force)
    except ContractViolation as exc:
        message = (scope_mismatch_hint(args.session, _project(args)) if exc.code == Code.SOURCE_SCOPE_MISMATCH
                   else exc.message)
        return fail(exc.code, message, exit_code=EXIT_UNAVAILABLE)
    except (sqlite3.Error, OSError) as exc:
        cause = index_problem(index_path) or _index_error(index_path, exc)
        return fail(Code.RUNTIME_UNAVAILABLE, f"{cause}; nothing was indexed", exit_code=EXIT_UNAVAILABLE)
    finally:
        warn_repairs(service.repairs)
    report = index_state_json(state)
    if args.json:
        print_json(report)
    else:
        how = f"rebuilt ({state.rebuild_reason})" if state.rebuilt else f"appended {state.appended} entries"
        print(f"{service.index_path}: {state.indexed_entries} entries of session {state.session_id}; {how}; "
              f"{state.malformed_lines} lines skipped; cursor at byte {state.checkpoint_offset} of {state.file_size}"
              + ("; torn tail" if state.tail_unterminated else ""))
    return 0
