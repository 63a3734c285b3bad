"""The adapter the steps see: one live implementation at a time, kept alive across its faults.

A port that hangs, crashes or desyncs fails the scenario it was serving (TIMEOUT or CRASH, with
its last stderr lines) and is killed with its whole process group; the next scenario starts a
fresh one, with its handshake, and the run goes on (as Bowtie restarts a crashed
implementation). An in-process adapter that raises anything but a contract error is a CRASH too,
and is replaced by a new instance; it has no timeout (a hang there hangs the run). A message off
the schema (``--validate-messages``) fails its row but keeps the port: it is still in sync.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from conformance.faults import (
    PORT_HANDSHAKE_FAILED,
    PORT_START_FAILED,
    PortErrored,
    PortExited,
    PortFault,
    PortStartFailed,
)
from conformance.implementations import adapter_class
from conformance.message_checks import MessageChecks, MessageOffSchema, ValidatingAdapter
from conformance.protocol import PROTOCOL_VERSION, Adapter, ContractError, ImplInfo, JsonObject
from conformance.stdio import SubprocessAdapter


class PortSupervisor:
    """Starts, times, charges and replaces the implementation under test."""

    def __init__(self, make: Callable[[], Adapter], *, request_timeout: float | None) -> None:
        self._make = make
        self.request_timeout = request_timeout
        self._port: Adapter | None = None
        self.info: ImplInfo | None = None
        self.fault: PortFault | None = None
        self.start_failure: PortStartFailed | None = None
        self.restarts = 0
        self._closed = False
        self._over_stdio = False

    def start(self) -> ImplInfo:
        """Start an implementation unless one runs: the first start, or a restart after a fault."""
        if self._closed:
            raise PortExited("not started: the run is over", "")
        if self._port is None:
            port = self._make()
            self._over_stdio = isinstance(port, SubprocessAdapter)
            try:
                self._port, info = port, _started(port)
            except PortStartFailed as failure:
                self._port, self.start_failure = None, failure
                raise
            if self.info is None:
                self.info = info
            else:
                self.restarts += 1
        assert self.info is not None
        return self.info

    def begin_scenario(self, timeout_factor: float = 1.0) -> None:
        """Before each scenario: forget the last fault, have a live port, set this scenario's timeout."""
        self.fault = None
        self.start()
        if isinstance(self._port, SubprocessAdapter):
            self._port.request_timeout = None if self.request_timeout is None else self.request_timeout * timeout_factor

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        if self.fault is not None:
            raise type(self.fault)(f"not sent ({op}): the port was stopped after an earlier request of this "
                                   f"scenario failed: {self.fault.message}", self.fault.stderr_tail)
        port = self._port
        if port is None:
            self.start()
            port = self._port
            assert port is not None
        try:
            return port.request(op, params)
        except (ContractError, MessageOffSchema):  # an answer (or a request) off the schema: the port is in sync
            raise
        except PortFault as fault:
            self._charge(fault)
            raise
        except Exception as exc:  # an in-process adapter broke outside the contract
            broke = PortErrored(f"{op} raised {type(exc).__name__}: {exc}", traceback.format_exc(limit=8).strip())
            self._charge(broke)
            raise broke from exc

    def stderr_lines(self) -> list[str]:
        """The port process's last stderr lines: the fault's, else the live port's (none in process)."""
        if not self._over_stdio:
            return []
        if self.fault is not None:
            tail = self.fault.stderr_tail
        else:
            tail = self._port.stderr_tail() if isinstance(self._port, SubprocessAdapter) else ""
        return [line for line in tail.splitlines() if line.strip()]

    def _charge(self, fault: PortFault) -> None:
        """The current scenario carries the fault; the port is discarded (killed with its group)."""
        self.fault = fault
        self._discard()

    def _discard(self) -> None:
        """Drop the port without asking it: a port process is killed with its group."""
        port, self._port = self._port, None
        if isinstance(port, SubprocessAdapter):
            port.kill()
        elif port is not None:
            _stop_quietly(port)

    def stop(self) -> None:
        """The end of a run: ask the port to stop (a port process is killed with its group after)."""
        self._closed = True
        port, self._port = self._port, None
        if port is not None:
            _stop_quietly(port)

    def kill(self) -> None:
        """An interrupted run: kill the port's group at once, without asking."""
        self._closed = True
        self._discard()


def _started(port: Adapter) -> ImplInfo:
    """``port.start()``; anything but a clean handshake is :class:`PortStartFailed`."""
    try:
        info = port.start()
    except PortStartFailed:
        raise
    except Exception as exc:
        raise PortStartFailed(PORT_START_FAILED, f"the adapter did not start: {type(exc).__name__}: {exc}") from exc
    if info.protocol_version != PROTOCOL_VERSION:
        _stop_quietly(port)
        raise PortStartFailed(PORT_HANDSHAKE_FAILED, f"the implementation speaks protocol version "
                              f"{info.protocol_version}; this harness speaks {PROTOCOL_VERSION}")
    return info


def _stop_quietly(port: Adapter) -> None:
    with contextlib.suppress(Exception):  # a broken port's stop is no news: its scenario already failed
        port.stop()


def supervisor_of(stdio_command: Sequence[str] | None, adapter_name: str, *, request_timeout: float | None,
                  start_timeout: float | None, checks: MessageChecks | None) -> PortSupervisor:
    """The supervisor of a ``--stdio`` port (its timeouts in seconds, None: none) or of the in-process
    adapter named (no timeout), every message held to ``checks`` when given
    (:class:`conformance.implementations.AdapterNotFound` for a name that names none)."""
    if stdio_command:
        command = list(stdio_command)
        return PortSupervisor(lambda: SubprocessAdapter(command, start_timeout=start_timeout, checks=checks),
                              request_timeout=request_timeout)
    implementation = adapter_class(adapter_name)
    if checks is not None:
        return PortSupervisor(lambda: ValidatingAdapter(implementation(), checks), request_timeout=None)
    return PortSupervisor(implementation, request_timeout=None)
