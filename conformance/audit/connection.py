"""A DuckDB connection for the audit that can never reach the network.

Extensions are neither installed nor loaded behind the audit's back (autoinstall and autoload
off), the extension folder is a private empty one, the repository an explicit ``INSTALL`` would
use is a local folder that does not exist, community extensions are refused, and the
configuration is locked before any query of the auditor's runs: a missing piece fails at once
with DuckDB's own message instead of reaching for ``extensions.duckdb.org``.
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
            connection.execute("SET lock_configuration = true")
            yield connection
        finally:
            connection.close()
