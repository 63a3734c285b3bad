"""What can go wrong with a port outside the contract, as typed exceptions.

A port that hangs (:class:`PortTimeout`), dies or breaks its pipe (:class:`PortExited`), writes a
line that is not the answer to the request (:class:`PortDesync`) or answers ``errored``
(:class:`PortErrored`) has failed its scenario as TIMEOUT or CRASH; the supervisor kills it and
starts a fresh one for the next scenario. A port that cannot be started or completes no
handshake (:class:`PortStartFailed`) ends the run with one line and its own exit code.
"""

from __future__ import annotations

from typing import ClassVar, Final

from conformance.protocol import AdapterCrashed
from conformance.statuses import Status

#: The codes of a port that cannot be started (``schemas/codes/v1``, group ``commandLine``).
PORT_START_FAILED: Final = "port-start-failed"
PORT_HANDSHAKE_FAILED: Final = "port-handshake-failed"


class PortFault(AdapterCrashed):
    """The port failed outside the contract; ``status`` is what its scenario becomes."""

    status: ClassVar[Status] = Status.CRASH

    def __init__(self, message: str, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr_tail = stderr_tail

    def report_message(self) -> str:
        """The report's message: what happened, then the port's last stderr lines."""
        if not self.stderr_tail:
            return f"{self.status}: {self.message} (the port wrote nothing on stderr)"
        return f"{self.status}: {self.message}\nthe port's last stderr lines:\n{self.stderr_tail}"


class PortTimeout(PortFault):
    """No answer within the request's timeout."""

    status = Status.TIMEOUT


class PortExited(PortFault):
    """The port's process ended, or its pipe broke."""


class PortDesync(PortFault):
    """A stdout line that is not the protocol answer to the request sent (garbage, wrong ``seq``)."""


class PortErrored(PortFault):
    """The port answered ``errored`` (it broke while handling the request), or an in-process adapter raised."""


class PortStartFailed(Exception):
    """The port cannot be started, or its handshake failed: the run cannot go on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
