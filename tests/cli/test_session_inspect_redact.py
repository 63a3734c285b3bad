"""``session inspect`` and the privacy corpus (issue 29, docs/privacy.md D15).

By decision ``session inspect`` shows the file's text exactly as Pi reads it (its contract is Pi's
reading, held byte for byte by the differential tests), so it shows every secret the corpus holds;
``--redact`` is the form for sharing: no secret of the corpus leaks through it and every near-miss
it shows stays whole.  The corpus is walked at the leaf before each compaction and at the last
entry, so each part of the session is in some context; the walk first proves it saw every
labelled item in the plain output, else the redacted figures would prove nothing.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from conformance.privacy_corpus import CorpusLabels, load_corpus
from conformance.privacy_walk import envelope_text, leaked, strings_of
from reference.cli.main import main


def _inspect(path: Path, *args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["session", "inspect", str(path), *args])
    assert code == 0
    return out.getvalue()


def _leaves(records: tuple[dict[str, Any], ...]) -> list[str]:
    """The entry before each compaction, and the last entry."""
    entries = records[1:]
    return [*(entry["parentId"] for entry in entries if entry.get("type") == "compaction"), entries[-1]["id"]]


def _walk(path: Path, leaves: list[str], *flags: str) -> Iterator[Any]:
    for leaf in leaves:
        yield json.loads(_inspect(path, "--json", "--leaf", leaf, *flags))


def _shown(outputs: list[Any], labels: CorpusLabels) -> set[str]:
    strings = [text for output in outputs for text in strings_of(output, keys=False)]
    return {item.id for item in labels.near_misses if any(item.whole in text for text in strings)}


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> tuple[CorpusLabels, list[Any], list[Any]]:
    corpus = load_corpus()
    path = tmp_path_factory.mktemp("inspect") / "corpus.jsonl"
    path.write_bytes((Path(__file__).parents[2] / "fixtures" / "privacy" / "session.jsonl").read_bytes())
    leaves = _leaves(corpus.records)
    return corpus.labels, list(_walk(path, leaves)), list(_walk(path, leaves, "--redact"))


def test_plain_inspect_shows_every_secret_and_near_miss_as_pi_reads_them(walked: Any) -> None:
    labels, plain, _redacted = walked
    assert leaked((envelope_text(output) for output in plain), labels) == [secret.id for secret in labels.secrets]
    assert _shown(plain, labels) == {item.id for item in labels.near_misses}


def test_redacted_inspect_leaks_no_secret_and_keeps_every_near_miss_whole(walked: Any) -> None:
    labels, _plain, redacted = walked
    assert leaked((envelope_text(output) for output in redacted), labels) == []
    assert _shown(redacted, labels) == {item.id for item in labels.near_misses}


def test_redacted_inspect_changes_only_the_strings_that_held_a_secret(walked: Any) -> None:
    labels, plain, redacted = walked
    changed = []
    for before, after in zip(plain, redacted, strict=True):
        assert before.keys() == after.keys()
        assert before["pathIds"] == after["pathIds"] and before["diagnostics"] == after["diagnostics"]
        assert len(before["context"]) == len(after["context"])
        changed += [old for old, new in zip(before["context"], after["context"], strict=True) if old != new]
    assert changed
    held = {text for text in map(envelope_text, changed) if leaked([text], _one_of_each(labels, text))}
    assert held == set(map(envelope_text, changed))


def _one_of_each(labels: CorpusLabels, text: str) -> CorpusLabels:
    """The labels of the secrets whose term the text holds (a secret shares its entry with its
    term): ``leaked`` then looks for a few secrets, not all 351, in each changed message."""
    return msgspec.structs.replace(labels, secrets=tuple(s for s in labels.secrets if s.term in text))


def test_the_readable_form_with_redact_says_the_same(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_bytes((Path(__file__).parents[2] / "fixtures" / "privacy" / "session.jsonl").read_bytes())
    assert _inspect(path, "--redact") == _inspect(path)
