"""The pipes of one port process, each served by a thread of its own.

The harness never blocks on a pipe: a thread writes the requests to the port's stdin, one reads
its stdout lines into a queue and one keeps the tail of its stderr, so waiting for an answer is a
queue read with a timeout (portable: Windows has no ``select`` on pipes). The process is started
in a group of its own (:mod:`conformance.procgroup`) and killed with it.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Final

from conformance import procgroup
from conformance.faults import PORT_START_FAILED, PortStartFailed

STDERR_KEPT: Final = 200
STDERR_SHOWN: Final = 20
#: A stderr line is kept in pieces of at most this many characters (a flood of one endless line too).
STDERR_PIECE_CHARS: Final = 4096
DRAIN_SECONDS: Final = 1.0
#: The longest stdout line the harness reads (characters); a longer one is a desync, never held whole.
MAX_LINE_CHARS: Final = 64 * 1024 * 1024


class LineTimeout(Exception):
    """No stdout line arrived in time."""


class LineTooLong(Exception):
    """A stdout line longer than :data:`MAX_LINE_CHARS`: the port floods, the rest is not read."""

    def __str__(self) -> str:
        return f"a stdout line longer than {MAX_LINE_CHARS // (1024 * 1024)} MiB"


#: What the stdout reader hands over: a line, the end of file (None), or an overlong line.
_Read = str | None | LineTooLong


class PortPipe:
    """One running port process and its three pipes."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None) -> None:
        try:
            self.process = subprocess.Popen(
                list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", bufsize=1,
                env=dict(env) if env is not None else None, **procgroup.isolated_popen_kwargs(),
            )
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise PortStartFailed(PORT_START_FAILED, f"cannot start {command[0]!r}: {reason}") from None
        procgroup.remember(self.process)
        self._lines: queue.Queue[_Read] = queue.Queue()
        self._outbox: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        self._threads = [
            self._thread(self._pump_stdout), self._thread(self._write_stdin), self._thread(self._keep_stderr),
        ]

    def _thread(self, target: Callable[[], None]) -> threading.Thread:
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        return thread

    def _pump_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while line := stream.readline(MAX_LINE_CHARS + 1):
                if len(line) > MAX_LINE_CHARS:
                    self._lines.put(LineTooLong())  # and read no further: the port is killed for it
                    return
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _write_stdin(self) -> None:
        stream: IO[str] | None = self.process.stdin
        assert stream is not None
        while (text := self._outbox.get()) is not None:
            try:
                stream.write(text)
                stream.flush()
            except (OSError, ValueError):  # a broken pipe: stdout's end of file tells the reader
                return
        with contextlib.suppress(OSError, ValueError):
            stream.close()

    def _keep_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        try:
            while piece := stream.readline(STDERR_PIECE_CHARS):
                self._stderr.append(piece)
                del self._stderr[:-STDERR_KEPT]
        except (OSError, ValueError):
            pass

    def send(self, line: str) -> None:
        """Queue one line for the port's stdin."""
        self._outbox.put(line)

    def next_line(self, timeout: float | None) -> str | None:
        """The next stdout line, ``None`` at end of file; :class:`LineTimeout` when none came in
        time, :class:`LineTooLong` for a line past :data:`MAX_LINE_CHARS`."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise LineTimeout from None
        if isinstance(line, LineTooLong):
            raise line
        return line

    def pending_line(self) -> str | None:
        """A stdout line that arrived unasked, if any (a desync the next request would trip on)."""
        try:
            line = self._lines.get_nowait()
        except queue.Empty:
            return None
        if line is None:
            self._lines.put(None)  # the end of file stays for the reader
        return str(line) if isinstance(line, LineTooLong) else line

    def exit_code(self, wait: float) -> int | None:
        """The exit code, waiting at most ``wait`` seconds for the process to end."""
        deadline = time.monotonic() + wait
        while (code := self.process.poll()) is None and time.monotonic() < deadline:
            time.sleep(0.02)
        return code

    def close_stdin(self) -> None:
        self._outbox.put(None)

    def wait(self, timeout: float) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=timeout)

    def kill(self) -> None:
        """Kill the whole group, then let stderr drain so its tail is complete."""
        procgroup.kill_group(self.process)
        self._threads[2].join(timeout=DRAIN_SECONDS)

    def stderr_tail(self, lines: int = STDERR_SHOWN) -> str:
        return "".join(self._stderr[-lines:]).strip()
