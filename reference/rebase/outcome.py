"""What a rebase answers, as typed values (contract §6.1, §6.10): the ``RebaseResult``
(:class:`reference.artifacts.journal.RebaseResult`) and, for a failed run, the failure itself,
for the command line's hints.  JSON only at the adapter and command line edges."""

from __future__ import annotations

from dataclasses import dataclass

from reference.artifacts.journal import RebaseResult


@dataclass(frozen=True)
class RebaseFailure:
    """Why a run failed: its code, the one line a person is shown (never in the result), and the
    operation it concerns when there is one (``operation-exists-use-recover`` names it)."""

    code: str
    message: str
    operation_id: str | None = None


@dataclass(frozen=True)
class RebaseOutcome:
    """The ``RebaseResult`` and, for a failed run, what failed."""

    result: RebaseResult
    failure: RebaseFailure | None = None
