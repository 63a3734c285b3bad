"""Numbers the docs state in the present tense are the suite's numbers today (issue 27, deliverable 7).

A count written in prose goes stale the day a scenario, a clause or a mutant is added. Counts that
tools write (README's summary table: ``tools/readme_summary.py``; ``docs/coverage.md``:
``tools/clauses.py page``) are checked by the tests of those tools; the Node port's counts by
``tests/examples/test_node_port.py``. The sentences below are written by hand, so each is held
here to what the suite says now. Dated measurements (a table row of a past run, "after issue 26")
are history and are not held.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import pytest
from testkit.paths import REPO_ROOT

from conformance.audit.checks import CHECKS
from conformance.coverage import Coverage, coverage, read_citations
from conformance.mutant_catalogue import catalogue_dir, load
from conformance.suite_scenarios import list_scenarios, scenario_rows


@dataclass(frozen=True)
class Numbers:
    """What the suite counts today."""

    coverage: Coverage
    mutants: int
    rows: int
    areas: int
    audit_checks: int


@cache
def numbers() -> Numbers:
    return Numbers(coverage(read_citations()), len(load(catalogue_dir())), len(scenario_rows()),
                   len({scenario.id.split("-", 1)[0] for scenario in list_scenarios()}), len(CHECKS))


@dataclass(frozen=True)
class Claim:
    """A sentence of a doc (a regex whose groups are counts, commas allowed) and what each count is."""

    path: str
    pattern: str
    truths: tuple[Callable[[Numbers], int], ...]

    @property
    def id(self) -> str:
        return f"{self.path}:{self.pattern[:40]}"


CLAIMS = (
    Claim("README.md", r"the ([\d,]+) clauses of `docs/spec/`",
          (lambda n: n.coverage.totals.clauses,)),
    Claim("README.md", r"scenarios that check it \(([\d,]+)\)", (lambda n: n.coverage.totals.covered,)),
    Claim("README.md", r"the tests\s+that check it instead \(([\d,]+)\)",
          (lambda n: n.coverage.totals.unobservable,)),
    Claim("README.md", r"a catalogue of ([\d,]+) plausible port bugs", (lambda n: n.mutants,)),
    Claim("README.md", r"it: ([\d,]+) checks with stable ids", (lambda n: n.audit_checks,)),
    Claim("docs/suite-strength.md", r"\n([\d,]+) entries over all ([\d,]+) areas",
          (lambda n: n.mutants, lambda n: n.areas)),
    Claim("docs/audit.md", r"`([\d,]+) checks: clean`", (lambda n: n.audit_checks,)),
    Claim("docs/INTERPRETING.md", r"the verdict line \(`([\d,]+) scenarios:", (lambda n: n.rows,)),
)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda claim: claim.id)
def test_a_count_written_in_a_doc_is_the_suites_count_today(claim: Claim) -> None:
    text = (REPO_ROOT / claim.path).read_text(encoding="utf-8")
    found = re.search(claim.pattern, text)
    assert found is not None, f"{claim.path} no longer says {claim.pattern!r}: update the claim with the sentence"
    stated = [int(group.replace(",", "")) for group in found.groups()]
    today = [truth(numbers()) for truth in claim.truths]
    assert stated == today, f"{claim.path} says {stated} where the suite counts {today}: {found.group(0)!r}"


def test_the_example_verdict_line_adds_up() -> None:
    """INTERPRETING's example verdict: its passes and unsupported rows make the suite's row count."""
    text = (REPO_ROOT / "docs/INTERPRETING.md").read_text(encoding="utf-8")
    found = re.search(r"`([\d,]+) scenarios: ([\d,]+) pass; expected: 0 expected failures, 0 skipped,\s+([\d,]+) "
                      r"unsupported", text)
    assert found is not None
    total, passed, unsupported = (int(group.replace(",", "")) for group in found.groups())
    assert passed + unsupported == total
