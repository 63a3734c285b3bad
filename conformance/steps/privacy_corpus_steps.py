"""Steps of the PRIVACY-1xx scenarios: the labelled privacy corpus through recall, read and status.

The corpus (``fixtures/privacy/session.jsonl`` and ``labels.json``) is written as the current
session, its header's ``cwd`` set to the project folder.  Each labelled entry is recalled by its
unique term and every hit is read; every envelope is kept.  A secret leaks when 8 or more
consecutive characters of its sensitive part appear in any envelope (its JSON text or any of its
strings).  The numbers are printed by ``python -m conformance.privacy_check``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import pytest
from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter, JsonObject
from conformance.steps.history_calls import call_tool
from conformance.suite import fixtures_dir
from conformance.world import HistoryWorld

WINDOW: Final = 8
FP_LIMIT: Final = 0.02
_PIECES: Final = re.compile(r'\\[nrt"\\/]|\s|\\')


def corpus_labels() -> dict[str, Any]:
    labels: dict[str, Any] = json.loads((fixtures_dir() / "privacy" / "labels.json").read_text(encoding="utf-8"))
    return labels


def windows(sensitive: str) -> Iterator[str]:
    """Every run of ``WINDOW`` characters of a sensitive part, within its pieces (split at
    whitespace and JSON escapes, which an output may write differently)."""
    for piece in _PIECES.split(sensitive):
        for start in range(len(piece) - WINDOW + 1):
            yield piece[start : start + WINDOW]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def envelope_text(result: JsonObject) -> str:
    """What a leak is looked for in: the envelope's JSON text and its strings."""
    return json.dumps(result, ensure_ascii=False) + "\n" + "\n".join(_strings(result))


@dataclass
class CorpusRun:
    """Per labelled item: its recall envelope and its reads."""

    recalls: dict[str, JsonObject] = field(default_factory=dict)
    reads: dict[str, list[JsonObject]] = field(default_factory=dict)


@pytest.fixture
def corpus_run() -> CorpusRun:
    return CorpusRun()


@given("the current history session is the privacy corpus")
def given_corpus(history: HistoryWorld) -> None:
    data = (fixtures_dir() / "privacy" / "session.jsonl").read_bytes()
    header, rest = data.split(b"\n", 1)
    value = json.loads(header)
    value["cwd"] = str(history.project.cwd)
    line = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    history.record("current", history.project.folder / "current.jsonl", line + b"\n" + rest)


def _walk(adapter: Adapter, history: HistoryWorld, run: CorpusRun, items: list[dict[str, Any]]) -> None:
    for item in items:
        recall = call_tool(adapter, history, "history.recall", {"query": f"`{item['term']}`", "includeSummaries": True})
        run.recalls[item["id"]] = recall
        run.reads[item["id"]] = [
            call_tool(adapter, history, "history.read", {"sourceRef": hit["sourceRef"]})
            for hit in recall.get("hits") or []
        ]


@when("every corpus secret is recalled by its term and every hit is read")
def when_secrets(adapter: Adapter, history: HistoryWorld, corpus_run: CorpusRun) -> None:
    _walk(adapter, history, corpus_run, corpus_labels()["secrets"])


@when("every corpus near-miss is recalled by its term and every hit is read")
def when_near_misses(adapter: Adapter, history: HistoryWorld, corpus_run: CorpusRun) -> None:
    _walk(adapter, history, corpus_run, corpus_labels()["nearMisses"])


@then("no envelope holds 8 or more consecutive characters of any corpus secret")
def then_no_leak(history: HistoryWorld) -> None:
    outputs = [envelope_text(result) for result in history.results]
    assert outputs, "no envelope was returned"
    leaked = []
    for secret in corpus_labels()["secrets"]:
        grams = set(windows(secret["sensitive"]))
        if any(gram in output for output in outputs for gram in grams):
            leaked.append(f"{secret['id']} {secret['family']} ({secret['role']}, {secret['position']})")
    assert not leaked, f"{len(leaked)} secrets leaked: {leaked}"


def _hits_of(run: CorpusRun, item: dict[str, Any]) -> list[JsonObject]:
    return [hit for hit in run.recalls[item["id"]].get("hits") or [] if hit["entryId"] == item["entryId"]]


@then(parsers.parse('every corpus secret\'s entry is omitted with warning "{warning}"'))
def then_omitted(corpus_run: CorpusRun, warning: str) -> None:
    wrong = []
    for secret in corpus_labels()["secrets"]:
        recall = corpus_run.recalls[secret["id"]]
        if _hits_of(corpus_run, secret) or warning not in recall["warnings"]:
            wrong.append(secret["id"])
    assert not wrong, f"shown to the remote provider or not warned: {wrong}"


@then("every corpus secret's entry is shown as sensitive and redacted")
def then_redacted(corpus_run: CorpusRun) -> None:
    wrong = []
    for secret in corpus_labels()["secrets"]:
        hits = _hits_of(corpus_run, secret)
        reads = corpus_run.reads[secret["id"]]
        ok = bool(hits) and all(hit["classification"] in ("sensitive", "local-only") for hit in hits)
        ok = ok and all("REDACTED" in read.get("text", "") for read in reads) and bool(reads)
        if not ok:
            wrong.append(secret["id"])
    assert not wrong, f"not found, not raised to sensitive, or read without a redaction: {wrong}"


def _flagged(run: CorpusRun, item: dict[str, Any]) -> bool:
    """A near-miss is flagged when its entry is not shown at normal with its text whole."""
    hits = _hits_of(run, item)
    if not hits or any(hit["classification"] != "normal" for hit in hits):
        return True
    reads = run.reads[item["id"]]
    return not reads or any(item["whole"] not in read.get("text", "") for read in reads)


@then("at most 2% of the near-misses are false positives")
def then_few_false_positives(corpus_run: CorpusRun) -> None:
    near = corpus_labels()["nearMisses"]
    flagged = [item["id"] for item in near if _flagged(corpus_run, item)]
    assert len(flagged) <= FP_LIMIT * len(near), f"{len(flagged)} of {len(near)} near-misses flagged: {flagged}"
