"""A DuckDB connection for the audit that can never reach the network, nor touch a file once sealed.

Extensions are neither installed nor loaded behind the audit's back (autoinstall and autoload
off), the extension folder is a private empty one, the repository an explicit ``INSTALL`` would
use is a local folder that does not exist, and community extensions are refused: a missing piece
fails at once with DuckDB's own message instead of reaching for ``extensions.duckdb.org``.

Once the audit has loaded what it reads, :func:`seal` turns every view into a table, turns file
access off and locks the configuration, so a query of the auditor's (``audit sql``) can read
the loaded data but can neither write a session file, an index or a journal nor read anything
else.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import duckdb

#: What DuckDB may use, as ``memory_limit`` (it spills to ``temp_directory`` beyond it).
DEFAULT_MEMORY_LIMIT: Final = "2GB"


@contextmanager
def offline_connection(*, memory_limit: str = DEFAULT_MEMORY_LIMIT) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB that never downloads; its private folders go when it closes."""
    with tempfile.TemporaryDirectory(prefix="recall-rebase-audit-") as scratch:
        folder = Path(scratch)
        (folder / "extensions").mkdir(mode=0o700)
        config: dict[str, str | bool | int | float | list[str]] = {
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "allow_community_extensions": False,
            "extension_directory": str(folder / "extensions"),
            "custom_extension_repository": str(folder / "no-repository"),
            "temp_directory": str(folder / "spill"),
            "memory_limit": memory_limit,
        }
        connection = duckdb.connect(":memory:", config=config)
        try:
            yield connection
        finally:
            connection.close()


def seal(connection: duckdb.DuckDBPyConnection) -> None:
    """Materialise every view (they may read files), then no file access and no setting changes."""
    views = connection.execute(
        "SELECT database_name, view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' "
        "ORDER BY view_name").fetchall()
    for _, name in views:
        connection.execute(f'CREATE TABLE memory.main."{name}__sealed" AS SELECT * FROM "{name}"')
    for database, name in views:  # a view may read another: drop them only once all are copied
        connection.execute(f'DROP VIEW "{database}".main."{name}" CASCADE')
    for _, name in views:
        connection.execute(f'ALTER TABLE memory.main."{name}__sealed" RENAME TO "{name}"')
    connection.execute("SET enable_external_access = false")
    connection.execute("SET lock_configuration = true")
