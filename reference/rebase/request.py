"""What a rebase is asked to do, as a typed value (contract §6.1): a new operation, a dry run or
the recovery of an operation; parsed once at the command line's flags or the adapter's params."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation

#: ``rebase.run``'s ``mode`` on the wire.
MODES: Final = ("run", "dry-run", "recover")


@dataclass(frozen=True)
class RebaseRequest:
    """One rebase: a new operation, a dry run, or the recovery of the operation ``recover``
    (its id checked by the run, §6.2 step 11); a recovery is never a dry run."""

    dry_run: bool = False
    recover: str | None = None

    @classmethod
    def of(cls, *, dry_run: bool = False, recover: str | None = None) -> RebaseRequest:
        """The command line's ``--dry-run`` / ``--recover ID`` (``--recover ''`` too)."""
        return cls(dry_run and recover is None, recover)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> RebaseRequest:
        """The adapter's ``mode`` (run by default) and ``operationId``."""
        mode = params.get("mode", "run")
        if not isinstance(mode, str) or mode not in MODES:
            raise ContractViolation(Code.INVALID_PARAMS, "mode must be run, dry-run or recover")
        recover = params.get("operationId") if mode == "recover" else None
        if mode == "recover" and not isinstance(recover, str):
            raise ContractViolation(Code.INVALID_PARAMS, "recover needs an operationId string")
        return cls(mode == "dry-run", recover)
