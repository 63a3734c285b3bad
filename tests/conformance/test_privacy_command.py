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
from conformance.privacy_rebase import NEAR_MISS_PART
from conformance.protocol import PROTOCOL_VERSION, AdapterCrashed, ImplInfo, JsonObject

LABELS = corpus_labels()
SECRET = LABELS.secrets[0]
N_SECRETS, N_NEAR = len(LABELS.secrets), len(LABELS.near_misses)
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
        assert len(rows[("egress", case)]["leaked"]) == report["secrets"] == N_SECRETS
        assert len(rows[("recall", case)]["falsePositives"]) == report["nearMisses"] == N_NEAR
        assert report["handoffs"][case]["secrets"] == 0
    assert report["verdict"]["clean"] is False
    assert report["verdict"]["leaked"] == N_SECRETS


def test_leaks_and_false_positives_are_counted_per_family_and_path(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29: every secret family and every near-miss family has its line, with its count in
    the corpus and, per path and provider, how many leaked or were flagged."""
    _code, report = _json(capsys, "--adapter", f"{__name__}:LeakyAdapter")
    secrets = {item["family"]: item for item in report["secretFamilies"]}
    near = {item["family"]: item for item in report["nearMissFamilies"]}
    assert sorted(secrets) == sorted(LABELS.families) and sorted(near) == sorted(LABELS.near_miss_families)
    for family, item in secrets.items():
        total = sum(1 for secret in LABELS.secrets if secret.family == family)
        assert item["secrets"] == total >= 3, family
        assert item["leaked"]["egress (remote)"] == item["leaked"]["egress (local)"] == total, family
        assert "recall (remote)" not in item["leaked"], family
    for family, item in near.items():
        total = sum(1 for near_miss in LABELS.near_misses if near_miss.family == family)
        assert item["nearMisses"] == total and item["falsePositives"]["recall (remote)"] == total, family
    rows = _rows(report)
    assert sum(rows[("egress", "local")]["leakedByFamily"].values()) == N_SECRETS
    assert rows[("status", "local")]["falsePositivesByFamily"] is None


def test_the_corpus_covers_every_authorization_scheme_and_as_many_near_misses_as_secrets() -> None:
    """Issue 29: the schemes of the IANA registry and those APIs use, each a family; the near-miss
    families the detectors' allowlists name; at least as many near-misses as secrets."""
    schemes = {"auth-token", "auth-api-token", "auth-apikey", "auth-digest", "auth-aws4-hmac-sha256",
               "auth-negotiate", "auth-ntlm", "auth-okta-ssws", "auth-splunk", "auth-oauth1", "auth-hawk",
               "auth-hoba", "auth-mutual", "auth-scram-sha-256", "auth-vapid", "auth-dpop", "auth-gnap",
               "auth-privatetoken", "auth-concealed", "auth-no-scheme", "auth-proxy-basic",
               "bearer-header", "http-basic-auth"}
    assert schemes <= set(LABELS.families)
    assert {"public-key", "hash", "uuid", "masked-value", "documented-example", "test-fixture",
            "high-entropy"} <= set(LABELS.near_miss_families)
    assert N_NEAR >= N_SECRETS and len(LABELS.families) >= 100


def test_the_text_form_prints_a_row_per_path_and_provider_and_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["privacy", "--adapter", f"{__name__}:LeakyAdapter"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0].startswith(f"leaky-fake 0 (python) over fixtures/privacy: {N_SECRETS} secrets")
    assert len([line for line in lines if line.startswith(("recall ", "egress "))]) == 4
    assert any(line.startswith("read ") and f"leaked: {SECRET.id}" in line for line in lines)
    assert lines[-1].startswith(f"verdict: NOT CLEAN: {N_SECRETS}/{N_SECRETS} secrets leaked")
    auth = next(line for line in lines if line.startswith("auth-digest "))
    assert "egress (remote): 3" in auth and "read (remote)" not in auth
    assert any(line.startswith("masked-value ") and "recall (remote): " in line for line in lines)
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
        handoffs = report["handoffs"][case]
        assert (handoffs["secrets"], handoffs["nearMisses"], handoffs["notHandedOff"]) == (N_SECRETS, N_NEAR, [])
        assert handoffs["parts"] >= N_SECRETS + -(-N_NEAR // NEAR_MISS_PART)
    assert all(item["leaked"] == {} for item in report["secretFamilies"])
    assert all(item["falsePositives"] == {} for item in report["nearMissFamilies"])


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
