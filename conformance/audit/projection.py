"""The projection side of the audit: an index's tables and the rebase journals as DuckDB views.

``load_projection`` fills the views of :class:`conformance.audit.views.AuditView` in an
:func:`conformance.audit.connection.offline_connection`: the ``proj_*`` views through a
mapping's SQL over the index (read-only, see :mod:`conformance.audit.index_snapshot`), and
``journals`` from the files.  Only key columns travel: no searchable or handoff text.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb

from conformance.audit.index_snapshot import read_only_index
from conformance.audit.journals import journal_rows
from conformance.audit.mapping import MappingError, ProjectionMapping
from conformance.audit.ndjson_load import load_rows
from conformance.audit.views import MAPPED_VIEWS, AuditView, create_view_table


def _mapped_rows(index: sqlite3.Connection, mapping: ProjectionMapping, view: AuditView,
                 columns: Sequence[str]) -> Iterator[dict[str, Any]]:
    """The rows the mapping's SQL gives for ``view``, once its columns are the view's."""
    try:
        cursor = index.execute(mapping.views[view])
    except sqlite3.Error as exc:
        raise MappingError(f"{mapping.source}: view {view.value}: the SQL fails on the index: {exc}") from None
    given = [description[0] for description in cursor.description or ()]
    if given != list(columns):
        raise MappingError(f"{mapping.source}: view {view.value}: the SQL gives columns ({', '.join(given)}), "
                           f"the view needs ({', '.join(columns)})")
    return (dict(zip(columns, row, strict=True)) for row in cursor)


def _load_mapped(connection: duckdb.DuckDBPyConnection, mapping: ProjectionMapping, view: AuditView,
                 columns: Mapping[str, str], rows: Iterator[dict[str, Any]], scratch: Path) -> int:
    """Load one mapped view; a value that does not fit its column's type is the mapping's fault."""
    try:
        return load_rows(connection, view.value, columns, rows, scratch)
    except (duckdb.ConversionException, duckdb.InvalidInputException) as exc:
        first_line = str(exc).strip().splitlines()[0]
        raise MappingError(f"{mapping.source}: view {view.value}: a value does not fit the view's column types: "
                           f"{first_line}") from None


def load_projection(connection: duckdb.DuckDBPyConnection, index: Path, journal_dirs: Sequence[Path],
                    mapping: ProjectionMapping) -> Mapping[AuditView, int]:
    """Create and fill every projection view; return each one's row count.

    ``journal_dirs`` are operations folders (``<sessions dir>/.ds4-rebase/operations``).  A bad
    mapping raises :class:`MappingError`, an unreadable index
    :class:`conformance.audit.index_snapshot.IndexUnreadable`; nothing read is ever written.
    """
    counts: dict[AuditView, int] = {}
    with tempfile.TemporaryDirectory(prefix="recall-rebase-audit-rows-") as scratch, \
            read_only_index(index) as source:
        for view in MAPPED_VIEWS:
            columns = create_view_table(connection, view)
            rows = _mapped_rows(source, mapping, view, list(columns))
            counts[view] = _load_mapped(connection, mapping, view, columns, rows, Path(scratch))
        columns = create_view_table(connection, AuditView.JOURNALS)
        counts[AuditView.JOURNALS] = load_rows(connection, AuditView.JOURNALS.value, columns,
                                               journal_rows(journal_dirs), Path(scratch))
    return counts
