"""Work in two halves at once: the second half in a forked copy of this process.

``session inspect`` of a large session reads its lines and writes its context messages, both
in independent pieces; a forked copy already holds everything read so far, so it needs nothing
but where its half starts, and sends back its answer pickled through a pipe.  A copy that cannot be made
or that fails costs the time of doing its half here after all, never a different answer: the
caller does the work itself when :func:`collect` gives None.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Forked:
    """A forked copy at work, and the read end of the pipe it writes its answer to."""

    pid: int
    read_end: int


def fork_bytes(make: Callable[[], bytes]) -> Forked | None:
    """Run ``make`` in a forked copy, which writes the bytes it gives to a pipe, or None when
    no copy can be made.  The copy never returns: it ends with ``_exit`` (no handler of this
    process runs twice)."""
    if not hasattr(os, "fork"):
        return None
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid:
        os.close(write_end)
        return Forked(pid, read_end)
    status = 1
    try:
        os.close(read_end)
        with os.fdopen(write_end, "wb") as out:
            out.write(make())
        status = 0
    finally:
        os._exit(status)


def collect(forked: Forked) -> bytes | None:
    """What the copy's ``make`` gave, joined, or None when it failed."""
    with os.fdopen(forked.read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(forked.pid, 0)
    return data if status == 0 else None


def abandon(forked: Forked) -> None:
    """Let the copy go unread (its next write fails and it ends), and reap it."""
    os.close(forked.read_end)
    os.waitpid(forked.pid, 0)


class TwoHalves(Generic[T]):
    """``make(items)`` begun in two parts: ``make`` of the items after ``split`` (the middle
    unless given; none when that is the end) in a forked copy at once, so this process can do
    other work before :meth:`result` makes the first part here (``make`` must not depend on
    which process runs it)."""

    def __init__(self, items: Sequence[T], make: Callable[[Sequence[T]], list[bytes]],
                 split: int | None = None) -> None:
        self.items, self.make = items, make
        self.split = len(items) // 2 if split is None else split
        rest = items[self.split:]
        self.forked = fork_bytes(lambda: pickle.dumps(make(rest), pickle.HIGHEST_PROTOCOL)) if rest else None

    def result(self) -> list[bytes]:
        """``make(items)``: the first part made here, the rest read back from the copy (or made
        here when the copy could not be made or failed)."""
        texts = self.make(self.items[:self.split])
        if self.split >= len(self.items):
            return texts
        rest = collect(self.forked) if self.forked is not None else None
        return texts + (pickle.loads(rest) if rest is not None  # our own copy's bytes, through our own pipe
                        else self.make(self.items[self.split:]))

    def abandon(self) -> None:
        """:func:`abandon` the copy, if one began."""
        if self.forked is not None:
            abandon(self.forked)
            self.forked = None
