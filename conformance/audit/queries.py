"""The auditor's own questions: ``audit sql`` over the named views, ``audit export`` as Parquet.

Both load the canonical side (:mod:`conformance.audit.canonical`) and the projection side
(:mod:`conformance.audit.projection`) into one offline DuckDB. A query then runs on the sealed
connection (:func:`conformance.audit.connection.seal`): it reads the loaded views and nothing
else, and can write nothing. An export writes one Parquet file per view, owner-only.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

import duckdb

from conformance.audit.canonical import CanonicalView, load_canonical
from conformance.audit.connection import DEFAULT_MEMORY_LIMIT, offline_connection, seal
from conformance.audit.inputs import AuditInputs
from conformance.audit.mapping import ProjectionMapping
from conformance.audit.projection import load_projection
from conformance.audit.views import AuditView
from conformance.commandline import OneLineError
from conformance.outputs import private_umask

#: The code of a query DuckDB refused (``schemas/codes/v1``, ``commandLine``).
AUDIT_QUERY: Final = "audit-query"
#: Every view a query can name, in the order ``audit views`` lists them.
VIEW_NAMES: Final = (*(view.value for view in CanonicalView), *(view.value for view in AuditView))


class QueryError(OneLineError):
    """DuckDB refused the auditor's query: its first line, for the user."""

    code = AUDIT_QUERY


class OutputFormat(StrEnum):
    TABLE = "table"
    JSON = "json"
    CSV = "csv"


@contextmanager
def loaded(inputs: AuditInputs, mapping: ProjectionMapping, *,
           memory_limit: str = DEFAULT_MEMORY_LIMIT) -> Iterator[duckdb.DuckDBPyConnection]:
    """An offline DuckDB holding every view of these inputs (not sealed yet)."""
    with offline_connection(memory_limit=memory_limit) as connection:
        load_canonical(connection, inputs.session_files)
        load_projection(connection, inputs.index, inputs.journal_dirs, mapping)
        yield connection


def run_query(connection: duckdb.DuckDBPyConnection, query: str, form: OutputFormat) -> str:
    """The result of ``query`` on the sealed connection, as a table, JSON or CSV."""
    seal(connection)
    try:
        relation = connection.sql(query)
        if relation is None:  # a statement without a result (it could only touch the loaded tables)
            return ""
        columns = list(relation.columns)
        if form is OutputFormat.TABLE:
            return str(relation)
        rows = relation.fetchall()
    except duckdb.Error as error:
        raise QueryError(str(error).strip().splitlines()[0]) from None
    if form is OutputFormat.JSON:
        return json.dumps([dict(zip(columns, row, strict=True)) for row in rows], ensure_ascii=False,
                          default=_json_value) + "\n"
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue()


def _json_value(value: Any) -> Any:
    """A DuckDB value JSON has no type for: bytes as hex, anything else (dates, decimals) as text."""
    return value.hex() if isinstance(value, bytes | bytearray | memoryview) else str(value)


def describe_views(connection: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str]]]:
    """Each view's columns (name, DuckDB type), for ``audit views``."""
    found: dict[str, list[tuple[str, str]]] = {}
    for name in VIEW_NAMES:
        columns = connection.execute(f'DESCRIBE "{name}"').fetchall()
        found[name] = [(str(column[0]), str(column[1])) for column in columns]
    return found


def export_parquet(connection: duckdb.DuckDBPyConnection, folder: Path) -> list[Path]:
    """One Parquet file per view in ``folder`` (made owner-only when new), each file owner-only."""
    written = []
    with private_umask():  # DuckDB creates the files: they are born owner-only
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for name in VIEW_NAMES:
            target = folder / f"{name}.parquet"
            literal = str(target).replace("'", "''")
            connection.execute(f"COPY (SELECT * FROM \"{name}\") TO '{literal}' (FORMAT parquet)")
            os.chmod(target, 0o600)  # an existing file keeps its mode otherwise
            written.append(target)
    return written
