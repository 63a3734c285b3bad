"""Steps of the PRIVACY-1xx scenarios: the labelled privacy corpus through recall, read, status,
rebase and egress.

The corpus walk, its leak rule and its near-miss rule are :mod:`conformance.privacy_walk` and
:mod:`conformance.privacy_rebase`; these steps call them on the scenario's history project and
check what each path gave.  The numbers are printed by ``recall-rebase conformance privacy``
(``python -m conformance privacy``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from pytest_bdd import given, parsers, then, when

from conformance.privacy_corpus import LabelledItem, corpus_labels, load_corpus
from conformance.privacy_rebase import HANDOFF_MARK, SENTINEL, RebaseWalk, walk_rebase
from conformance.privacy_walk import (
    FP_LIMIT,
    CorpusRun,
    Tally,
    corpus_session,
    envelope_text,
    leaked,
    recall_and_read,
    walk_egress,
)
from conformance.protocol import Adapter
from conformance.steps.history_calls import call_tool
from conformance.world import HistoryWorld


@dataclass
class CorpusWalk:
    """What a PRIVACY scenario walked: recalls and reads, a rebase walk, an egress tally."""

    run: CorpusRun = field(default_factory=CorpusRun)
    rebase: RebaseWalk | None = None
    egress: Tally | None = None

    @property
    def rebased(self) -> RebaseWalk:
        assert self.rebase is not None, "the corpus was not rebased"
        return self.rebase


@pytest.fixture
def corpus_run() -> CorpusWalk:
    return CorpusWalk()


@given("the current history session is the privacy corpus")
def given_corpus(history: HistoryWorld) -> None:
    history.record("current", history.project.folder / "current.jsonl", corpus_session(history.project.cwd))


def _walk(adapter: Adapter, history: HistoryWorld, walk: CorpusWalk, items: tuple[LabelledItem, ...]) -> None:
    recall_and_read(lambda op, arguments: call_tool(adapter, history, op, arguments), walk.run, items)


@when("every corpus secret is recalled by its term and every hit is read")
def when_secrets(adapter: Adapter, history: HistoryWorld, corpus_run: CorpusWalk) -> None:
    _walk(adapter, history, corpus_run, corpus_labels().secrets)


@when("every corpus near-miss is recalled by its term and every hit is read")
def when_near_misses(adapter: Adapter, history: HistoryWorld, corpus_run: CorpusWalk) -> None:
    _walk(adapter, history, corpus_run, corpus_labels().near_misses)


@when(parsers.parse('the corpus is rebased in parts and each target\'s context goes to provider "{provider}"'))
def when_rebased(adapter: Adapter, history: HistoryWorld, corpus_run: CorpusWalk, provider: str) -> None:
    corpus_run.rebase = walk_rebase(adapter, history.project, provider, load_corpus())


@when(parsers.parse('the corpus without its secret entries is rebased in parts and each target\'s context goes to '
                    'provider "{provider}"'))
def when_rebased_near(adapter: Adapter, history: HistoryWorld, corpus_run: CorpusWalk, provider: str) -> None:
    corpus_run.rebase = walk_rebase(adapter, history.project, provider, load_corpus(), near_misses_only=True)


@when(parsers.parse('every corpus entry\'s text goes out to provider "{provider}" as a history result excerpt '
                    'and as a rebase handoff'))
def when_egress(adapter: Adapter, corpus_run: CorpusWalk, provider: str) -> None:
    corpus_run.egress = walk_egress(adapter, provider, load_corpus())


def _no_leak(outputs: list[str], what: str) -> None:
    assert outputs, f"no {what} output was returned"
    labels = corpus_labels()
    by_id = {secret.id: secret for secret in labels.secrets}
    found = [f"{i} {by_id[i].family} ({by_id[i].role}, {by_id[i].position})" for i in leaked(outputs, labels)]
    assert not found, f"{len(found)} secrets leaked through {what}: {found}"


@then("no envelope holds 8 or more consecutive characters of any corpus secret")
def then_no_leak(history: HistoryWorld) -> None:
    _no_leak([envelope_text(result) for result in history.results], "recall, read or status")


@then("no rebase output holds 8 or more consecutive characters of any corpus secret")
def then_no_rebase_leak(corpus_run: CorpusWalk) -> None:
    for path, tally in corpus_run.rebased.tallies.items():
        _no_leak(tally.outputs, path)


@then("no egress output holds 8 or more consecutive characters of any corpus secret")
def then_no_egress_leak(corpus_run: CorpusWalk) -> None:
    assert corpus_run.egress is not None, "nothing went out through egress"
    _no_leak(corpus_run.egress.outputs, "egress")


@then(parsers.parse("every corpus {kind}'s entry passed through a rebase handoff"))
def then_handed_off(corpus_run: CorpusWalk, kind: str) -> None:
    labels = corpus_labels()
    items: tuple[LabelledItem, ...] = labels.secrets if kind == "secret" else labels.near_misses
    missing = [item.id for item in items if item.id not in corpus_run.rebased.handed_off]
    assert not missing, f"{len(missing)} not quoted by any target's handoff: {missing}"


@then(parsers.parse("every rebase handoff of corpus secrets goes out {outcome}"))
def then_handoff_outcome(corpus_run: CorpusWalk, outcome: str) -> None:
    secret_entries = corpus_labels().secret_entries()
    wrong = []
    for number, (entries, sent) in enumerate(corpus_run.rebased.sent):
        if not entries & secret_entries:
            continue
        if outcome == "as the omission sentinel":
            ok = bool(sent) and all(text == SENTINEL for text in sent)
        else:
            ok = bool(sent) and all(HANDOFF_MARK in text and "REDACTED" in text for text in sent)
        if not ok:
            wrong.append(f"part {number}: {[text[:120] for text in sent]}")
    assert not wrong, f"handoffs not sent {outcome}: {wrong}"


@then(parsers.parse('every corpus secret\'s entry is omitted with warning "{warning}"'))
def then_omitted(corpus_run: CorpusWalk, warning: str) -> None:
    run = corpus_run.run
    wrong = [secret.id for secret in corpus_labels().secrets
             if run.hits_of(secret) or warning not in run.recalls[secret.id]["warnings"]]
    assert not wrong, f"shown to the remote provider or not warned: {wrong}"


@then("every corpus secret's entry is shown as sensitive and redacted")
def then_redacted(corpus_run: CorpusWalk) -> None:
    run = corpus_run.run
    wrong = []
    for secret in corpus_labels().secrets:
        hits = run.hits_of(secret)
        reads = run.reads[secret.id]
        ok = bool(hits) and all(hit["classification"] in ("sensitive", "local-only") for hit in hits)
        ok = ok and all("REDACTED" in read.get("text", "") for read in reads) and bool(reads)
        if not ok:
            wrong.append(secret.id)
    assert not wrong, f"not found, not raised to sensitive, or read without a redaction: {wrong}"


def _few(flagged: list[str], where: str) -> None:
    near = corpus_labels().near_misses
    assert len(flagged) <= FP_LIMIT * len(near), f"{len(flagged)} of {len(near)} near-misses flagged {where}: {flagged}"


@then("at most 2% of the near-misses are false positives")
def then_few_false_positives(corpus_run: CorpusWalk) -> None:
    run = corpus_run.run
    _few([item.id for item in corpus_labels().near_misses if run.flagged(item)], "by recall or read")


@then("at most 2% of the near-misses are false positives in the rebase target context")
def then_few_rebase_false_positives(corpus_run: CorpusWalk) -> None:
    flagged = corpus_run.rebased.tallies["rebase target context"].flagged
    assert flagged is not None, "the near-miss rule was not applied"
    _few(sorted(flagged), "in the rebase target context")


@then("at most 2% of the near-misses are false positives at egress")
def then_few_egress_false_positives(corpus_run: CorpusWalk) -> None:
    assert corpus_run.egress is not None and corpus_run.egress.flagged is not None, "nothing went out"
    _few(sorted(corpus_run.egress.flagged), "at egress")
