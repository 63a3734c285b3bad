"""The labelled privacy corpus (``fixtures/privacy``): its session's lines and its labels, as typed values.

``labels.json`` says which entry of ``session.jsonl`` holds each fake secret (its family, where
it sits, the unique term that finds it, its sensitive part) and each near-miss (a text that
looks like a secret and is not: what must be shown whole). It is read here, once per walk, into
frozen values; the session's lines stay JSON objects, as Pi wrote them, because the walks write
them back into sessions of their own (:mod:`conformance.privacy_rebase`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import msgspec

from conformance.protocol import JsonObject
from conformance.suite import fixtures_dir


class LabelledItem(msgspec.Struct, frozen=True, rename="camel"):
    """What every labelled item has: its id, the role of its entry, the entry's id and its unique term."""

    id: str
    role: str
    entry_id: str
    term: str


class Secret(LabelledItem, frozen=True, rename="camel"):
    """A fake secret: its detector family, where in the entry it sits, and the part that must never show."""

    family: str
    position: str
    sensitive: str


class NearMiss(LabelledItem, frozen=True, rename="camel"):
    """A text that looks like a secret and is not: its family (public key, hash, masked value,
    documented example, ...), its kind, and the text a path must show whole."""

    family: str
    kind: str
    whole: str


class CorpusLabels(msgspec.Struct, frozen=True, rename="camel"):
    """``labels.json``: the seed it was made from, the secret and near-miss families, the secrets
    and the near-misses."""

    version: int
    seed: int
    session: str
    families: tuple[str, ...]
    secrets: tuple[Secret, ...]
    near_misses: tuple[NearMiss, ...]
    near_miss_families: tuple[str, ...] = ()

    def secret_entries(self) -> frozenset[str]:
        """The ids of the entries that hold a secret."""
        return frozenset(secret.entry_id for secret in self.secrets)


@dataclass(frozen=True)
class PrivacyCorpus:
    """The corpus a walk reads: its labels, and every line of its session as JSON (0: the header)."""

    labels: CorpusLabels
    records: tuple[JsonObject, ...]


def corpus_labels() -> CorpusLabels:
    return msgspec.json.decode((fixtures_dir() / "privacy" / "labels.json").read_bytes(), type=CorpusLabels)


def load_corpus() -> PrivacyCorpus:
    text = (fixtures_dir() / "privacy" / "session.jsonl").read_text(encoding="utf-8")
    return PrivacyCorpus(corpus_labels(), tuple(json.loads(line) for line in text.splitlines() if line.strip()))
