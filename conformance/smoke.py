"""``recall-rebase conformance smoke``: the handshake, then every declared operation once (as ``bowtie smoke``).

The implementation is the in-process one (``reference`` by default, ``--adapter NAME``) or a port
(``--stdio -- PORT ...``), driven by the run's :class:`~conformance.supervisor.PortSupervisor` with
every message held to ``schemas/adapter/v1`` (:mod:`conformance.message_checks`). Each operation
the hello declares gets its minimal valid request (:mod:`conformance.smoke_requests`) once and one
:class:`Answer`: ``ok``, ``refused`` with a code of ``schemas/codes/v1`` (well-formed too), or
``malformed`` with why (off the schema, an unknown code, garbage, a crash or a timeout: the port is
restarted for the next operation). Exit 0: every answer well-formed; 1: one is not; 2: bad input;
3: the port does not start or fails its handshake (as ``conformance run``).
"""

from __future__ import annotations

import enum
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.check import CODE_CATALOGUE
from conformance.codes import every_code
from conformance.commandline import fail
from conformance.faults import PortFault, PortStartFailed
from conformance.implementations import AdapterNotFound
from conformance.message_checks import MessageChecks, MessageOffSchema
from conformance.port_options import timeout_seconds
from conformance.protocol import ContractError, ImplInfo, JsonObject
from conformance.runner import EXIT_NOT_CONFORMANT, EXIT_PORT_START, EXIT_USAGE
from conformance.smoke_requests import SmokeFolder, minimal_requests
from conformance.stdio import DEFAULT_REQUEST_TIMEOUT, DEFAULT_START_TIMEOUT
from conformance.suite import schemas_dir
from conformance.supervisor import PortSupervisor, supervisor_of
from conformance.untrusted_text import first_line, for_terminal

EXIT_WELL_FORMED: Final = 0


class Verdict(enum.StrEnum):
    """What one answer was: ``ok`` and ``refused`` (with a contract code) are well-formed."""

    OK = "ok"
    REFUSED = "refused"
    MALFORMED = "malformed"


@dataclass(frozen=True)
class Answer:
    """One declared operation's answer to its minimal request."""

    operation: str
    verdict: Verdict
    #: The contract code of a refusal, why an answer is malformed; empty for ``ok``.
    detail: str
    seconds: float

    @property
    def well_formed(self) -> bool:
        return self.verdict is not Verdict.MALFORMED

    def line(self, width: int) -> str:
        mark = ":" if self.verdict is Verdict.MALFORMED else ""
        detail = f"{mark} {for_terminal(self.detail)}" if self.detail else ""
        return f"{self.operation:<{width}} {self.verdict}{detail} ({self.seconds * 1000:.0f} ms)"

    def to_json(self) -> JsonObject:
        return {"operation": self.operation, "verdict": str(self.verdict), "detail": self.detail,
                "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class SmokeResult:
    """The handshake's hello and one answer per declared operation, in the order they were sent."""

    implementation: ImplInfo
    answers: tuple[Answer, ...]
    seconds: float

    @property
    def well_formed(self) -> bool:
        return all(answer.well_formed for answer in self.answers)

    def render(self) -> str:
        info = self.implementation
        name = for_terminal(f"{info.name} {info.version} ({info.language})")
        lines = [f"handshake ok: {name}, protocol {info.protocol_version}, "
                 f"{len(self.answers)} operations declared"]
        width = max((len(answer.operation) for answer in self.answers), default=0)
        lines += [answer.line(width) for answer in self.answers]
        malformed = sum(not answer.well_formed for answer in self.answers)
        verdict = "every answer well-formed" if not malformed else f"{malformed} answers malformed"
        lines.append(f"smoke: {verdict}, in {self.seconds:.1f} s")
        return "\n".join(lines) + "\n"

    def to_json(self) -> JsonObject:
        info = self.implementation
        return {"implementation": {"name": info.name, "version": info.version, "language": info.language},
                "protocolVersion": info.protocol_version, "wellFormed": self.well_formed,
                "answers": [answer.to_json() for answer in self.answers], "seconds": round(self.seconds, 3)}


def answer_of(supervisor: PortSupervisor, operation: str, params: JsonObject, codes: frozenset[str]) -> Answer:
    """Send one request and judge its answer (a refusal is well-formed with one of ``codes``, the
    catalogue's); a port that broke is restarted for the next one."""
    began = time.monotonic()
    try:
        supervisor.begin_scenario()
        supervisor.request(operation, params)
    except ContractError as refusal:
        known = refusal.code in codes
        verdict, detail = ((Verdict.REFUSED, refusal.code) if known else
                           (Verdict.MALFORMED, f"refused with {refusal.code!r}, not a code of schemas/codes/v1"))
    except (MessageOffSchema, PortFault) as broken:
        verdict, detail = Verdict.MALFORMED, first_line(broken.message)
    except PortStartFailed as failed:
        verdict, detail = Verdict.MALFORMED, f"not sent: the port did not restart: {first_line(failed.message)}"
    else:
        verdict, detail = Verdict.OK, ""
    return Answer(operation, verdict, detail, time.monotonic() - began)


def smoke(supervisor: PortSupervisor, root: Path) -> SmokeResult:
    """The handshake (:class:`PortStartFailed` when it fails), then each declared operation once."""
    began = time.monotonic()
    info = supervisor.start()
    requests = minimal_requests(SmokeFolder.make(root))
    codes = every_code(schemas_dir() / CODE_CATALOGUE)
    declared = [op for op in requests if op in info.capabilities]
    declared += [op for op in info.capabilities if op not in requests]
    answers = tuple(answer_of(supervisor, op, requests[op], codes) if op in requests else
                    Answer(op, Verdict.MALFORMED, "declared, but not an operation of protocol v1", 0.0)
                    for op in declared)
    return SmokeResult(info, answers, time.monotonic() - began)


def run_smoke(*, stdio_command: Sequence[str] | None, adapter_name: str, as_json: bool,
              timeout: float | None, start_timeout: float | None) -> int:
    """The command: one line per operation (or one JSON object), and its exit code."""
    try:
        supervisor = supervisor_of(stdio_command, adapter_name,  # every message held to the schemas
                                   request_timeout=timeout_seconds(timeout, DEFAULT_REQUEST_TIMEOUT),
                                   start_timeout=timeout_seconds(start_timeout, DEFAULT_START_TIMEOUT),
                                   checks=MessageChecks())
    except AdapterNotFound as exc:
        fail("usage", str(exc), as_json=as_json)
        return EXIT_USAGE
    with tempfile.TemporaryDirectory(prefix="rr-smoke-") as root:
        try:
            result = smoke(supervisor, Path(root))
        except PortStartFailed as exc:
            fail(exc.code, first_line(exc.message), as_json=as_json)
            return EXIT_PORT_START
        finally:
            supervisor.stop()
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(result.render())
    return EXIT_WELL_FORMED if result.well_formed else EXIT_NOT_CONFORMANT
