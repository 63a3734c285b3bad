"""A list of byte strings made in two halves at once: the second half in a forked copy.

``session inspect --json`` of a large session spends most of its time writing the context
messages, one independent text per entry; a forked copy of the process already holds the
session's compact table, so it needs nothing but the numbers of its half, and sends back only
the texts (through a pipe: a count, each length, then the bytes).  A copy that cannot be made or
that fails costs the time of doing its half here after all, never a different answer.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def in_two_halves(items: Sequence[T], make: Callable[[Sequence[T]], list[bytes]]) -> list[bytes]:
    """``make(items)``, as ``make`` of the first half here plus ``make`` of the second half in
    a forked copy (``make`` must not depend on which process runs it)."""
    if not hasattr(os, "fork"):
        return make(items)
    half = len(items) // 2
    child = _fork(items[half:], make)
    texts = make(items[:half])
    rest = _collect(*child) if child is not None else None
    return texts + (rest if rest is not None else make(items[half:]))


def _fork(items: Sequence[T], make: Callable[[Sequence[T]], list[bytes]]) -> tuple[int, int] | None:
    """(the copy's pid, the read end of its pipe), or None when no copy can be made.  The copy
    never returns: it ends with ``_exit`` (no handler of this process runs twice)."""
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
        return pid, read_end
    status = 1
    try:
        os.close(read_end)
        with os.fdopen(write_end, "wb") as out:
            texts = make(items)
            out.write(array("q", [len(texts), *map(len, texts)]).tobytes())
            out.writelines(texts)
        status = 0
    finally:
        os._exit(status)


def _collect(pid: int, read_end: int) -> list[bytes] | None:
    """What the copy wrote, or None when it failed or wrote something else."""
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    lengths = array("q")  # the count, then each text's length, then the texts
    size = lengths.itemsize
    if status != 0 or len(data) < size:
        return None
    lengths.frombytes(data[:size])
    count = lengths.pop()
    head = size * (count + 1)
    if count < 0 or len(data) < head:
        return None
    lengths.frombytes(data[size:head])
    if head + sum(lengths) != len(data):
        return None
    texts, offset = [], head
    for length in lengths:
        texts.append(data[offset:offset + length])
        offset += length
    return texts
