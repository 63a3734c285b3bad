"""The named views an auditor queries: their names, and their columns as the audit's SQL declares them.

Each view is a table of the audit's DuckDB connection whose columns are declared once, in
``sql/projection_<view>.sql``; whatever fills it (a mapping's SQL over a projection, or the
journal reader) must give exactly those columns.
"""

from __future__ import annotations

from enum import StrEnum

import duckdb

from conformance.audit.sql_files import sql_text


class AuditView(StrEnum):
    """The projection-side views (the canonical side's ``jsonl_*`` views are another module's)."""

    SESSIONS = "proj_sessions"
    ENTRIES = "proj_entries"
    LOCATIONS = "proj_locations"
    STATE = "proj_state"
    FTS_KEYS = "proj_fts_keys"
    LINEAGE = "proj_lineage"
    CHECKPOINTS = "proj_checkpoints"
    OPERATIONS = "proj_operations"
    JOURNALS = "journals"


#: The views a mapping fills from an implementation's tables; ``journals`` comes from the files.
MAPPED_VIEWS: tuple[AuditView, ...] = tuple(view for view in AuditView if view is not AuditView.JOURNALS)


def create_view_table(connection: duckdb.DuckDBPyConnection, view: AuditView) -> dict[str, str]:
    """Create the empty table of ``view`` and return its columns in order, name to DuckDB type."""
    connection.execute(sql_text(f"projection_{view.value}"))
    rows = connection.execute(sql_text("projection_columns"), [view.value]).fetchall()
    return {str(name): str(data_type) for name, data_type in rows}
