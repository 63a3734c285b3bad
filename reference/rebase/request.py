"""What a rebase is asked to do, as a typed value (contract §6.1): a new operation, a dry run or
the recovery of an operation; parsed once at the command line's flags or the adapter's params."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation


class RebaseMode(StrEnum):
    """``rebase.run``'s ``mode`` on the wire; the command line's flags."""

    RUN = "run"
    DRY_RUN = "dry-run"
    RECOVER = "recover"


@dataclass(frozen=True)
class RebaseRequest:
    """One rebase: a new operation, a dry run, or the recovery of ``operation_id``."""

    mode: RebaseMode = RebaseMode.RUN
    operation_id: str | None = None  # only for RECOVER, checked by the run (§6.2 step 11)

    @property
    def dry_run(self) -> bool:
        return self.mode is RebaseMode.DRY_RUN

    @property
    def recover(self) -> str | None:
        return self.operation_id if self.mode is RebaseMode.RECOVER else None

    @classmethod
    def of(cls, *, dry_run: bool = False, recover: str | None = None) -> RebaseRequest:
        """The command line's ``--dry-run`` / ``--recover ID`` (``--recover ''`` too)."""
        if recover is not None:
            return cls(RebaseMode.RECOVER, recover)
        return cls(RebaseMode.DRY_RUN if dry_run else RebaseMode.RUN)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> RebaseRequest:
        """The adapter's ``mode`` (run by default) and ``operationId``."""
        try:
            mode = RebaseMode(params.get("mode", "run"))
        except ValueError:
            raise ContractViolation(Code.INVALID_PARAMS, "mode must be run, dry-run or recover") from None
        recover = params.get("operationId") if mode is RebaseMode.RECOVER else None
        if mode is RebaseMode.RECOVER and not isinstance(recover, str):
            raise ContractViolation(Code.INVALID_PARAMS, "recover needs an operationId string")
        return cls(mode, recover)
