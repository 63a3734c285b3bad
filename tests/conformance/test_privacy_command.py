"""``recall-rebase conformance privacy``: the corpus walked over every output path, its numbers and exit code.

A small fake adapter that passes every payload out untouched and reads a secret back must make
the command exit 1 with the leaks on their rows; bad input is one line and exit 2; the reference
walked in-process gives every row, and its exit code follows its verdict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from conformance.cli import main
from conformance.privacy_command import ORDER
from conformance.privacy_corpus import corpus_labels
from conformance.protocol import PROTOCOL_VERSION, AdapterCrashed, ImplInfo, JsonObject

SECRET = corpus_labels().secrets[0]
SCHEMA = "ds4-history-result-v1"


class LeakyAdapter:
    """Answers every operation of the walk; its reads show a corpus secret, its egress changes nothing."""

    def start(self) -> ImplInfo:
        return ImplInfo("leaky-fake", "0", "python", PROTOCOL_VERSION, ("history.recall",))

    def stop(self) -> None:
        return None

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        envelope = {"schema": SCHEMA, "quotedData": True, "status": "complete", "warnings": []}
        if op == "history.recall":
            return {**envelope, "hits": [{"sourceRef": "r1", "entryId": "none", "classification": "normal"}]}
        if op == "history.read":
            return {**envelope, "text": f"line {SECRET.sensitive}"}
        if op == "egress.sanitize":
            return {"payload": params["payload"]}
        if op == "rebase.run":
            return {"result": {"status": "unavailable", "warnings": ["rebase-unavailable"]}, "notifications": []}
        return {}


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["privacy", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def _rows(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["path"], r["case"]): r for r in report["rows"]}


def test_a_port_that_leaks_exits_1_with_its_leaks_on_their_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _json(capsys, "--adapter", f"{__name__}:LeakyAdapter")
    assert code == 1
    rows = _rows(report)
    assert [(r["path"], r["case"]) for r in report["rows"]] == [(p, c) for c in ("remote", "local") for p in ORDER]
    for case in ("remote", "local"):
        assert SECRET.id in rows[("read", case)]["leaked"]  # and those sharing a window with it (AKIAFAKE)
        assert rows[("recall", case)]["leaked"] == []
        assert len(rows[("egress", case)]["leaked"]) == report["secrets"] == 174
        assert len(rows[("recall", case)]["falsePositives"]) == report["nearMisses"] == 58
        assert report["handoffs"][case]["secrets"] == 0
    assert report["verdict"]["clean"] is False
    assert report["verdict"]["leaked"] == 174


def test_the_text_form_prints_a_row_per_path_and_provider_and_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["privacy", "--adapter", f"{__name__}:LeakyAdapter"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0].startswith("leaky-fake 0 (python) over fixtures/privacy: 174 secrets")
    assert len([line for line in lines if line.startswith(("recall ", "egress "))]) == 4
    assert any(line.startswith("read ") and f"leaked: {SECRET.id}" in line for line in lines)
    assert lines[-1].startswith("verdict: NOT CLEAN: 174/174 secrets leaked")
    assert SECRET.sensitive not in "\n".join(lines)


@pytest.mark.parametrize(("argv", "says"), [
    (["--adapter", "no-such-adapter"], "recall-rebase: usage: no 'recall_rebase.adapters' entry point named"),
    (["--adapter", "no_such_module:Adapter"], "recall-rebase: usage: cannot load the adapter"),
    (["--stdio", "--"], "recall-rebase: usage: --stdio -- needs the command"),
    (["--stdio", "--", "/nonexistent/port"], "recall-rebase: port-start-failed: cannot start '/nonexistent/port'"),
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    assert main(["privacy", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(says) and captured.err.count("\n") == 1, captured.err


@pytest.mark.slow
def test_the_reference_in_process_walks_every_path_and_exits_by_its_verdict(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _json(capsys)
    rows = _rows(report)
    assert report["implementation"]["name"] == "recall-rebase-reference"
    assert code == (0 if report["verdict"]["clean"] else 1)
    for case in ("remote", "local"):
        for path in ("recall", "read", "status", "rebase preview", "rebase run", "rebase recover", "egress"):
            assert rows[(path, case)]["outputs"] > 0 and rows[(path, case)]["leaked"] == [], (path, case)
        for path in ("recall", "read", "rebase target context", "egress"):
            assert rows[(path, case)]["falsePositives"] == [], (path, case)
        assert report["handoffs"][case] == {"secrets": 174, "nearMisses": 58, "parts": 175}


class CrashingAdapter(LeakyAdapter):
    """Fails outside the contract at its first recall."""

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        if op == "history.recall":
            raise AdapterCrashed("the port died on history.recall")
        return super().request(op, params)


def test_a_port_that_fails_during_the_walk_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["privacy", "--adapter", f"{__name__}:CrashingAdapter"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "recall-rebase: port-failed: the implementation failed during the walk: " \
                           "the port died on history.recall\n"


def test_the_product_command_line_hands_privacy_to_the_toolkit(capsys: pytest.CaptureFixture[str]) -> None:
    from reference.cli.main import main as product_main

    assert product_main(["conformance", "privacy", "--adapter", f"{__name__}:LeakyAdapter"]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("verdict: NOT CLEAN")
