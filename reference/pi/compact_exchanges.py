"""The tool-exchange facts of a scanned file (:class:`reference.pi.toolexchange.Exchanges`) with the
keys packed into one byte string instead of one string object each.

A tool call's key is a string of about 30 characters, and a large session has one for every two
entries.  :class:`CompactExchanges` keeps each key as its UTF-8 bytes (``surrogatepass``: every
string, lone surrogates included, decodes back unchanged, and two keys are equal exactly when
their bytes are) in one ``bytearray``, and computes :meth:`CompactExchanges.issues` by hash
partitions, so the key sets of one partition are all it ever holds as objects.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from itertools import accumulate, compress, islice, repeat
from operator import add, methodcaller
from typing import Any, Final

import msgspec

from reference.pi.blockscan import Message
from reference.pi.context import UnbuildableContext
from reference.pi.toolexchange import _defined, _issues, _key

_ENCODE: Final = methodcaller("encode", "utf-8", "surrogatepass")
_PARTITION: Final = 1 << 15  # marked keys per partition, about: what one pass holds as objects


def exchange_key(value: Any) -> str:
    """The key ``exchange_issues`` gives a tool-call id read by the typed decode."""
    return _key(_defined(value))


class PackedKeys:
    """Keys, each with the entry number that holds it: key ``i`` is ``data[bounds[i]:bounds[i + 1]]``."""

    def __init__(self) -> None:
        self.numbers = array("i")
        self.data = bytearray()
        self.bounds = array("q", [0])

    def __len__(self) -> int:
        return len(self.numbers)

    def add(self, numbers: list[int], keys: list[str]) -> None:
        encoded = list(map(_ENCODE, keys))
        self.numbers.extend(numbers)
        self.bounds.extend(islice(accumulate(map(len, encoded), initial=len(self.data)), 1, None))
        self.data += b"".join(encoded)

    def marked(self, marks: bytearray) -> array[int]:
        """The positions of the keys whose entry is marked."""
        return array("i", compress(range(len(self.numbers)), map(marks.__getitem__, self.numbers)))

    def keys(self, positions: Iterable[int]) -> Iterator[bytes]:
        """The keys at ``positions``, as bytes."""
        bound = self.bounds.__getitem__
        positions = list(positions) if not isinstance(positions, array) else positions
        spans = map(slice, map(bound, positions), map(bound, map(add, positions, repeat(1))))
        return map(bytes, map(self.data.__getitem__, spans))

    def split(self, positions: array[int], parts: int) -> list[array[int]]:
        """``positions`` in ``parts`` groups by the hash of their key: equal keys, whether calls
        or results, fall in the same group."""
        if parts == 1:
            return [positions]
        groups = [array("i") for _ in range(parts)]
        for position, key_hash in zip(positions, map(hash, self.keys(positions)), strict=True):
            groups[key_hash % parts].append(position)
        return groups


class CompactExchanges:
    """:class:`reference.pi.toolexchange.Exchanges` in a few bytes per key: the same
    :meth:`add` and :meth:`issues`, and the message entries without a message."""

    def __init__(self) -> None:
        self.calls = PackedKeys()
        self.results = PackedKeys()
        self.messageless = array("i")

    def add(self, messages: Iterable[tuple[int, Message | msgspec.UnsetType | None]]) -> None:
        """What ``exchange_issues`` collects from the messages of ``message`` entries, given as
        (entry number, typed message) pairs."""
        call_numbers: list[int] = []
        call_keys: list[str] = []
        result_numbers: list[int] = []
        result_keys: list[str] = []
        for number, message in messages:
            if not isinstance(message, Message):  # null or absent
                self.messageless.append(number)
                continue
            role = message.role
            if role == "assistant":
                content = message.content
                if content.__class__ is list:
                    for block in content:  # type: ignore[union-attr]
                        if block.type == "toolCall":
                            call_numbers.append(number)
                            call_keys.append(exchange_key(block.id))
            elif role == "toolResult":
                result_numbers.append(number)
                result_keys.append(exchange_key(message.toolCallId))
        if call_keys:
            self.calls.add(call_numbers, call_keys)
        if result_keys:
            self.results.add(result_numbers, result_keys)

    def issues(self, marks: bytearray) -> set[str]:
        """``exchange_issues`` of the entries marked in ``marks`` (by entry number)."""
        if any(map(marks.__getitem__, self.messageless)):
            raise UnbuildableContext("a message entry has no message")
        calls, results = self.calls.marked(marks), self.results.marked(marks)
        parts = max(1, (len(calls) + len(results)) // _PARTITION)
        issues: set[str] = set()
        for call_group, result_group in zip(self.calls.split(calls, parts), self.results.split(results, parts),
                                            strict=True):
            call_keys = set(self.calls.keys(call_group))
            result_keys = set(self.results.keys(result_group))
            if call_keys == result_keys:
                continue
            issues |= _issues({key.decode("utf-8", "surrogatepass") for key in call_keys - result_keys},
                              {key.decode("utf-8", "surrogatepass") for key in result_keys - call_keys})
        return issues
