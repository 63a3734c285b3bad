"""What the command line refuses itself, before a command runs (docs/errors.md, "Exit codes").

Exit 2 (:data:`reference.cli.output.EXIT_REFUSED`): the session path is not a readable, non-empty
regular file with a UTF-8 name; an option is out of range or unparsable; ``--leaf`` names no
entry; ``--recover`` is not an operation id.  Exit 3 (:data:`reference.cli.output.EXIT_UNAVAILABLE`):
the file is a legacy Pi session, which the history commands cannot use as it is.  Each
:class:`Refusal` names what to do next.  The same words describe the files named on a history or
rebase command line for the hints printed beside an ``unavailable`` answer (a session that is not
a version 3 Pi file, an index that cannot be used).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from reference.cli.output import EXIT_REFUSED, EXIT_UNAVAILABLE, fail
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.textunits import encodes_as_utf8, printable

#: Where a person finds the entry ids of a session, for every refusal about a leaf.
FIND_A_LEAF: Final = "`recall-rebase session inspect FILE` shows the leaf and the entries (--json: pathIds)"
#: What to do with a legacy file (docs/spec/pi-session-model.md §2: Pi migrates it when it opens it).
MIGRATE: Final = ("open it once in Pi 0.84.3, which rewrites it to version 3 in place "
                  "(this tool never rewrites a session), then run this command again")


@dataclass(frozen=True)
class Refusal:
    """One refusal of the command line: its code, its message and its exit code."""

    code: str
    message: str
    exit_code: int = EXIT_REFUSED

    def report(self) -> int:
        """The one line (and with ``--json`` the one document) of the refusal; its exit code."""
        return fail(self.code, self.message, exit_code=self.exit_code)


def _unopenable(path: str) -> Refusal | None:
    """Why the session path cannot be opened: its name, or what ``stat`` says of the path."""
    from reference.pi.exact.session import check_session_path

    if not encodes_as_utf8(path):
        return Refusal(Code.SESSION_UNREADABLE, f"the session path {printable(path)} is not UTF-8: "
                       "Pi cannot open it either (rename the file)")
    try:
        check_session_path(path)
    except ContractViolation as exc:
        return Refusal(exc.code, f"{printable(exc.message)}; {_NEXT_STEP.get(exc.code, 'check the path')}")
    return None


_NEXT_STEP: Final = {
    Code.SESSION_FILE_MISSING: "check the path (Pi keeps sessions under ~/.pi/agent/sessions/<project>/)",
    Code.SESSION_NOT_A_FILE: "pass the .jsonl file itself, not a folder (check the path)",
    Code.SESSION_EMPTY: "an empty file holds no session header: check the path",
    Code.SESSION_UNREADABLE: "check its permissions",
}


def _legacy(path: str, header: Mapping[str, Any] | None) -> Refusal | None:
    """A legacy version 1 or 2 session (exit 3, ``unsupported-source-version``), or None."""
    from reference.pi.exact.header import legacy_version

    if header is None or header.get("type") != "session":
        return None
    version = legacy_version(header.get("version"))
    if version is None:
        return None
    return Refusal(Code.UNSUPPORTED_SOURCE_VERSION,
                   f"{printable(path)} is a legacy version {version} Pi session: {MIGRATE}", EXIT_UNAVAILABLE)


def exact_unknown_leaf(path: str, leaf: str) -> Refusal | None:
    """``--leaf ID`` that names no entry of the session (exit 2, ``unknown-leaf``), or None: the
    file read as ``session inspect`` reads it."""
    from reference.pi.leaf import leaf_from_cli
    from reference.pi.session_inspect import inspect_report

    try:
        inspect_report(path, leaf_from_cli(leaf), messages=False)
    except ContractViolation as exc:
        if exc.code == Code.UNKNOWN_LEAF:
            return Refusal(Code.UNKNOWN_LEAF, f"--leaf {leaf}: no entry of {printable(path)} has that id; "
                           f"{FIND_A_LEAF}")
    except (OSError, ValueError, RecursionError):
        return None  # the command meets it again and answers with its own code
    return None


def _mentions(stream: IO[bytes], leaf: str) -> bool:
    """Whether the open file's bytes hold ``leaf`` as a JSON string (as Pi writes an id)."""
    import json
    import mmap

    try:
        needle = json.dumps(leaf, ensure_ascii=False).encode("utf-8")
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return data.find(needle) >= 0
    except (OSError, ValueError, UnicodeError):
        return False  # read it the exact way


def recall_option_refusal(arguments: Mapping[str, Any]) -> Refusal | None:
    """A ``history search`` option the recall would refuse whatever the configuration says
    (``--limit``, ``--max-output-tokens``, ``--before``/``--after``, ``--role``, the query)."""
    from reference.config.defaults import DEFAULT_CONFIG
    from reference.recall.request import validate_recall

    history = {**DEFAULT_CONFIG["historyTools"], "defaultScope": "current-branch"}
    try:
        validate_recall(arguments, history)
    except ContractViolation as exc:
        return Refusal(exc.code, f"{exc.message} (see recall-rebase history search --help)")
    return None


def operation_refusal(operation: str) -> Refusal | None:
    """``--recover`` with something that is not an operation id (exit 2, ``invalid-operation``)."""
    from reference.artifacts.ids import is_operation_id

    if is_operation_id(operation):
        return None
    return Refusal(Code.INVALID_OPERATION, f"--recover takes an operation id, rebase_ and 32 lowercase hex digits, "
                   f"not {operation!r}; a recoverable rebase prints its id")


@dataclass(frozen=True)
class CheckedSession:
    """What the checks of a ``--session`` argument found: the first refusal, else None, and the
    header line as an object when line 1 is one (the history commands take its id from here)."""

    refusal: Refusal | None
    header: dict[str, Any] | None = None

    @property
    def header_id(self) -> str | None:
        value = self.header.get("id") if self.header is not None else None
        return value if isinstance(value, str) else None


def check_session(path: str, leaf: str | None = None, *, legacy: bool = False) -> CheckedSession:
    """The checks of a ``--session`` argument, in order: the path, then (``legacy``, the history
    commands) a legacy header, then ``--leaf``; the first that refuses.  The file is opened once
    for all of them; with ``legacy`` the header line is kept (the history takes its id).  A file
    whose bytes hold ``"ID"`` is not read further for ``--leaf ID`` (one scan, no parse: a warm
    search stays fast); only one that does not is read as ``session inspect`` reads it."""
    from reference.pi.exact.reader import header_line

    refusal = _unopenable(path)
    if refusal is not None:
        return CheckedSession(refusal)
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below; the refusal of an open is its own
    except OSError as exc:
        return CheckedSession(Refusal(Code.SESSION_UNREADABLE,
                                      f"cannot read {printable(path)} ({exc.strerror}); check its permissions"))
    header: dict[str, Any] | None = None
    with stream:
        if legacy:
            with contextlib.suppress(OSError, ValueError, RecursionError):  # line 1 that is no object
                header = header_line(stream)
        refusal = _legacy(path, header)
        if refusal is None and leaf is not None and leaf != "null" and not _mentions(stream, leaf):
            refusal = exact_unknown_leaf(path, leaf)  # "ID" is nowhere in the file: read it to be sure
    return CheckedSession(refusal, header)


def scope_mismatch_hint(session: str, project: str) -> str:
    """Why ``source-scope-mismatch``, with the folder to run from: history and rebase use a
    session only from the project its header's ``cwd`` names (contract §6.2, 16)."""
    from reference.pi.exact.reader import read_header_line

    try:
        recorded = read_header_line(session).get("cwd")
    except (OSError, ValueError, RecursionError):
        recorded = None
    if not isinstance(recorded, str):
        return ("the session's header has no cwd that is this project: history and rebase use a session only "
                "from the project it was recorded in (run from that folder or pass --cwd DIR)")
    return (f"the session was recorded in {printable(recorded)} (its header's cwd), and this command runs for "
            f"{printable(project)}: history and rebase use a session only from its own project, so run from "
            f"that folder or pass --cwd {printable(recorded)}")


def session_problem(path: str) -> str | None:
    """What the session path is when it cannot be read as a version 3 session, or None."""
    from reference.pi.exact.reader import read_header_line
    from reference.pi.exact.session import first_line_problem

    if not encodes_as_utf8(path):
        return f"the session path {printable(path)} is not UTF-8: Pi cannot open it either (rename the file)"
    if not os.path.lexists(path):
        return f"there is no session file at {printable(path)}"
    if not os.path.isfile(path):
        return f"{printable(path)} is not a regular file"
    try:
        version = read_header_line(path).get("version", 1)
    except (OSError, ValueError, RecursionError):
        why = first_line_problem(path) or "is not a session header"
        return f"{printable(path)} is not a Pi session file: its first line {why}"
    if version != 3:
        return (f"{printable(path)} is a legacy version {version} session: Pi rewrites it to version 3 when it "
                "opens it; open it once in Pi 0.84.3, this tool never rewrites it")
    return None


def index_problem(path: str) -> str | None:
    """Why an index of ours cannot be used, in words, or None when nothing is seen wrong. A path
    that is no index of ours (a folder, a device, another program's file) never gets here: it is
    ``index-not-ours`` before SQLite opens it (``reference.recall.index_claim``)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None  # created on first use
    except OSError as exc:
        return f"the index {printable(path)} cannot be reached ({exc.strerror})"
    if not os.access(path, os.W_OK):
        return f"the index {printable(path)} is read-only"
    return None


def situation_hints(session: str, index: str | None) -> dict[str, str]:
    """Hints that depend on the files named: what the session is, why the index cannot be used."""
    hints: dict[str, str] = {}
    problem = session_problem(os.path.abspath(session))
    if problem is not None:
        hints.update({"ephemeral-session": problem, "history-unavailable": problem,
                      "index-not-yet-synchronized": problem})
    index_issue = (index_problem(index) or _open_error(index)) if index else None
    if index_issue is not None:
        hints["runtime-unavailable"] = index_issue
    return hints


def _open_error(path: str) -> str | None:
    """What SQLite says when it reads the index read-only (a damaged file with a valid header)."""
    try:
        uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro"
        conn = sqlite3.connect(uri, uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"the index {printable(path)} cannot be opened ({exc}; move it away or pass another --index)"
    except (ValueError, UnicodeError):
        return None
    return None
