"""The audit's DuckDB connection never reaches the network and cannot be talked into it."""

from __future__ import annotations

import time

import duckdb
import pytest

from conformance.audit.connection import offline_connection

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


def test_the_configuration_is_locked_before_any_query() -> None:
    with offline_connection() as connection, pytest.raises(duckdb.Error, match="locked"):
        connection.execute("SET autoload_known_extensions = true")
