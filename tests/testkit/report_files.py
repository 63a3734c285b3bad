"""Reports for the tests of ``summary`` and ``validate-report``: synthetic rows written the way the
runner writes them (through :mod:`conformance.reports`), and their NDJSON text to break on purpose."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance import reports


def header(name: str = "my-port", version: str = "0.2", language: str = "go") -> dict[str, Any]:
    return {"type": "header", "suite_version": "0.1.0", "protocol_version": 1,
            "implementation": {"name": name, "version": version, "language": language},
            "run_info": {"os": "Linux", "python": "3.11", "adapter": "stdio"},
            "started": "2026-12-01T18:00:00Z"}


def row(row_id: str, status: str = "PASS", message: str = "", title: str | None = None) -> dict[str, Any]:
    return {"id": row_id, "feature": "features/x.feature", "title": title or f"the scenario {row_id}",
            "status": status, "message": message, "duration_ms": 1.5}


def report(rows: list[dict[str, Any]], **implementation: str) -> reports.Report:
    return reports.Report(head := header(**implementation), rows, reports.summary_line(head, rows))


def write(path: Path, rows: list[dict[str, Any]], **implementation: str) -> Path:
    reports.write_report(path, report(rows, **implementation))
    return path


def ndjson(lines: list[dict[str, Any] | str]) -> str:
    """NDJSON text of these lines (a ``str`` is written as it is: a line that is not JSON)."""
    return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)


def lines_of(rows: list[dict[str, Any]], **implementation: str) -> list[dict[str, Any] | str]:
    """The lines of a valid report, as dicts, to edit before :func:`ndjson`."""
    return list(report(rows, **implementation).lines())
