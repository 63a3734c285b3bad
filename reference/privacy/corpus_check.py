"""Secret detection measured on the labelled privacy corpus (``fixtures/privacy/``).

Why: the choice of detector (docs/privacy.md) and the claim that nothing leaks rest on numbers
anyone can reproduce: ``recall-rebase fixtures privacy-check`` prints them, ``bench/privacy.py``
adds the candidates that are not dependencies.  A detector is a function ``text -> (redacted,
count)``; it catches a secret when the entry's strings, redacted, hold no 8 consecutive
characters of its sensitive part; it flags a near-miss when it counts anything in its entry or
the near-miss is not left whole.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from reference.primitives.jsonbytes import JsonObject
from reference.privacy import detection as secrets
from reference.privacy.redaction import redact_secrets

Detector = Callable[[str], tuple[str, int]]
WINDOW: Final = 8
_PIECES: Final = re.compile(r'\\[nrt"\\/]|\s|\\')

#: The layers of ``secrets.redact`` alone and together, as the check prints them.
DETECTORS: Final[dict[str, Detector]] = {
    "contract floor (4 families)": redact_secrets,
    "house rules": secrets.house_redact,
    "betterleaks": secrets.engine_redact,
    "chosen: floor + house + betterleaks": secrets.redact,
}


def windows(sensitive: str) -> Iterator[str]:
    for piece in _PIECES.split(sensitive):
        for start in range(len(piece) - WINDOW + 1):
            yield piece[start : start + WINDOW]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@dataclass(frozen=True)
class Corpus:
    labels: JsonObject
    texts: dict[str, str]  # entry id -> its strings joined by LF

    @classmethod
    def load(cls, folder: Path) -> Corpus:
        labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
        texts: dict[str, str] = {}
        for line in (folder / labels["session"]).read_text(encoding="utf-8").split("\n"):
            if line.strip():
                entry = json.loads(line)
                texts[entry["id"]] = "\n".join(_strings(entry.get("message", entry)))
        return cls(labels, texts)


@dataclass
class Score:
    name: str
    families: dict[str, list[int]] = field(default_factory=dict)  # family -> [caught, total]
    missed: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    seconds: float = 0.0
    chars: int = 0

    @property
    def caught(self) -> int:
        return sum(caught for caught, _ in self.families.values())

    @property
    def total(self) -> int:
        return sum(total for _, total in self.families.values())


def score(corpus: Corpus, name: str, detector: Detector) -> Score:
    result = Score(name)
    started = time.perf_counter()
    for secret in corpus.labels["secrets"]:
        text = corpus.texts[secret["entryId"]]
        redacted, count = detector(text)
        result.chars += len(text)
        caught = count > 0 and not any(gram in redacted for gram in windows(secret["sensitive"]))
        tally = result.families.setdefault(secret["family"], [0, 0])
        tally[0] += caught
        tally[1] += 1
        if not caught:
            result.missed.append(f"{secret['id']} {secret['family']} ({secret['role']}, {secret['position']})")
    for near in corpus.labels["nearMisses"]:
        text = corpus.texts[near["entryId"]]
        redacted, count = detector(text)
        result.chars += len(text)
        if count or near["whole"] not in redacted:
            result.flagged.append(f"{near['id']} {near['kind']}")
    result.seconds = time.perf_counter() - started
    return result


def report(corpus: Corpus, scores: list[Score], *, verbose: bool = False) -> list[str]:
    near = len(corpus.labels["nearMisses"])
    families = len(corpus.labels["families"])
    lines = [f"corpus: {len(corpus.labels['secrets'])} secrets of {families} families, {near} near-misses "
             f"(seed {corpus.labels['seed']})"]  # fmt: skip
    for item in scores:
        whole = sum(1 for caught, total in item.families.values() if caught == total)
        flagged = len(item.flagged)
        lines.append(
            f"{item.name}: caught {item.caught}/{item.total}, families whole {whole}/{families}, "
            f"near-miss false positives {flagged}/{near} = {100 * flagged / near:.1f}%, "
            f"{item.chars / max(item.seconds, 1e-9) / 1e6:.2f} M chars/s"
        )
        if verbose:
            lines.extend(f"  missed {m}" for m in item.missed)
            lines.extend(f"  flagged {m}" for m in item.flagged)
    return lines


def family_table(corpus: Corpus, scores: list[Score]) -> list[str]:
    """A Markdown table: caught/total per family, one column per detector."""
    lines = ["| family | " + " | ".join(s.name for s in scores) + " |", "|---" * (len(scores) + 1) + "|"]
    for family in corpus.labels["families"]:
        cells = [f"{s.families[family][0]}/{s.families[family][1]}" for s in scores]
        lines.append(f"| {family} | " + " | ".join(cells) + " |")
    return lines
