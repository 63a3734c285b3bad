"""The audit's SQL: every statement lives in a ``.sql`` file of its own under ``sql/``, shipped in the wheel."""

from __future__ import annotations

from importlib import resources


def sql_text(name: str) -> str:
    """The text of ``sql/<name>`` (``.sql`` added when the name has no suffix)."""
    file = name if name.endswith(".sql") else f"{name}.sql"
    return (resources.files("conformance.audit") / "sql" / file).read_text(encoding="utf-8")
