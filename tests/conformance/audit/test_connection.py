"""The audit's DuckDB connection never reaches the network, and once sealed touches no file."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pytest

from conformance.audit.connection import offline_connection, seal

SETTINGS = ("autoinstall_known_extensions", "autoload_known_extensions", "allow_community_extensions")


def test_extensions_are_neither_installed_nor_loaded_behind_the_audits_back() -> None:
    with offline_connection() as connection:
        for name in SETTINGS:
            assert connection.execute(f"SELECT current_setting('{name}')").fetchone() == (False,), name


@pytest.mark.parametrize("statement", ["INSTALL httpfs", "INSTALL sqlite_scanner", "LOAD httpfs",
                                       "SELECT * FROM read_csv('https://example.invalid/x.csv')"])
def test_a_missing_extension_fails_at_once_without_a_download(statement: str) -> None:
    with offline_connection() as connection:
        started = time.monotonic()
        with pytest.raises(duckdb.Error) as refused:
            connection.execute(statement)
        assert time.monotonic() - started < 2.0, "it must not have waited for a network"
        assert "extensions.duckdb.org" not in str(refused.value)


def test_a_sealed_connection_keeps_its_data_and_touches_no_file(tmp_path: Path) -> None:
    source = tmp_path / "lines.csv"
    source.write_text("a\n1\n2\n", encoding="utf-8")
    victim = tmp_path / "session.jsonl"
    victim.write_bytes(b'{"type":"session"}\n')
    with offline_connection() as connection:
        connection.execute(f"CREATE VIEW lines AS SELECT * FROM read_csv('{source}')")
        connection.execute("CREATE TEMP VIEW doubled AS SELECT a * 2 AS b FROM lines")  # temporary ones too
        seal(connection)
        source.unlink()  # the sealed tables hold the data; the file is no longer read
        assert connection.execute("SELECT sum(b) FROM doubled").fetchone() == (6,)
        for statement in (f"COPY (SELECT 1) TO '{victim}'", f"SELECT * FROM read_blob('{victim}')",
                          f"ATTACH '{tmp_path / 'x.db'}'", "SET enable_external_access = true",
                          "SET autoload_known_extensions = true"):
            with pytest.raises(duckdb.Error):
                connection.execute(statement)
    assert victim.read_bytes() == b'{"type":"session"}\n' and not (tmp_path / "x.db").exists()
