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

import hashlib
import os
import sqlite3
import stat
from pathlib import Path
from typing import IO, Any, Final

from reference.pi.exact.inspection import describe_session
from reference.pi.exact.reader import (
    HEADER_SCAN_LIMIT_BYTES,
    decode_value,
    open_session_file,
    read_header_line,
)
from reference.pi.exact.session import SessionFile, load_session
from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonParseError
from reference.primitives.platform_ops.identity import change_stamp
from reference.recall.catchup_state import IndexState, StoredState, load_state, stored_stamp
from reference.recall.index_claim import IndexClaim, IndexNotOurs, claim_index
from reference.recall.model_facts import FACT_MODEL, Seal, load_seal
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


def _header(raw: IO[bytes]) -> tuple[str, str] | None:
    """``(session id, SHA-256 of the line)`` when the first line is a session header."""
    line, newline, _rest = raw.read(HEADER_SCAN_LIMIT_BYTES).partition(b"\n")
    if not newline:
        return None
    try:
        value = decode_value(line)
    except JsonParseError:
        return None
    if not isinstance(value, dict) or value.get("type") != "session":
        return None
    session_id = value.get("id")
    if not isinstance(session_id, str) or storable(session_id) != session_id:
        return None
    return session_id, hashlib.sha256(line).hexdigest()


def _current(conn: sqlite3.Connection, raw: IO[bytes], path: str, info: os.stat_result, session_id: str,
             header_hash: str) -> tuple[StoredState, Seal] | None:
    """The state and seal when they describe the file as it is (the catch-up's cursor check
    finding nothing to do, with nothing skipped); else None."""
    state = load_state(conn, session_id)
    if (state is None or state.session_file != path or state.header_hash != header_hash
            or state.file_size != info.st_size or state.file_mtime_ns != info.st_mtime_ns
            or state.checkpoint_offset != info.st_size or state.malformed_lines != 0
            or stored_stamp(conn, session_id) != change_stamp(info)):
        return None
    seal = load_seal(conn, session_id)
    if seal is None or seal.unbuildable or seal.uncertain:
        return None
    if state.checkpoint_offset > 0:
        if state.checkpoint_hash_start is None or not state.checkpoint_hash:
            return None
        raw.seek(state.checkpoint_hash_start)
        data = raw.read(state.checkpoint_offset - state.checkpoint_hash_start)
        if hashlib.sha256(data).hexdigest() != state.checkpoint_hash:
            return None
    return state, seal


def _provider(conn: sqlite3.Connection, session_id: str, leaf_id: str, entries: int) -> str | None:
    """The provider of the first model fact from the leaf up (None: no fact, or not a string)."""
    row = conn.execute(_FIRST_FACT_UP, (session_id, leaf_id, entries + 1)).fetchone()
    if row is None or row[0] != FACT_MODEL:
        return None
    return row[1] if isinstance(row[1], str) else None


def indexed_session_facts(session_file: str, leaf: Leaf, index_path: str) -> tuple[str, str | None] | None:
    """``(header id, provider at the leaf)`` as :func:`parsed_session_facts` finds them by parsing
    the file, or None when the index cannot prove them."""
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
            header = _header(raw)
            if header is None:
                return None
            session_id, header_hash = header
            uri = Path(os.path.abspath(index_path)).as_uri() + "?mode=rw"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None)
            try:
                conn.execute("BEGIN")  # one snapshot for the state, the seal and the walk
                proved = _current(conn, raw, os.fspath(session_file), info, session_id, header_hash)
                if proved is None:
                    return None
                state, seal = proved
                provider = _provider_at(conn, session_id, leaf, seal, state.indexed_entries)
                return None if provider is _UNPROVED else (session_id, provider)
            finally:
                conn.close()
    except (OSError, ValueError, sqlite3.Error):
        return None


_UNPROVED: Final = object()


def _provider_at(conn: sqlite3.Connection, session_id: str, leaf: Leaf, seal: Seal, entries: int) -> Any:
    """The provider at the leaf from the sealed facts, or ``_UNPROVED``."""
    leaf_id = leaf_at(leaf, seal)
    if leaf_id is _UNPROVED:
        return _UNPROVED
    if not isinstance(leaf_id, str):
        return None
    if not leaf_id or storable(leaf_id) != leaf_id:  # "": Pi's path is then the last entry's
        return _UNPROVED
    return _provider(conn, session_id, leaf_id, entries)


def provider_in_index(conn: sqlite3.Connection, state: IndexState, leaf: Leaf) -> tuple[bool, str | None]:
    """``(proved, provider at the leaf)`` on a connection whose catch-up of the session has just
    answered ``state``: the cursor is proved, so only the state's whole coverage and the seal are
    checked (what :func:`indexed_session_facts` checks after proving the cursor itself)."""
    if state.malformed_lines != 0 or state.checkpoint_offset != state.file_size or state.tail_unterminated:
        return False, None
    seal = load_seal(conn, state.session_id)
    if seal is None or seal.unbuildable or seal.uncertain:
        return False, None
    provider = _provider_at(conn, state.session_id, leaf, seal, state.indexed_entries)
    return (False, None) if provider is _UNPROVED else (True, provider)


def header_id(session_file: str) -> str | None:
    """The header id, as Pi's session manager knows it; None when the file is not a session."""
    try:
        value = read_header_line(session_file).get("id")
    except (OSError, ValueError):
        return None
    return value if isinstance(value, str) else None


def provider_at_leaf(session: SessionFile, leaf: Leaf) -> str | None:
    """The current model provider at the leaf, from Pi's context settings (privacy egress)."""
    try:
        report = describe_session(session, leaf)
    except ContractViolation:
        return None
    model = (report.get("settings") or {}).get("model")
    provider = model.get("provider") if isinstance(model, dict) else None
    return provider if isinstance(provider, str) else None


def session_facts(
    session_file: str | None, leaf: Leaf, provider: str | None, index_path: str | None = None
) -> tuple[str | None, str | None]:
    """The current session's header id and the model provider at the leaf (the given one, else
    Pi's at the leaf).  From the index at ``index_path`` when it is up to date with the file
    (:func:`indexed_session_facts`), else from one read of the file: the header id is the
    loaded header's when the header is the file's first line, else the first line's as
    :func:`header_id` reads it."""
    if not session_file or not os.path.isfile(session_file):
        return None, provider
    if provider is not None:
        return header_id(session_file), provider
    if index_path is not None:
        indexed = indexed_session_facts(session_file, leaf, index_path)
        if indexed is not None:
            return indexed
    return parsed_session_facts(session_file, leaf)


def parsed_session_facts(session_file: str, leaf: Leaf) -> tuple[str | None, str | None]:
    """:func:`session_facts` by parsing the whole file (the exact path the index's must equal)."""
    try:
        session = load_session(session_file)
    except ContractViolation:
        return header_id(session_file), None
    provider = provider_at_leaf(session, leaf)
    if session.header_record.start != 0:
        return header_id(session_file), provider
    value = session.header.get("id")
    return (value if isinstance(value, str) else None), provider


def leaf_at(leaf: Leaf, seal: Seal) -> Any:
    """The entry id the description is at: Pi's default leaf (the last entry in file order,
    None without entries), None, or the given value (a non-string one gives no provider)."""
    if leaf is DEFAULT_LEAF:
        return seal.last_entry_id if seal.last_entry_id is not None or seal.mark[5] == 0 else _UNPROVED
    return leaf
