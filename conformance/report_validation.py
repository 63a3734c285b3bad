"""``recall-rebase conformance validate-report REPORT...``: each report valid, or every problem it has.

The rules are :func:`conformance.reports.examine`'s (the one keeper): this module only runs them
over each file and prints the verdicts, as text (``PATH: valid (N rows, implementation X)``, or
``PATH:LINE: problem`` lines) or as JSON (``schemas/validate-report/v1/verdicts.schema.json``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from conformance import reports
from conformance.untrusted_text import for_terminal

VERDICTS_SCHEMA_ID: Final = "https://recall-rebase.invalid/schemas/validate-report/v1/verdicts.schema.json"
EXIT_VALID: Final = 0
EXIT_INVALID: Final = 1


@dataclass(frozen=True)
class Verdict:
    """One report file: the report it makes (None when invalid) and every problem found."""

    path: str
    report: reports.Report | None
    problems: list[reports.Problem]

    def lines(self) -> list[str]:
        """The text form: one ``valid`` line, or an ``invalid`` line and one line per problem."""
        if self.report is not None:
            return [f"{self.path}: valid ({len(self.report.results)} rows, "
                    f"implementation {for_terminal(self.report.label)})"]
        count = len(self.problems)
        return [f"{self.path}: invalid ({count} problem{'s' if count != 1 else ''})",
                *(f"  {for_terminal(problem.where(self.path))}" for problem in self.problems)]

    def as_json(self) -> dict[str, Any]:
        report = self.report
        return {"path": self.path, "valid": report is not None,
                "rows": None if report is None else len(report.results),
                "implementation": None if report is None else report.header["implementation"],
                "problems": [{"line": p.line, "message": p.message} for p in self.problems]}


def validate(paths: Sequence[str]) -> list[Verdict]:
    """A verdict per path, in order (a file that cannot be read is invalid, with the reason)."""
    return [Verdict(path, *reports.examine_file(Path(path))) for path in paths]


def print_verdicts(verdicts: Sequence[Verdict], *, as_json: bool) -> int:
    """Print the verdicts; exit 0 when every report is valid, 1 otherwise."""
    if as_json:
        document = {"$schema": VERDICTS_SCHEMA_ID, "reports": [verdict.as_json() for verdict in verdicts]}
        print(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        for verdict in verdicts:
            print("\n".join(verdict.lines()))
    return EXIT_VALID if all(verdict.report is not None for verdict in verdicts) else EXIT_INVALID
