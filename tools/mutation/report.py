"""What a run prints: one line per entry that was not plainly killed, then ``killed K/N`` last; or JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mutation.judge import Judgement, Verdict
from mutation.sample import Sample


def progress_line(done: int, total: int, judgement: Judgement) -> str:
    """``[12/150] READ-M003 killed 2.1s`` (stderr, one per entry as it finishes)."""
    return f"[{done}/{total}] {judgement.mutant.id} {judgement.verdict.value} {judgement.seconds:.1f}s"


def killed_count(judgements: Sequence[Judgement]) -> int:
    return sum(judgement.verdict.killed for judgement in judgements)


def passed(judgements: Sequence[Judgement]) -> bool:
    """Every entry killed (KILLED-ELSEWHERE and TIMEOUT count) and none stale or in error."""
    return all(judgement.verdict.killed for judgement in judgements)


def text(judgements: Sequence[Judgement]) -> str:
    """Every entry not plainly killed, with what was expected of it, then ``killed K/N``."""
    lines = []
    for judgement in judgements:
        mutant, verdict = judgement.mutant, judgement.verdict
        if verdict is Verdict.KILLED:
            continue
        line = f"{verdict.value.upper():16} {mutant.id} ({mutant.source}): {mutant.bug}"
        line += f"\n{'':16} expected to fail: {', '.join(mutant.kills)}"
        if verdict is Verdict.KILLED_ELSEWHERE:
            line += f"; failed instead: {', '.join(judgement.failed) or '?'} (correct its kills)"
        if judgement.detail:
            line += f"\n{'':16} {judgement.detail}"
        lines.append(line)
    lines.append(f"killed {killed_count(judgements)}/{len(judgements)}")
    return "\n".join(lines)


def as_json(judgements: Sequence[Judgement], sample: Sample | None) -> str:
    """One object for scripts: per entry its verdict, seconds and the failed rows when known."""
    document: dict[str, Any] = {
        "killed": killed_count(judgements),
        "total": len(judgements),
        "passed": passed(judgements),
        "sample": None if sample is None else {"seed": sample.seed, "ids": list(sample.ids), "of": sample.total},
        "entries": [{"id": judgement.mutant.id, "source": judgement.mutant.source, "area": judgement.mutant.area,
                     "verdict": judgement.verdict.value, "counts_as_killed": judgement.verdict.killed,
                     "seconds": judgement.seconds, "kills": list(judgement.mutant.kills),
                     "failed": list(judgement.failed), "detail": judgement.detail}
                    for judgement in judgements],
    }
    return json.dumps(document, indent=2)
