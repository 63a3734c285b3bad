"""The tool-exchange facts of the session model (what :func:`reference.pi.exact.toolexchange.exchange_issues`
looks at), with the keys packed into one byte string instead of one string object each.

A tool call's key is a string of about 30 characters, and a large session has one for every two
entries.  :class:`CompactExchanges` keeps each key as its UTF-8 bytes (``surrogatepass``: every
string, lone surrogates included, decodes back unchanged, and two keys are equal exactly when
their bytes are) in one ``bytearray`` with its ``hash()``; a result that answers a recent call
keeps only that call's position.  :meth:`CompactExchanges.issues` matches calls and results by
position and hash, and materializes only the keys that may be issues.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import accumulate, compress, islice, repeat
from operator import and_, gt, methodcaller, not_
from typing import Any, Final

import msgspec

from reference.pi.exact.context import UnbuildableContext
from reference.pi.exact.reader import defined
from reference.pi.exact.toolexchange import exchange_key
from reference.pi.model.blocks import Message

_ENCODE: Final = methodcaller("encode", "utf-8", "surrogatepass")
_RECENT_CALLS: Final = 256  # the calls a result is looked up among before it keeps its own key


def typed_key(value: Any) -> str:
    """The key ``exchange_issues`` gives a tool-call id read by the typed decode."""
    return exchange_key(defined(value))


class PackedKeys:
    """Keys, each with the entry number that holds it: key ``i`` is ``data[bounds[i]:bounds[i + 1]]``."""

    def __init__(self) -> None:
        self.numbers = array("i")
        self.hashes = array("q")  # hash() of each key as a string, within this process
        self.data = bytearray()
        self.bounds = array("I", [0])  # widened to "q" past 4 GiB of keys

    def __len__(self) -> int:
        return len(self.numbers)

    def add(self, numbers: list[int], keys: list[str]) -> None:
        encoded = list(map(_ENCODE, keys))
        self.numbers.extend(numbers)
        self.hashes.extend(map(hash, keys))
        if self.bounds.typecode == "I" and len(self.data) + sum(map(len, encoded)) > 0xFFFF_FFFF:
            self.bounds = array("q", self.bounds)
        self.bounds.extend(islice(accumulate(map(len, encoded), initial=len(self.data)), 1, None))
        self.data += b"".join(encoded)

    def append_all(self, other: PackedKeys, offset: int) -> None:
        """The keys of ``other`` after these, its entry numbers moved up by ``offset``."""
        base = len(self.data)
        self.numbers.extend(number + offset for number in other.numbers)
        self.hashes.extend(other.hashes)
        if self.bounds.typecode == "I" and base + len(other.data) > 0xFFFF_FFFF:
            self.bounds = array("q", self.bounds)
        self.bounds.extend(bound + base for bound in other.bounds[1:])
        self.data += other.data

    def key(self, position: int) -> bytes:
        return bytes(self.data[self.bounds[position] : self.bounds[position + 1]])


class CompactExchanges:
    """The exchange facts of the model's message entries in a few bytes per key: :meth:`issues`
    answers ``exchange_issues`` of the marked entries, and the message entries without a message.

    A result whose key is the key of one of the last calls (what Pi writes: the result follows
    its call) keeps only that call's position in ``result_refs``; any other result keeps its
    own key, and ``result_refs`` holds ``-1 - position`` in ``results``."""

    def __init__(self) -> None:
        self.calls = PackedKeys()
        self.results = PackedKeys()  # the keys of results that name no recent call
        self.result_numbers = array("i")
        self.result_refs = array("i")
        self.messageless = array("i")
        self._recent: dict[str, int] = {}  # the keys of the last calls -> their positions

    def add(self, messages: Iterable[tuple[int, Message | msgspec.UnsetType | None]]) -> None:
        """What ``exchange_issues`` collects from these (entry number, typed message) pairs of
        ``message`` entries: assistant tool calls, tool results and the entries without a message."""
        recent = self._recent
        call_numbers: list[int] = []
        call_keys: list[str] = []
        own_numbers: list[int] = []
        own_keys: list[str] = []
        first_call, first_own = len(self.calls), len(self.results)
        for number, message in messages:
            if message.__class__ is not Message:  # null or absent: Pi cannot build a context over it
                self.messageless.append(number)
                continue
            role = message.role
            if role == "assistant":
                content = message.content
                if content.__class__ is list:
                    for block in content:
                        if block.type == "toolCall":
                            key = block.id  # a string id is its own key (exchange_key)
                            if key.__class__ is not str:
                                key = typed_key(key)
                            recent[key] = first_call + len(call_keys)
                            call_numbers.append(number)
                            call_keys.append(key)
                            if len(recent) > _RECENT_CALLS:
                                del recent[next(iter(recent))]
            elif role == "toolResult":
                key = message.toolCallId
                if key.__class__ is not str:
                    key = typed_key(key)
                self.result_numbers.append(number)
                call = recent.get(key)
                if call is None:
                    self.result_refs.append(-1 - first_own - len(own_keys))
                    own_numbers.append(number)
                    own_keys.append(key)
                else:
                    self.result_refs.append(call)
        if call_keys:
            self.calls.add(call_numbers, call_keys)
        if own_keys:
            self.results.add(own_numbers, own_keys)

    def append_all(self, other: CompactExchanges, offset: int) -> None:
        """The facts of ``other`` (of the entries that follow, numbered from 0) after these."""
        calls, results = len(self.calls), len(self.results)
        self.calls.append_all(other.calls, offset)
        self.results.append_all(other.results, offset)
        self.result_numbers.extend(number + offset for number in other.result_numbers)
        self.result_refs.extend(ref + calls if ref >= 0 else ref - results for ref in other.result_refs)
        self.messageless.extend(number + offset for number in other.messageless)

    def issues(self, marks: bytearray) -> set[str]:
        """``exchange_issues`` of the entries marked in ``marks`` (by entry number)."""
        return set(self.each_issue(marks))

    def each_issue(self, marks: bytearray) -> Iterator[str]:
        """The elements of :meth:`issues`, one at a time (each once).  Raises
        :class:`UnbuildableContext` at once, as :meth:`issues` does.

        By position first: a marked call is matched when a marked result names it, and a marked
        result that names a call is matched when that call is marked.  The rest are candidates,
        whose keys alone are materialized: one is an issue unless a key of the other side with
        the same hash (another call with the same key, say) equals it."""
        if any(map(marks.__getitem__, self.messageless)):
            raise UnbuildableContext("a message entry has no message")
        calls, results = self.calls, self.results
        count = len(calls)
        called = bytearray(map(marks.__getitem__, calls.numbers))  # by call position: marked
        marked_results = bytearray(map(marks.__getitem__, self.result_numbers))
        refs = array("i", compress(self.result_refs, marked_results))  # the calls marked results name
        own = array("i", (-1 - ref for ref in refs if ref < 0)) if len(results) else array("i")
        if own:
            refs = array("i", (ref for ref in refs if ref >= 0))
        answered = bytearray(count)  # by call position: a marked result names it
        deque(map(answered.__setitem__, refs, repeat(1)), maxlen=0)
        own_keys = set(map(results.key, own))
        missing = set(map(calls.key, compress(range(count), map(gt, called, answered))))
        orphans = set(map(calls.key, compress(refs, map(not_, map(called.__getitem__, refs))))) | own_keys
        if missing:
            missing -= own_keys | self._same_keys(missing, answered)
        if orphans:
            orphans -= self._same_keys(orphans, called)
        return _each_issue(missing, orphans)

    def _same_keys(self, keys: set[bytes], among: bytearray) -> set[bytes]:
        """The keys of ``keys`` that a call flagged in ``among`` has too (found by hash first)."""
        wanted = {hash(key.decode("utf-8", "surrogatepass")) for key in keys}
        calls = self.calls
        flagged = compress(range(len(calls)), map(and_, among, map(wanted.__contains__, calls.hashes)))
        return keys.intersection(map(calls.key, flagged))


def _each_issue(missing: set[bytes], orphans: set[bytes]) -> Iterator[str]:
    """The issue strings of ``exchange_issues`` (``toolexchange._issues``) of the unmatched keys."""
    for key in missing:
        yield f"missing-result:{key.decode('utf-8', 'surrogatepass')}"
    for key in orphans:
        yield f"orphan-result:{key.decode('utf-8', 'surrogatepass')}"
