"""Contract errors of the reference implementation.

An operation refuses bad input with a stable ``code`` (a :class:`Code` of the catalogue, which is
the exact string the adapter protocol passes on) and a human ``message``, instead of crashing;
anything else is a bug. The type makes mypy refuse a code spelled as a bare string.
"""

from __future__ import annotations

from reference.primitives.codes import Code


class ContractViolation(Exception):
    """A request broke the contract: ``code`` is machine-readable, ``message`` is for people."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
