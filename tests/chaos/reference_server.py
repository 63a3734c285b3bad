"""The reference, served in the test process to the chaos ports over a Unix socket.

Each connection (one :mod:`chaos.chaos_port` process) gets a reference adapter of its own; for
every request line it answers ``{"answer": LINE, "kind": KIND, "last": BOOL}``: the reference's
answer and what the port is to do with it, which the :class:`Schedule` decides from the run's
answer count. Every answer is logged (:class:`Answered`) so a test knows which requests the chaos
touched.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.protocol import PROTOCOL_VERSION
from reference.adapter.operations import IMPLEMENTATION, OPERATIONS, STATEFUL_OPERATIONS, ReferenceAdapter
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify

CHAOS_PORT = Path(__file__).with_name("chaos_port.py")
HELLO: dict[str, Any] = {"implementation": IMPLEMENTATION, "protocolVersion": PROTOCOL_VERSION,
                         "operations": [*OPERATIONS, *STATEFUL_OPERATIONS]}


@dataclass(frozen=True)
class Answered:
    """One answer the server gave: which port process, the request, and what the port did with it."""

    connection: int
    cmd: str
    op: str | None
    params: Any
    kind: str


#: Decides the kind of the run's ``n``-th request answer (0-based; handshakes and stops excluded).
Chooser = Callable[[int, str], str]


@dataclass
class Schedule:
    """The corruptions of one run: ``choose(n, op)`` names the kind of the ``n``-th request's answer."""

    choose: Chooser
    log: list[Answered] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_kind(self, connection: int, message: Mapping[str, Any]) -> str:
        with self.lock:
            cmd = str(message.get("cmd"))
            op = message.get("op") if cmd == "request" else None
            n = sum(1 for entry in self.log if entry.cmd == "request")
            kind = self.choose(n, str(op)) if cmd == "request" else "clean"
            self.log.append(Answered(connection, cmd, op if isinstance(op, str) else None,
                                     message.get("params"), kind))
            return kind


def first_of(op: str, kind: str) -> Chooser:
    """A schedule that breaks the answer to the run's first request for ``op`` as ``kind``."""
    fired: list[int] = []

    def choose(n: int, requested: str) -> str:
        if requested == op and not fired:
            fired.append(n)
            return kind
        return "clean"

    return choose


def _answer(adapter: ReferenceAdapter, message: Mapping[str, Any]) -> dict[str, Any]:
    seq, cmd = message.get("seq"), message.get("cmd")
    if cmd == "start":
        return {"seq": seq, "ok": HELLO}
    if cmd == "stop":
        return {"seq": seq, "ok": {}}
    try:
        return {"seq": seq, "ok": adapter.dispatch(str(message.get("op")), message.get("params") or {})}
    except ContractViolation as exc:
        return {"seq": seq, "error": {"code": exc.code, "message": exc.message}}
    except Exception as exc:  # the reference broke: the port says so, as host --stdio would
        return {"seq": seq, "errored": True, "context": {"message": f"{type(exc).__name__}: {exc}"}}


class ReferenceServer:
    """A Unix socket server; :attr:`schedule` is the current run's (set it before each run)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "reference.sock"
        self.schedule = Schedule(lambda n, op: "clean")
        self._connections = 0
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.bind(str(self.path))
        self._socket.listen(16)
        threading.Thread(target=self._accept, daemon=True).start()

    def port_command(self, state: Path) -> list[str]:
        """The command line of a chaos port served by this server, recording its pids in ``state``."""
        return [sys.executable, "-I", "-S", str(CHAOS_PORT), str(self.path), str(state)]

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self._connections += 1
            threading.Thread(target=self._serve, args=(connection, self._connections), daemon=True).start()

    def _serve(self, connection: socket.socket, number: int) -> None:
        adapter = ReferenceAdapter()
        schedule = self.schedule
        with connection, connection.makefile("rb") as requests, connection.makefile("wb") as replies:
            for line in requests:
                message = json.loads(line)
                kind = schedule.next_kind(number, message)
                reply = {"answer": js_stringify(_answer(adapter, message)), "kind": kind,
                         "last": message.get("cmd") == "stop"}
                try:
                    replies.write(json.dumps(reply).encode() + b"\n")
                    replies.flush()
                except OSError:
                    return

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._socket.close()


@contextlib.contextmanager
def reference_server() -> Iterator[ReferenceServer]:
    """A server in a short temporary folder (a Unix socket's path is at most ~100 bytes)."""
    with tempfile.TemporaryDirectory(prefix="chaos-") as folder:
        server = ReferenceServer(Path(folder))
        try:
            yield server
        finally:
            server.close()

