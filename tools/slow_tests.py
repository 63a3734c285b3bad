"""Write (or check) tests/slow.txt, the measured list of slow test functions.

    pytest -m "not oracle and not node" -o junit_family=xunit1 --junitxml times.xml
    python tools/slow_tests.py times.xml            # rewrite tests/slow.txt from that run
    python tools/slow_tests.py times.xml --check    # exit 1 if the list is not what the run says

A test function is slow when its items took at least ``--total`` seconds together (setup, call
and teardown, every parameter) or one of them took at least ``--single`` seconds. ``tests/conftest.py``
marks the listed functions ``slow``; ``tox -e quick`` (``pytest -m "not slow and ..."``) leaves
them out, README's command 2 runs them all. docs/testing.md says how the list was measured.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
SLOW_LIST: Final = ROOT / "tests" / "slow.txt"
if str(ROOT / "tests") not in sys.path:  # the list's format is the tests' own: tests/testkit/slow_list.py
    sys.path.insert(0, str(ROOT / "tests"))
from testkit import slow_list as listing  # noqa: E402


@dataclass(frozen=True)
class Timing:
    """One test function's items in a run: their seconds together, the longest one, how many."""

    total: float
    longest: float
    items: int


def function_id(case: ElementTree.Element) -> str | None:
    """``tests/x/test_y.py::TestZ::test_w`` of an xunit1 ``testcase`` (parameters dropped)."""
    path, classname, name = case.get("file"), case.get("classname") or "", case.get("name") or ""
    if not path or not name:
        return None
    path = path.replace("\\", "/")
    if not path.startswith("tests/"):  # defined in a library (a Hypothesis state machine's TestCase)
        path = _test_file_of(classname) or path
    module = path.removesuffix(".py").replace("/", ".")
    inner = classname.removeprefix(module).strip(".")
    return "::".join(part for part in (path, inner, name.split("[", 1)[0]) if part)


def _test_file_of(classname: str) -> str | None:
    """The test file a dotted ``classname`` starts with (``tests.a.test_b.TestC``: ``tests/a/test_b.py``)."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        candidate = "/".join(parts[:end]) + ".py"
        if (ROOT / candidate).is_file():
            return candidate
    return None


def timings(junit_xml: Path) -> dict[str, Timing]:
    """Every test function of the run, with its items' seconds."""
    totals: dict[str, list[float]] = defaultdict(list)
    for case in ElementTree.parse(junit_xml).getroot().iter("testcase"):
        if (key := function_id(case)) is not None:
            totals[key].append(float(case.get("time") or 0))
    return {key: Timing(sum(times), max(times), len(times)) for key, times in totals.items()}


def slow_list(measured: dict[str, Timing], *, total: float, single: float) -> str:
    """The file's text: the slow functions, longest first."""
    slow = sorted(((key, t) for key, t in measured.items() if t.total >= total or t.longest >= single),
                  key=lambda pair: (-pair[1].total, pair[0]))
    rules = f"# Rule: {total:g} s together or {single:g} s for one item.\n"
    return listing.HEADER + rules + "".join(listing.line(key, t.total, t.items) for key, t in slow)


def listed(text: str) -> set[str]:
    """The function ids of a slow list's text."""
    return set(listing.read(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/slow_tests.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("junit_xml", type=Path, help="a JUnit XML of the tests env (-o junit_family=xunit1)")
    parser.add_argument("--total", type=float, default=1.0, help="seconds of all a function's items (default 1)")
    parser.add_argument("--single", type=float, default=0.5, help="seconds of its longest item (default 0.5)")
    parser.add_argument("--check", action="store_true", help="exit 1 if tests/slow.txt lists other functions")
    args = parser.parse_args(argv)
    if not args.junit_xml.is_file():
        print(f"tools/slow_tests.py: no such file: {args.junit_xml}", file=sys.stderr)
        return 2
    measured = timings(args.junit_xml)
    if not measured:
        print(f"tools/slow_tests.py: {args.junit_xml} has no testcase with a file (run pytest with "
              "-o junit_family=xunit1)", file=sys.stderr)
        return 2
    text = slow_list(measured, total=args.total, single=args.single)
    if args.check:
        stale = listed(SLOW_LIST.read_text(encoding="utf-8")) ^ listed(text)
        for key in sorted(stale):
            print(f"differs: {key}")
        return 1 if stale else 0
    SLOW_LIST.write_text(text, encoding="utf-8")
    print(f"tests/slow.txt: {len(listed(text))} slow functions of {len(measured)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
