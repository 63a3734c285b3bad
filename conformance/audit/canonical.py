"""The canonical side of the audit: DuckDB reads the session files' bytes into queryable views.

An independent second reading of Pi's JSONL (the toolkit never imports the reference): each
file's bytes reach DuckDB as LF-aligned blocks (:mod:`conformance.audit.blocks`), and SQL alone
splits, locates, hashes and classifies every physical line, so a torn or malformed line is a
classified row, never a NULL let through. Memory follows the block size and the longest line,
never the size of a file or of the project (docs/audit.md, "Reading the canonical bytes").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from enum import StrEnum
from pathlib import Path
from typing import Final

import duckdb

from conformance.audit.blocks import DEFAULT_BLOCK_BYTES, Block, iter_blocks
from conformance.audit.sql_files import sql_text


class CanonicalView(StrEnum):
    """The views :func:`load_canonical` creates, documented in docs/audit.md."""

    LINES = "jsonl_lines"  # first: the other two are defined over it
    ENTRIES = "jsonl_entries"
    FILES = "jsonl_files"


class LineKind(StrEnum):
    """``jsonl_lines.kind``: how Pi's loader treats a line (the adapter's ``session.records``)."""

    HEADER = "header"
    ENTRY = "entry"
    EXTRA_HEADER = "extra-header"
    BLANK = "blank"
    MALFORMED = "malformed"
    FALSY = "falsy"
    OVERSIZE = "oversize"


#: Scripts run once per connection, in order: tables, then JSON.parse's rules as macros.
_SETUP_SCRIPTS: Final = ("canonical_tables.sql", "canonical_macros.sql")
#: Pi's record limit: a line longer than this, its LF counted, is ``oversize`` and never decoded.
RECORD_LIMIT_BYTES: Final = 4 * 1024 * 1024
#: The catch-up cursor hashes at most this many bytes up to its offset (contract §5.1).
CHECKPOINT_HASH_BYTES: Final = 64 * 1024
#: After this many bytes read, the rows read so far are compressed before more are read.
COMPRESS_EVERY_BYTES: Final = 128 * 1024 * 1024
#: The view definitions, one statement each, named after their view.
_VIEW_STATEMENTS: Final = {view: f"canonical_view_{view.value}.sql" for view in CanonicalView}


def load_canonical(connection: duckdb.DuckDBPyConnection, session_files: Sequence[Path], *,
                   block_bytes: int = DEFAULT_BLOCK_BYTES, progress: Callable[[int], None] | None = None) -> None:
    """Read every session file from its bytes and create the :class:`CanonicalView` views.

    The files are only read (opened read-only), a few blocks of ``block_bytes`` at a time.
    ``progress``, when given, is called from the calling thread with the byte count of each block
    once that block is in, so that a caller can show how much of the files' total size is read.
    Once per connection: the tables it fills are created here.
    """
    for script in _SETUP_SCRIPTS:
        connection.execute(sql_text(script))
    insert_file = sql_text("canonical_insert_file.sql")
    for session_file in session_files:
        connection.execute(insert_file, {"session_file": str(session_file)})
    _read_blocks(connection, session_files, block_bytes, progress or _no_progress)
    for view in CanonicalView:
        connection.execute(sql_text(_VIEW_STATEMENTS[view]))


def _read_blocks(connection: duckdb.DuckDBPyConnection, session_files: Sequence[Path], block_bytes: int,
                 progress: Callable[[int], None]) -> None:
    """The line rows of every file, its blocks read by as many cursors at once as DuckDB has threads.

    A block is a single row to DuckDB, which cannot share one row between threads; at most that
    many blocks are held. The blocks of the next file start while the last of a file are still
    being read, so a project of many small files keeps every thread busy too. With cursors always
    at work DuckDB never checkpoints on its own, and an in-memory table stays uncompressed until it
    does (five times the size), so every ``COMPRESS_EVERY_BYTES`` the blocks in flight are waited
    for and the rows compressed.
    """
    insert_block = sql_text("canonical_insert_block.sql")
    compress = sql_text("canonical_compress.sql")

    def read_block(name: str, block: Block) -> int:
        with connection.cursor() as cursor:
            cursor.execute(insert_block, {
                "session_file": name, "block": block.data, "block_start": block.start,
                "lines_before": block.lines_before, "record_limit": RECORD_LIMIT_BYTES,
                "checkpoint_hash_bytes": CHECKPOINT_HASH_BYTES,
            })
        return len(block.data)

    workers = _thread_count(connection)
    pending: deque[Future[int]] = deque()

    def wait_until(held: int) -> None:
        while len(pending) > held:
            progress(pending.popleft().result())

    uncompressed = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for session_file in session_files:
            for block in iter_blocks(session_file, block_bytes=block_bytes):
                if uncompressed >= COMPRESS_EVERY_BYTES:
                    wait_until(0)
                    connection.execute(compress)
                    uncompressed = 0
                pending.append(pool.submit(read_block, str(session_file), block))
                uncompressed += len(block.data)
                wait_until(workers - 1)
        wait_until(0)
    connection.execute(compress)


def _no_progress(_block_bytes: int) -> None:
    """No one is shown the progress."""


def _thread_count(connection: duckdb.DuckDBPyConnection) -> int:
    """How many blocks are read at once: DuckDB's own ``threads`` setting."""
    row = connection.execute(sql_text("canonical_threads.sql")).fetchone()
    return max(1, int(row[0])) if row else 1
