"""The session facts a host needs: the header id and the model provider at the leaf, Pi's
(one function, :func:`session_facts`).  From the index and bounded reads of the file when the
index provably describes the file (issue 13), else by parsing the whole session.

The index is used only when the projection provably describes the file as it is now: the header line (read
within the header scan limit) hashes to the indexed header, the size, mtime and change stamp
are the state's, the checkpoint hash (at most 64 KiB) matches, the state covers the whole file
with no line skipped (so the index's rows are exactly Pi's entries, a repeated id included), and
the model facts' seal (:mod:`reference.recall.model_facts`) matches the state with nothing the
walk cannot decide.  Anything else parses the file.  A tool call that has just caught the
index up on its own connection asks :func:`provider_in_index` there: the catch-up has proved the
cursor, so neither the file nor the index is opened again.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any, Final

from reference.pi.exact.reader import open_session_file, read_header_line
from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.pi.session_inspect import inspect_report
from reference.primitives.errors import ContractViolation
from reference.recall.catchup_source import OpenSession, read_header
from reference.recall.catchup_state import IndexState, from_state, load_state, rebuild_reason, stored_stamp
from reference.recall.index_claim import IndexClaim, IndexNotOurs, claim_index
from reference.recall.model_facts import FACT_MODEL, load_seal
from reference.recall.sqlite_text import storable

#: Leaf -> root through Pi's parent links (a falsy parent is a root, a parent that names no
#: entry ends the walk, the last line of a repeated id is the entry), stopping after the first
#: entry with a model fact, and after as many steps as the session has entries (a cycle).
_FIRST_FACT_UP: Final = """
WITH RECURSIVE walk(entry_key, parent_id, depth, fact) AS (
  SELECT e.entry_key, e.parent_id, 1, f.fact
  FROM entries AS e LEFT JOIN recall_rebase_model_facts AS f ON f.entry_key = e.entry_key
  WHERE e.entry_key = ?1 || ':' || ?2 AND e.session_id = ?1
  UNION ALL
  SELECT e.entry_key, e.parent_id, w.depth + 1, f.fact
  FROM walk AS w
  JOIN entries AS e ON e.entry_key = ?1 || ':' || w.parent_id AND e.session_id = ?1
  LEFT JOIN recall_rebase_model_facts AS f ON f.entry_key = e.entry_key
  WHERE w.fact IS NULL AND w.parent_id IS NOT NULL AND w.parent_id <> '' AND w.depth < ?3
)
SELECT f.fact, f.provider FROM walk AS w JOIN recall_rebase_model_facts AS f ON f.entry_key = w.entry_key
"""


def indexed_session_facts(session_file: str, leaf: Leaf, index_path: str) -> tuple[str, str | None] | None:
    """``(header id, provider at the leaf)`` as :func:`parsed_session_facts` finds them by parsing
    the file, or None when the index cannot prove them: the catch-up's cursor check finds nothing
    to do (the header the file's first line, nothing skipped), then :func:`provider_in_index`."""
    try:
        if claim_index(index_path) is not IndexClaim.OURS:
            return None  # nothing there yet, or our creation cut short
    except (IndexNotOurs, OSError):
        return None  # never opened: a file we did not make (I14)
    try:
        with open_session_file(session_file) as raw:
            info = os.fstat(raw.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
                return None
            source = OpenSession(raw, os.fspath(session_file), info, read_header(raw, os.fspath(session_file)))
            session_id = source.header.session_id
            if source.header.record.start != 0 or session_id != source.header.value["id"]:
                return None
            uri = Path(os.path.abspath(index_path)).as_uri() + "?mode=rw"
            with contextlib.closing(sqlite3.connect(uri, uri=True, isolation_level=None)) as conn:
                conn.execute("BEGIN")  # one snapshot for the state, the seal and the walk
                state = load_state(conn, session_id)
                if (state is None or (state.file_size, state.file_mtime_ns) != (info.st_size, info.st_mtime_ns)
                        or stored_stamp(conn, session_id) is None
                        or rebuild_reason(conn, source, state, sealed=True) is not None):
                    return None
                proved, provider = provider_in_index(conn, from_state(session_id, state), leaf)
                return (session_id, provider) if proved else None
    except (OSError, ValueError, sqlite3.Error, ContractViolation):
        return None


def provider_in_index(conn: sqlite3.Connection, state: IndexState, leaf: Leaf) -> tuple[bool, str | None]:
    """``(proved, provider at the leaf)`` on a connection whose catch-up of the session has just
    answered ``state`` (the cursor proved): from the sealed model facts, when the state covers
    the whole file with no line skipped and the seal leaves nothing the walk cannot decide."""
    if state.malformed_lines != 0 or state.checkpoint_offset != state.file_size or state.tail_unterminated:
        return False, None
    seal = load_seal(conn, state.session_id)
    if seal is None or seal.unbuildable or seal.uncertain:
        return False, None
    leaf_id: Any = leaf
    if leaf is DEFAULT_LEAF:  # the state has no skipped line, so only an unknown last entry is unproven
        default = seal.default_leaf()
        if default is None:
            return False, None
        leaf_id = default[0]
    if not isinstance(leaf_id, str):
        return True, None  # no leaf, or one that is not a string: no provider
    if not leaf_id or storable(leaf_id) != leaf_id:  # "": Pi's path is then the last entry's
        return False, None
    row = conn.execute(_FIRST_FACT_UP, (state.session_id, leaf_id, state.indexed_entries + 1)).fetchone()
    return True, row[1] if row is not None and row[0] == FACT_MODEL and isinstance(row[1], str) else None


def header_id(session_file: str) -> str | None:
    """The header id, as Pi's session manager knows it; None when the file is not a session."""
    try:
        value = read_header_line(session_file).get("id")
    except (OSError, ValueError):
        return None
    return value if isinstance(value, str) else None


def session_facts(session_file: str | None, leaf: Leaf, index_path: str | None = None) -> tuple[str | None, str | None]:
    """The current session's header id and Pi's model provider at the leaf: from the index at
    ``index_path`` when it is up to date with the file (:func:`indexed_session_facts`), else from
    one read of the file; the header id is the first line's, as :func:`header_id` reads it."""
    if not session_file or not os.path.isfile(session_file):
        return None, None
    if index_path is not None:
        indexed = indexed_session_facts(session_file, leaf, index_path)
        if indexed is not None:
            return indexed
    return parsed_session_facts(session_file, leaf)


def parsed_session_facts(session_file: str, leaf: Leaf) -> tuple[str | None, str | None]:
    """:func:`session_facts` by reading the whole file (what the index's answer must equal): the
    provider from ``session inspect``'s one reading (the session model, else the exact oracle)."""
    try:
        model = (inspect_report(session_file, leaf, messages=False).get("settings") or {}).get("model")
    except ContractViolation:
        model = None
    provider = model.get("provider") if isinstance(model, dict) else None
    return header_id(session_file), provider if isinstance(provider, str) else None
