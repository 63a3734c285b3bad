"""Then steps on a ``session.inspect`` report: identity, diagnostics, leaf, path and context.

The TREE, CONTEXT and TOOLX scenarios inspect a session written by
:mod:`conformance.steps.session_reader_steps` and check the report field by field.
"""

from __future__ import annotations

import json

from pytest_bdd import parsers, then

from conformance.steps.common import id_list
from conformance.world import Response

# ------------------------------------------------------------------ then: inspect


@then(parsers.parse('the session id is "{session_id}" and its cwd is "{cwd}"'))
def then_identity(response: Response, session_id: str, cwd: str) -> None:
    report = response.value()
    assert (report["sessionId"], report["cwd"]) == (session_id, cwd)


@then(parsers.parse("the header version is {version:d}"))
def then_version(response: Response, version: int) -> None:
    assert response.value()["version"] == version


@then(parsers.parse("the file is flagged as legacy version {version:d}"))
def then_legacy(response: Response, version: int) -> None:
    assert response.value()["diagnostics"]["legacyVersion"] == version


@then("the file is not flagged as legacy")
def then_not_legacy(response: Response) -> None:
    assert response.value()["diagnostics"]["legacyVersion"] is None


@then("no tree or context is built from it")
def then_no_tree(response: Response) -> None:
    report = response.value()
    assert report["pathIds"] == [] and report["contextEntryIds"] == [] and report["context"] == []
    assert report["leafId"] is None


@then(parsers.parse("the diagnostics count {count:d} {kind} at lines {lines}"))
def then_diag_lines(response: Response, count: int, kind: str, lines: str) -> None:
    key = {"malformed lines": "malformedLines", "blank lines": "blankLines", "non-entry lines": "nonEntryLines",
           "skipped falsy lines": "skippedFalsyLines", "oversize records": "oversizeRecords",
           "later header lines": "extraHeaderLines"}[kind]
    diagnostic = response.value()["diagnostics"][key]
    assert diagnostic["count"] == count, diagnostic
    assert diagnostic["lines"] == [int(n) for n in lines.replace(",", " ").split()], diagnostic


@then(parsers.re(r"the diagnostics count (?P<count>\d+) (?P<kind>(?:(?! at lines ).)+)$"), converters={"count": int})
def then_diag_count(response: Response, count: int, kind: str) -> None:
    diagnostics = response.value()["diagnostics"]
    value = {
        "malformed lines": lambda d: d["malformedLines"]["count"],
        "blank lines": lambda d: d["blankLines"]["count"],
        "oversize records": lambda d: d["oversizeRecords"]["count"],
        "CRLF lines": lambda d: d["crlfLines"],
        "duplicate ids": lambda d: d["duplicateIds"]["count"],
        "missing parents": lambda d: d["brokenAncestry"]["missingParents"]["count"],
        "entries on a parent cycle": lambda d: d["brokenAncestry"]["cycles"]["count"],
    }[kind](diagnostics)
    assert value == count, diagnostics


@then("the diagnostics report an unterminated tail")
def then_torn(response: Response) -> None:
    assert response.value()["diagnostics"]["unterminatedTail"] is True


@then("the diagnostics report no unterminated tail")
def then_not_torn(response: Response) -> None:
    assert response.value()["diagnostics"]["unterminatedTail"] is False


@then(parsers.parse('the header fields "{names}" are reported as not strings'))
def then_invalid_header_fields(response: Response, names: str) -> None:
    """The header's fields read but not validated (pi-session-model.md §1.7): named, not refused."""
    diagnostics = response.value()["diagnostics"]
    assert diagnostics["invalidHeaderFields"] == names.split(), diagnostics


@then(parsers.parse("the entry count is {count:d}"))
def then_entry_count(response: Response, count: int) -> None:
    assert response.value()["entryCount"] == count


@then(parsers.parse('the duplicate ids are "{ids}"'))
def then_duplicate_ids(response: Response, ids: str) -> None:
    assert response.value()["diagnostics"]["duplicateIds"]["ids"] == id_list(ids)


@then(parsers.parse('the entries with a missing parent are "{ids}"'))
def then_missing_parents(response: Response, ids: str) -> None:
    assert response.value()["diagnostics"]["brokenAncestry"]["missingParents"]["ids"] == id_list(ids)


@then(parsers.parse('the leaf is "{leaf}"'))
def then_leaf(response: Response, leaf: str) -> None:
    assert response.value()["leafId"] == leaf


@then("the leaf is null")
def then_leaf_null(response: Response) -> None:
    assert response.value()["leafId"] is None


@then(parsers.parse('the default leaf is "{leaf}"'))
def then_default_leaf(response: Response, leaf: str) -> None:
    assert response.value()["defaultLeafId"] == leaf


@then(parsers.parse('the path ids are "{ids}"'))
def then_path(response: Response, ids: str) -> None:
    assert response.value()["pathIds"] == id_list(ids)


@then("the path is empty")
def then_path_empty(response: Response) -> None:
    assert response.value()["pathIds"] == []


@then(parsers.parse('the context entry ids are "{ids}"'))
def then_context_ids(response: Response, ids: str) -> None:
    assert response.value()["contextEntryIds"] == id_list(ids)


@then("the context is empty")
def then_context_empty(response: Response) -> None:
    report = response.value()
    assert report["contextEntryIds"] == [] and report["context"] == []


@then(parsers.parse("the context has {count:d} messages"))
def then_context_count(response: Response, count: int) -> None:
    context = response.value()["context"]
    assert len(context) == count, [m.get("role") for m in context]


@then(parsers.parse('the context roles are "{roles}"'))
def then_context_roles(response: Response, roles: str) -> None:
    assert [m.get("role") for m in response.value()["context"]] == roles.split()


@then(parsers.parse("context message {number:d} is exactly:"))
def then_context_message(response: Response, number: int, docstring: str) -> None:
    message = response.value()["context"][number - 1]
    expected = json.loads(docstring)
    # Key order is part of the contract: compare the serialized forms too.
    assert list(message) == list(expected), f"key order {list(message)} != {list(expected)}"
    assert message == expected, message


@then(parsers.parse('the model is "{provider}/{model_id}" and the thinking level is "{level}"'))
def then_settings(response: Response, provider: str, model_id: str, level: str) -> None:
    settings = response.value()["settings"]
    assert settings["model"] == {"provider": provider, "modelId": model_id}, settings
    assert settings["thinkingLevel"] == level, settings


@then(parsers.parse('there is no model and the thinking level is "{level}"'))
def then_no_model(response: Response, level: str) -> None:
    settings = response.value()["settings"]
    assert settings["model"] is None and settings["thinkingLevel"] == level, settings


@then(parsers.parse("the tool exchange has {active:d} active and {historical:d} historical issues"))
def then_tool_counts(response: Response, active: int, historical: int) -> None:
    counts = response.value()["toolExchange"]
    assert counts == {"activeIssueCount": active, "historicalIssueCount": historical}, counts


@then("the tool exchange diagnostics hold counts only")
def then_tool_counts_only(response: Response) -> None:
    counts = response.value()["toolExchange"]
    assert set(counts) == {"activeIssueCount", "historicalIssueCount"}
    assert all(isinstance(v, int) for v in counts.values())


@then(parsers.parse("the file's legacy version is {legacy}"))
def then_legacy_version(response: Response, legacy: str) -> None:
    """``1`` or ``2`` for a file Pi would migrate on open, ``none`` for one it reads as it is."""
    expected = None if legacy == "none" else int(legacy)
    assert response.value()["diagnostics"]["legacyVersion"] == expected, response.value()["diagnostics"]


@then(parsers.parse('the session inspection answers "{answer}"'))
def then_inspection_answer(response: Response, answer: str) -> None:
    """``ok`` for a description, else the contract code of the refusal."""
    if answer == "ok":
        response.value()
        return
    error = response.error
    assert error is not None, f"expected {answer}, got a result"
    assert error.code == answer, f"expected code {answer}, got {error.code}: {error.message}"


@then(parsers.parse("the path ids as JSON are {ids}"))
def then_path_json(response: Response, ids: str) -> None:
    assert response.value()["pathIds"] == json.loads(ids), response.value()["pathIds"]


@then(parsers.parse("the context entry ids as JSON are {ids}"))
def then_context_ids_json(response: Response, ids: str) -> None:
    assert response.value()["contextEntryIds"] == json.loads(ids), response.value()["contextEntryIds"]


@then(parsers.parse("the leaf as JSON is {leaf}"))
def then_leaf_json(response: Response, leaf: str) -> None:
    assert response.value()["leafId"] == json.loads(leaf), response.value()["leafId"]
