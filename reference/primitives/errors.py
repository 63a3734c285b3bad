"""Contract errors of the reference implementation.

An operation refuses bad input with a stable ``code`` (an exact string the adapter protocol
passes on) and a human ``message``, instead of crashing; anything else is a bug.
"""

from __future__ import annotations


class ContractViolation(Exception):
    """A request broke the contract: ``code`` is machine-readable, ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
