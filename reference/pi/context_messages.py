"""The context messages of a ``session inspect`` report, as values or as their JSON texts.

A ``message`` entry's context message is its message itself (an object, unless of a content role
without content), and its JSON text the message's bytes when they are what ``JSON.stringify``
writes: the context's ``message`` lines are proven canonical in runs of ``_RUN_LINES``, as one JSON
array (:func:`reference.pi.model.canonical_json.canonical_text`), and each message's text is then
msgspec's of its value (the same bytes).  A run that is not proven is halved; a line alone that is
not proven, a line with a surrogate escape, and every other kind of entry are made by the exact path
(:func:`reference.pi.exact.context.entry_to_messages`) and written by ``js_stringify``.  A long
context is written in two parts at once (:class:`reference.pi.split_work.TwoHalves`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import IO, Any, Final

import msgspec

from reference.pi.exact.context import entry_to_messages
from reference.pi.exact.reader import open_session_file
from reference.pi.model.canonical_json import canonical_text
from reference.pi.model.session import SourceScan
from reference.pi.split_work import TwoHalves
from reference.primitives.jsonbytes import js_stringify_bytes

MESSAGE_KINDS: Final = frozenset({"message", "custom_message", "compaction"})  # one message each
_CONTENT_ROLES: Final = frozenset({"user", "assistant", "toolResult"})
_WINDOW_BYTES: Final = 4 * 1024 * 1024
FORK_AT_MESSAGES = 20_000  # a shorter context is written sooner than a process is forked
_OWN_SHARE: Final = 0.45  # of a long context's texts written here, the rest by a forked copy
_RUN_LINES: Final = 32  # message entries proven canonical together
_SURROGATE_ESCAPE: Final = re.compile(rb"\\u[dD]")


_ENCODE: Final = msgspec.json.Encoder().encode


class _Lines:
    """Entry lines read again through a window of the file (the context is mostly in file order)."""

    def __init__(self, model: SourceScan, stream: IO[bytes]) -> None:
        self.model, self.stream = model, stream
        self.window = b""
        self.offset = 0

    def run(self, numbers: list[int]) -> list[memoryview]:
        """The lines of ``numbers`` without their LF, the window moved to a line outside it."""
        starts, ends = self.model.starts, self.model.ends
        texts: list[memoryview] = []
        view, low, high = memoryview(self.window), self.offset, self.offset + len(self.window)
        for number in numbers:
            start, end = starts[number], ends[number]
            if start < low or end > high:
                self.stream.seek(start)
                self.window, self.offset = self.stream.read(max(_WINDOW_BYTES, end - start)), start
                view, low, high = memoryview(self.window), start, start + len(self.window)
            if end > start and self.window[end - low - 1] == 0x0A:
                end -= 1
            texts.append(view[start - low:end - low])
        return texts


def context_texts(model: SourceScan, context: list[int]) -> TwoHalves[int]:
    """The JSON text of every context message, in order, begun: a long context in two parts at
    once, the forked copy's the larger (this process has the rest of the report to write)."""

    def make(numbers: Sequence[int]) -> list[bytes]:
        with open_session_file(model.path) as own_stream:  # a forked copy reads with its own
            return _messages(model, own_stream, numbers, _Messages(None, js_stringify_bytes)).texts

    split = len(context) if len(context) < FORK_AT_MESSAGES else int(len(context) * _OWN_SHARE)
    return TwoHalves(context, make, split=split)


def context_values(model: SourceScan, stream: IO[bytes], context: Sequence[int]) -> list[Any]:
    """The context messages themselves, as the exact path's values."""
    values: list[Any] = []
    _messages(model, stream, context, _Messages(values, lambda value: b""))
    return values


class _Messages:
    """The context messages collected so far: their JSON texts, and their values when kept
    (a message's value is dropped as soon as its text is had, unless asked for)."""

    def __init__(self, values: list[Any] | None, write: Any) -> None:
        self.texts: list[bytes] = []
        self.values = values
        self.write = write  # the JSON text of a message the exact path made

    def add(self, value: Any, text: bytes) -> None:
        self.texts.append(text)
        if self.values is not None:
            self.values.append(value)


def _messages(model: SourceScan, stream: IO[bytes], context: Sequence[int], out: _Messages) -> _Messages:
    """Every context message into ``out``, in order: the ``message`` entries are read in
    runs whose lines are proven canonical together, and their messages copied; any other entry's
    messages are made by the exact path and written by ``out.write``."""
    types = model.types
    lines = _Lines(model, stream)
    run: list[int] = []
    for number in context:
        kind = types[number]
        if kind == "message":
            run.append(number)
            if len(run) < _RUN_LINES:
                continue
        elif kind not in MESSAGE_KINDS and kind != "branch_summary":
            continue
        if run:
            _run_messages(model, stream, lines.run(run), run, out)
            run = []
        if kind != "message":
            _exact_messages(model, stream, number, out)
    if run:
        _run_messages(model, stream, lines.run(run), run, out)
    return out


def _run_messages(model: SourceScan, stream: IO[bytes], texts: list[memoryview], run: list[int],
                  out: _Messages) -> None:
    """The messages of a run of ``message`` entries (their lines' ``texts``), in order: a line with
    a surrogate escape (which ``msgspec`` may refuse) is made by the exact path, the lines between
    such are proven together."""
    joined = b"[" + b",".join(texts) + b"]"
    if _SURROGATE_ESCAPE.search(joined) is None:
        _proven_run(model, stream, texts, run, out, joined)
        return
    start = 0
    for index, text in enumerate(texts):
        if _SURROGATE_ESCAPE.search(text) is not None:
            if index > start:
                _proven_run(model, stream, texts[start:index], run[start:index], out)
            _exact_messages(model, stream, run[index], out)
            start = index + 1
    if start < len(run):
        _proven_run(model, stream, texts[start:], run[start:], out)


def _proven_run(model: SourceScan, stream: IO[bytes], texts: list[memoryview], run: list[int],
                out: _Messages, joined: bytes | None = None) -> None:
    """When the lines, as one JSON array, are proven canonical, each message is copied as msgspec writes
    it; a run that is not is halved, a line alone made by the exact path."""
    if joined is None:
        joined = b"[" + b",".join(texts) + b"]"
    proven = canonical_text(joined)
    if proven is not None and len(proven[0]) == len(run):
        texts_of, values = out.texts.append, out.values
        for number, entry in zip(run, proven[0], strict=True):
            value = entry.get("message") if entry.__class__ is dict else None
            if _copied_as_is(value):  # its bytes in the proven line are msgspec's text of it
                texts_of(_ENCODE(value))
                if values is not None:
                    values.append(value)
            else:
                _exact_messages(model, stream, number, out)
    elif len(run) > 1:
        half = len(run) // 2
        _proven_run(model, stream, texts[:half], run[:half], out)
        _proven_run(model, stream, texts[half:], run[half:], out)
    else:
        _exact_messages(model, stream, run[0], out)


def _exact_messages(model: SourceScan, stream: IO[bytes], number: int, out: _Messages) -> None:
    for value in entry_to_messages(model.decode(stream, number)):
        out.add(value, out.write(value))


def _copied_as_is(value: Any) -> bool:
    """Whether Pi's context message of a ``message`` entry is its message itself: an object,
    and not one of a content role without content (Pi gives a copy with empty content)."""
    if value.__class__ is not dict:
        return False
    role = value.get("role")
    return not (role.__class__ is str and role in _CONTENT_ROLES and value.get("content") is None)
