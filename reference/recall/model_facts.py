"""The session facts a host needs: the header id and the model provider at the leaf, Pi's
(one function, :func:`session_facts`), from the index and bounded reads of the file when the
index provably describes the file (issue 13, docs/index.md), else by parsing the whole session.

The index is used only when the projection provably describes the file as it is now: the header
line (read within the header scan limit) hashes to the indexed header, the size, mtime and change
stamp are the state's, the checkpoint hash (at most 64 KiB) matches, the state covers the whole
file with no line skipped (so the index's rows are exactly Pi's entries, a repeated id included),
and the model facts' seal matches the state with nothing the walk cannot decide.  Anything else
parses the file.  A tool call that has just caught the index up on its own connection asks
:func:`provider_in_index` there: the catch-up has proved the cursor, so neither the file nor the
index is opened again.

The model facts.  Pi's rule (``reference.pi.exact.context.context_settings``): over the path
root -> leaf the last ``model_change`` (its ``provider``) or assistant ``message`` (its
``message.provider``) wins, and a ``message`` entry without a message makes the context
unbuildable.  So the catch-up stores, per entry with such a fact, ``(fact, provider)`` in
``recall_rebase_model_facts``; walking up from the leaf, the first entry with a fact decides.  The
seal (``recall_rebase_session_seals``) says for which state of the session the facts are
complete, and counts what the walk cannot decide (unbuildable entries, ids or providers SQLite
cannot store as they are).

Both tables live outside the migration ledger, like ``recall_rebase_file_stamps``: a migration
the TypeScript implementation does not know would make it refuse the index
(``index-schema-newer``).  Triggers drop a session's seal when any of its rows is deleted or
updated by anyone (the TypeScript catch-up, a hand edit), so a valid seal also proves that no row
went missing since our catch-up counted them (what ``rows_missing`` counts otherwise).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from reference.pi.exact.entries import is_pi_entry
from reference.pi.exact.reader import open_session_file, read_header_line
from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.pi.session_inspect import inspect_report
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import UNDEFINED
from reference.recall.catchup_source import EntryLine, OpenSession, open_source, read_range
from reference.recall.catchup_state import IndexState, index_state, key_range, rebuild_reason, stored_stamp
from reference.recall.index_claim import IndexClaim, IndexNotOurs, claim_index
from reference.recall.sqlite_text import storable

#: The entry sets the model: ``provider`` holds its provider when that is a string, else NULL.
FACT_MODEL: Final = 1
#: A ``message`` entry without a message: Pi cannot build a context through it.
FACT_UNBUILDABLE: Final = 2

#: The session of a deleted or updated row keyed by ``entry_key`` (NULL once its entry is gone).
_SESSION_OF_KEY: Final = "(SELECT e.session_id FROM entries AS e WHERE e.entry_key = old.entry_key)"
#: Ours, outside the migration ledger (see the module docstring).
MODEL_FACTS_SQL: Final = (
    """
CREATE TABLE IF NOT EXISTS recall_rebase_model_facts (
  entry_key TEXT PRIMARY KEY,
  fact INTEGER NOT NULL,
  provider TEXT
) STRICT, WITHOUT ROWID
""",
    """
CREATE TABLE IF NOT EXISTS recall_rebase_session_seals (
  session_id TEXT PRIMARY KEY,
  header_hash TEXT NOT NULL,
  file_size INTEGER NOT NULL,
  file_mtime_ns INTEGER NOT NULL,
  checkpoint_offset INTEGER NOT NULL,
  checkpoint_hash TEXT,
  indexed_entries INTEGER NOT NULL,
  malformed_lines INTEGER NOT NULL,
  last_entry_id TEXT,
  unbuildable INTEGER NOT NULL,
  uncertain INTEGER NOT NULL
) STRICT
""",
)
#: ``(table, trigger)``: each drops the seal of the session whose row is deleted or updated.
UNSEAL_TRIGGERS: Final = tuple(
    (
        table,
        f"""
CREATE TRIGGER IF NOT EXISTS recall_rebase_unseal_{table}_{event.lower()} AFTER {event} ON {table} BEGIN
  DELETE FROM recall_rebase_session_seals WHERE session_id = {session};
END
""",
    )
    for table, event, session in (
        ("entries", "DELETE", "old.session_id"), ("entries", "UPDATE", "old.session_id"),
        *((table, "DELETE", _SESSION_OF_KEY) for table in
          ("entries_fts_keys", "entry_source_locations", "recall_rebase_model_facts")),
        ("recall_rebase_model_facts", "UPDATE", _SESSION_OF_KEY),
    )
)
_UPSERT_FACT: Final = "INSERT OR REPLACE INTO recall_rebase_model_facts(entry_key, fact, provider) VALUES (?, ?, ?)"
_DELETE_FACT: Final = "DELETE FROM recall_rebase_model_facts WHERE entry_key = ?"
_DELETE_SESSION_FACTS: Final = "DELETE FROM recall_rebase_model_facts WHERE entry_key >= ? AND entry_key < ?"
_SEAL_COLUMNS: Final = ("header_hash, file_size, file_mtime_ns, checkpoint_offset, checkpoint_hash, indexed_entries, "
                        "malformed_lines, last_entry_id, unbuildable, uncertain")
_SELECT_SEAL: Final = f"SELECT {_SEAL_COLUMNS} FROM recall_rebase_session_seals WHERE session_id = ?"
_UPSERT_SEAL: Final = f"INSERT OR REPLACE INTO recall_rebase_session_seals(session_id, {_SEAL_COLUMNS}) VALUES ({', '.join('?' * 11)})"
_BATCH: Final = 2048


def create_tables(conn: sqlite3.Connection) -> None:
    """The two tables and the triggers on the tables the ledger has made."""
    for statement in MODEL_FACTS_SQL:
        conn.execute(statement)
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table, statement in UNSEAL_TRIGGERS:
        if table in tables:
            conn.execute(statement)


def model_fact(entry: dict[str, Any]) -> tuple[int, str | None] | None:
    """A valid entry's own contribution to Pi's context settings' model, if any."""
    kind = entry["type"]
    if kind == "model_change":
        provider = entry.get("provider")
    elif kind == "message":
        message = entry.get("message")
        if message is None or message is UNDEFINED:
            return FACT_UNBUILDABLE, None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            return None
        provider = message.get("provider")
    else:
        return None
    return FACT_MODEL, provider if isinstance(provider, str) else None


@dataclass
class Seal:
    """What one pass saw (:meth:`see`), or what the seal of a state row says: the last entry in
    file order and the counts the walk cannot decide.  The counts are conservative (a shadowed
    repeat counts too: the seal then refuses)."""

    last_entry_id: str | None = None
    unbuildable: int = 0
    uncertain: int = 0
    mark: tuple[Any, ...] = ()  # loaded: the state row the facts are complete for

    def see(self, entry: dict[str, Any], slow: bool) -> tuple[int, str | None] | None:
        """Count one accepted entry (``slow``: decoded by the JavaScript-faithful parser); its fact."""
        fact = model_fact(entry)
        entry_id = entry["id"]
        if slow and any(isinstance(text, str) and storable(text) != text
                        for text in (entry_id, entry["parentId"], fact[1] if fact else None)):
            self.uncertain += 1
        if fact is not None and fact[0] == FACT_UNBUILDABLE:
            self.unbuildable += 1
        self.last_entry_id = storable(entry_id) if slow else entry_id  # as the row stores it
        return fact

    def default_leaf(self) -> tuple[str | None] | None:
        """``(Pi's default leaf,)``: the last entry in file order, None without entries; None when
        the seal does not prove it (a skipped line: the rows may then differ)."""
        entries, malformed = self.mark[5], self.mark[6]
        if malformed != 0 or (self.last_entry_id is None and entries != 0):
            return None
        return (self.last_entry_id,)


def write_facts(conn: sqlite3.Connection, facts: list[tuple[str, int, str | None]], unfacts: list[tuple[str]]) -> None:
    """Store ``(key, fact, provider)`` rows and drop the facts of rows that no longer have one."""
    conn.executemany(_DELETE_FACT, unfacts)
    conn.executemany(_UPSERT_FACT, [(key, fact, None if provider is None else storable(provider))
                                    for key, fact, provider in facts])


def clear_facts(conn: sqlite3.Connection, session_id: str) -> None:
    """Drop every fact of the session's key range (a rebuild or a backfill writes them again)."""
    conn.execute(_DELETE_SESSION_FACTS, key_range(session_id))


def _mark(state: IndexState) -> tuple[Any, ...]:
    """The columns of the state row a seal is written for."""
    return (state.header_hash, state.file_size, state.file_mtime_ns, state.checkpoint_offset, state.checkpoint_hash,
            state.indexed_entries, state.malformed_lines)


def load_seal(conn: sqlite3.Connection, session_id: str) -> Seal | None:
    """The session's seal when it matches its state row now, else None."""
    row = conn.execute(_SELECT_SEAL, (session_id,)).fetchone()
    state = None if row is None else index_state(conn, session_id)
    if state is None or _mark(state) != tuple(row[:7]):
        return None
    return Seal(row[7], row[8], row[9], _mark(state))


def write_seal(conn: sqlite3.Connection, state: IndexState, counts: Seal) -> None:
    """Seal the session's facts for the state row just written (``state``)."""
    conn.execute(_UPSERT_SEAL, (state.session_id, *_mark(state), counts.last_entry_id, counts.unbuildable,
                                counts.uncertain))


def extend_seal(conn: sqlite3.Connection, source: OpenSession, state: IndexState, previous: Seal | None,
                appended: Seal) -> None:
    """Seal after an append (``state``) when the facts were sealed before it, else :func:`backfill`."""
    if previous is None:
        return backfill(conn, source, state)
    write_seal(conn, state, Seal(
        appended.last_entry_id if appended.last_entry_id is not None else previous.last_entry_id,
        previous.unbuildable + appended.unbuildable, previous.uncertain + appended.uncertain,
    ))


def backfill(conn: sqlite3.Connection, source: OpenSession, state: IndexState) -> None:
    """Write the session's facts and seal from one facts-only read of the file (the caller
    holds the write transaction, after the state row was brought up to date: ``state``)."""
    session_id = source.header.session_id
    if conn.execute("SELECT 1 FROM sessions WHERE session_id >= ? AND session_id < ? LIMIT 1",
                    key_range(session_id)).fetchone():
        return  # another session's keys share our key range (ids with ":"): no facts, no seal
    clear_facts(conn, session_id)
    counts = Seal()
    facts: list[tuple[str, int, str | None]] = []

    def add(line: EntryLine) -> None:
        if not is_pi_entry(line.value):
            return
        fact = counts.see(line.value, line.slow)
        if fact is not None:  # a repeated id is counted as skipped by the state: the seal then refuses
            facts.append((f"{session_id}:{storable(line.value['id'])}", *fact))
        if len(facts) >= _BATCH:
            write_facts(conn, facts, [])
            facts.clear()

    read_range(source, 0, add, rebuild=True)
    write_facts(conn, facts, [])
    write_seal(conn, state, counts)


def sealed_default_leaf(conn: sqlite3.Connection, session_id: str) -> tuple[str | None] | None:
    """:meth:`Seal.default_leaf` of a valid seal, what :func:`default_leaf_id` finds by
    sorting the session's locators; None without a valid seal."""
    seal = load_seal(conn, session_id)
    return None if seal is None else seal.default_leaf()


def default_leaf_id(conn: sqlite3.Connection, session_id: str) -> Any:
    """Pi's default leaf: the last entry in file order; None when the session has none.  Where
    the stored branch (``branch_store``) and the walk (``active_branch``) both start.

    The catch-up's seal records it (:func:`sealed_default_leaf`); without a seal that proves it,
    the entry with the greatest offset (a query over the session).
    """
    sealed = sealed_default_leaf(conn, session_id)
    if sealed is not None:
        return sealed[0]
    row = conn.execute(
        "SELECT e.entry_id FROM entries e JOIN entry_source_locations l ON l.entry_key = e.entry_key "
        "WHERE e.session_id = ? ORDER BY l.start_offset DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return None if row is None else row[0]


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
            source = open_source(raw, os.fspath(session_file))  # not a file, empty: ContractViolation
            session_id = source.header.session_id
            if source.header.record.start != 0 or session_id != source.header.value["id"]:
                return None
            uri = Path(os.path.abspath(index_path)).as_uri() + "?mode=rw"
            with contextlib.closing(sqlite3.connect(uri, uri=True, isolation_level=None)) as conn:
                conn.execute("BEGIN")  # one snapshot for the state, the seal and the walk
                state = index_state(conn, session_id)
                if (state is None or (state.file_size, state.file_mtime_ns) != (source.info.st_size, source.info.st_mtime_ns)
                        or stored_stamp(conn, session_id) is None
                        or rebuild_reason(conn, source, state, sealed=True) is not None):
                    return None
                proved, provider = provider_in_index(conn, state, leaf)
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
