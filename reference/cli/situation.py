"""What the files named on a history or rebase command line are, in words: the hints printed
beside an ``unavailable`` answer (a session that is not a version 3 Pi file, an index that
cannot be used)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from reference.cli.refusals import printable
from reference.primitives.textunits import encodes_as_utf8


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
