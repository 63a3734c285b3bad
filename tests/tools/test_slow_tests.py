"""The quick loop (``tox -e quick``): the slow list names only real tests, every package keeps
tests in the loop, and tools/slow_tests.py reads a JUnit XML as it says (docs/testing.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import slow_tests  # tools/, put on sys.path by tests/tools/conftest.py
from testkit.paths import REPO_ROOT

QUICK = "not slow and not oracle and not node"
#: Each package of the reference and the toolkit, and the tests folder that mirrors it.
PACKAGES = {**{f"reference/{p.name}": f"tests/{p.name}" for p in (REPO_ROOT / "reference").iterdir()
               if (p / "__init__.py").is_file()},
            "conformance": "tests/conformance", "conformance/audit": "tests/conformance/audit",
            "tools": "tests/tools"}


def _collected(*options: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           *options], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


@pytest.fixture(scope="module")
def every_test() -> list[str]:
    return _collected()


def test_every_listed_slow_function_is_a_test(every_test: list[str]) -> None:
    functions = {node.split("[", 1)[0] for node in every_test}
    listed = slow_tests.listed(slow_tests.SLOW_LIST.read_text(encoding="utf-8"))
    assert listed, "tests/slow.txt lists nothing"
    assert sorted(listed - functions) == [], "stale: run tools/slow_tests.py on a fresh JUnit XML"


def test_the_quick_loop_keeps_tests_of_every_package(every_test: list[str]) -> None:
    quick = _collected("-m", QUICK)
    assert 0 < len(quick) < len(every_test)
    assert {node.split("[", 1)[0] for node in quick} & slow_tests.listed(
        slow_tests.SLOW_LIST.read_text(encoding="utf-8")) == set()
    for package, folder in PACKAGES.items():
        assert (REPO_ROOT / package).is_dir(), package
        kept = [node for node in quick if node.startswith(f"{folder}/")]
        assert kept, f"the quick loop has no test of {package} ({folder}/)"


XUNIT1 = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.a.test_b" name="test_fast[1]" file="tests/a/test_b.py" line="3" time="0.010"/>
<testcase classname="tests.a.test_b" name="test_fast[2]" file="tests/a/test_b.py" line="3" time="0.020"/>
<testcase classname="tests.a.test_b" name="test_many[1]" file="tests/a/test_b.py" line="9" time="0.400"/>
<testcase classname="tests.a.test_b" name="test_many[2]" file="tests/a/test_b.py" line="9" time="0.600"/>
<testcase classname="tests.a.test_b.TestMachine" name="runTest" file="tests/a/test_b.py" line="20" time="0.500"/>
<testcase classname="tests.a.test_b" name="test_just_under" file="tests/a/test_b.py" line="30" time="0.499"/>
<testcase classname="tests.tools.test_slow_tests.TestMachine" name="runTest"
 file=".venv/lib/python3.11/site-packages/hypothesis/stateful.py" line="1" time="0.700"/>
</testsuite></testsuites>"""


def test_a_function_is_slow_at_its_bounds_and_not_before(tmp_path: Path) -> None:
    junit = tmp_path / "times.xml"
    junit.write_text(XUNIT1, encoding="utf-8")
    measured = slow_tests.timings(junit)
    assert measured["tests/a/test_b.py::test_fast"] == slow_tests.Timing(0.03, 0.02, 2)
    text = slow_tests.slow_list(measured, total=1.0, single=0.5)
    # test_many: 1.0 s together (at the bound); runTest: 0.5 s in one item (at the bound); 0.499 s is not
    assert slow_tests.listed(text) == {"tests/a/test_b.py::test_many", "tests/a/test_b.py::TestMachine::runTest",
                                       # a state machine's test case is Hypothesis's: named by its class's module
                                       "tests/tools/test_slow_tests.py::TestMachine::runTest"}
    assert slow_tests.listed(slow_tests.slow_list(measured, total=1.01, single=0.701)) == set()


def test_the_tool_says_what_is_wrong_with_its_input(tmp_path: Path) -> None:
    missing = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "slow_tests.py"), str(tmp_path / "no.xml")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and missing.stderr.startswith("tools/slow_tests.py: no such file")
    xunit2 = tmp_path / "xunit2.xml"
    xunit2.write_text('<testsuites><testsuite><testcase classname="a" name="b" time="1"/></testsuite></testsuites>',
                      encoding="utf-8")
    wrong = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "slow_tests.py"), str(xunit2), "--check"],
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "junit_family=xunit1" in wrong.stderr
    assert "Traceback" not in missing.stderr + wrong.stderr
