"""``--junitxml``: the run's final report as JUnit XML, one test case per row, one suite per area.

Written from the NDJSON report rather than by pytest's ``--junitxml``: pytest names cases after
test functions and parametrize ids, which cannot be the row ids (``READER-021[linear]``), and
it knows nothing of XFAIL, UNSUPPORTED, TIMEOUT, CRASH or the rows a run never reached. The
standard library's ``xml.etree.ElementTree`` writes the little XML needed, so no dependency.
A case's ``name`` is the row id and its ``classname`` the area (docs/INTERPRETING.md, "Reports");
each clause the row checks is a ``clause`` property of its case (``C2.5-3: text``), and a
failure's message ends with their ids.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from conformance.commandline import OneLineError
from conformance.outputs import OUTPUT_UNWRITABLE, owner_only
from conformance.reports import Report, area_of, headline
from conformance.row_clauses import NOT_IN_SPEC, cited
from conformance.statuses import Status

FAILURES: Final = frozenset({Status.FAIL, Status.XPASS})
ERRORS: Final = frozenset({Status.ERROR, Status.TIMEOUT, Status.CRASH})
SKIPPED: Final = frozenset({Status.SKIP, Status.UNSUPPORTED, Status.NOTRUN, Status.XFAIL})
XFAIL_TYPE: Final = "xfail"
#: A case's property per clause its row checks: ``C2.5-3: the clause's text``.
CLAUSE_PROPERTY: Final = "clause"
#: The ``message`` attribute's length at most (the whole message is the element's text).
MESSAGE_CHARS: Final = 300
#: What XML 1.0 cannot hold (control characters, lone surrogates): written as ``\\uXXXX``.
NOT_XML: Final = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class JunitError(OneLineError):
    """The JUnit XML could not be written after all (the path was checked before the run)."""

    code = OUTPUT_UNWRITABLE


def write_junit(report: Report, path: Path) -> None:
    """Write ``report`` as JUnit XML at ``path``, owner-only (:func:`conformance.outputs.owner_only`)."""
    tree = ET.ElementTree(junit_tree(report))
    ET.indent(tree)
    try:
        with owner_only(path) as handle:
            tree.write(handle, encoding="utf-8", xml_declaration=True)
    except OSError as exc:
        raise JunitError(f"cannot write the JUnit XML to {path}: {exc.strerror or exc}") from None


def junit_tree(report: Report) -> ET.Element:
    """``<testsuites>`` with one ``<testsuite>`` per area, in area order."""
    by_area: dict[str, list[dict[str, Any]]] = {}
    for row in report.results:
        by_area.setdefault(area_of(row["id"]), []).append(row)
    root = ET.Element("testsuites", name="recall-rebase conformance")
    for area in sorted(by_area):
        root.append(_suite(area, by_area[area], report))
    _count(root, [row for rows in by_area.values() for row in rows])
    return root


def properties_of(report: Report) -> dict[str, str]:
    """What every suite of the file says about the run: the implementation and the suite."""
    impl = report.implementation
    return {"implementation": impl["name"], "implementation_version": impl["version"],
            "language": impl["language"], "suite_version": str(report.header["suite_version"]),
            "protocol_version": str(report.header["protocol_version"]),
            **({"contract_version": str(report.header["contract_version"])} if "contract_version" in report.header
               else {})}


def _suite(area: str, rows: list[dict[str, Any]], report: Report) -> ET.Element:
    suite = ET.Element("testsuite", name=area, timestamp=str(report.header["started"]))
    _count(suite, rows)
    properties = ET.SubElement(suite, "properties")
    for name, value in properties_of(report).items():
        ET.SubElement(properties, "property", name=name, value=xml_text(value))
    for row in rows:
        suite.append(_case(area, row))
    return suite


def _count(element: ET.Element, rows: list[dict[str, Any]]) -> None:
    """The totals JUnit readers show: tests, failures, errors, skipped, time in seconds."""
    statuses = [Status(row["status"]) for row in rows]
    element.set("tests", str(len(rows)))
    element.set("failures", str(sum(status in FAILURES for status in statuses)))
    element.set("errors", str(sum(status in ERRORS for status in statuses)))
    element.set("skipped", str(sum(status in SKIPPED for status in statuses)))
    element.set("time", _seconds(sum(float(row["duration_ms"]) for row in rows)))


def _case(area: str, row: Mapping[str, Any]) -> ET.Element:
    case = ET.Element("testcase", classname=area, name=str(row["id"]), time=_seconds(float(row["duration_ms"])),
                      file=xml_text(str(row["feature"])))
    if "line" in row:
        case.set("line", str(row["line"]))
    status = Status(row["status"])
    message = str(row["message"])
    clauses = cited(row)
    if clauses:
        properties = ET.SubElement(case, "properties")
        for clause in clauses:
            ET.SubElement(properties, "property", name=CLAUSE_PROPERTY, value=xml_text(clause.line))
    first = xml_text(headline(message)[:MESSAGE_CHARS] or status.value)
    if clauses:  # the rule the row checks, named where a CI page shows the failure
        first += f" [clauses {', '.join(clause.id for clause in clauses)}]"
    if status in FAILURES:
        ET.SubElement(case, "failure", type=status.value, message=first).text = _body(row)
    elif status in ERRORS:
        ET.SubElement(case, "error", type=status.value, message=first).text = _body(row)
    elif status is Status.XFAIL:
        ET.SubElement(case, "skipped", type=XFAIL_TYPE, message=first).text = _body(row)
    elif status in SKIPPED:
        ET.SubElement(case, "skipped", type=status.value, message=first)
    if row.get("stderr"):
        ET.SubElement(case, "system-err").text = xml_text("\n".join(row["stderr"]))
    return case


def _body(row: Mapping[str, Any]) -> str:
    """The failure's text: the step, the compared values, then the message."""
    parts = []
    if step := row.get("step"):
        parts.append(f"step (line {step['line']}): {step['keyword']} {step['text']}")
    if "expected" in row:
        parts.append(f"expected: {json.dumps(row['expected'], ensure_ascii=False)}")
        parts.append(f"actual:   {json.dumps(row.get('actual'), ensure_ascii=False)}")
    parts += [f"clause {clause.id} ({clause.link}): {clause.text or NOT_IN_SPEC}" for clause in cited(row)]
    return xml_text("\n".join([*parts, str(row["message"])]))


def xml_text(text: str) -> str:
    """``text`` with every character XML cannot carry spelled ``\\uXXXX``."""
    return NOT_XML.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _seconds(milliseconds: float) -> str:
    return f"{milliseconds / 1000:.3f}"
