"""The whole-entry privacy decision of a recall hit or a read (contract §2.7 step 3, §3.3 step 7).

An entry is classified and sanitized before any excerpt is cut: the raw check over its
serialization, then the text check over its searchable text, from the floor of the parsed value.
What one entry gives is remembered, by the history service that passes an :class:`EntryFindings`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from reference.primitives.jsonbytes import js_stringify
from reference.privacy.detection import extended_redact
from reference.privacy.policy import MARKER_LITERAL, ProviderPolicy, history_privacy_classification, max_level
from reference.privacy.redaction import may_match_json
from reference.privacy.sanitizer import Found, Sanitized, decide, default_classification, find

#: What the two checks of one entry find: the floor, the raw check's findings (None: the
#: serialization holds no marker and no secret) and the text check's findings.
Findings = tuple[str | None, Found | None, Found]


class EntryFindings:
    """Entries' findings remembered for the few entries a recall and the reads after it touch (a
    recall classifies its hits, a read of one of them follows; a long record is read window by
    window), keyed by the SHA-256 of the record's bytes: a value its owner, one history service,
    hands to :func:`classify_entry`.  At most ``entries`` records (a few project recalls' hits: 12
    per source, 100 sources by default), least recently used out first, and at most ``characters``
    characters of texts (a few long records weigh as much as many short ones).  It remembers the
    public ids of the same entries too (:func:`reference.privacy.public_ids.public_id`), at most
    ``entries`` of them."""

    def __init__(self, entries: int = 16384, characters: int = 32 * 1024 * 1024) -> None:
        self.entries, self.characters = entries, characters
        self.held: OrderedDict[str, tuple[str, Findings]] = OrderedDict()
        self.weight = 0  # the characters held: every text and redacted text
        self.ids: OrderedDict[tuple[str, ProviderPolicy], str] = OrderedDict()

    def public_id(self, value: str, policy: ProviderPolicy, compute: Callable[[str, ProviderPolicy], str]) -> str:
        """``compute(value, policy)``, remembered (the answer depends on the id and the policy only)."""
        key = (value, policy)
        known = self.ids.get(key)
        if known is None:
            known = self.ids[key] = compute(value, policy)
            if len(self.ids) > self.entries:
                self.ids.popitem(last=False)
        else:
            self.ids.move_to_end(key)
        return known

    def get(self, content_hash: str, text: str) -> Findings | None:
        known = self.held.get(content_hash)
        if known is None or known[0] != text:
            return None
        self.held.move_to_end(content_hash)
        return known[1]

    def put(self, content_hash: str, text: str, findings: Findings) -> None:
        old = self.held.pop(content_hash, None)
        if old is not None:
            self.weight -= weight(*old)
        self.held[content_hash] = (text, findings)
        self.weight += weight(text, findings)
        while len(self.held) > self.entries or (self.weight > self.characters and len(self.held) > 1):
            _key, dropped = self.held.popitem(last=False)
            self.weight -= weight(*dropped)


def weight(text: str, findings: Findings) -> int:
    """The characters one remembered entry holds (its text and the redacted texts)."""
    _floor, raw, found = findings
    return len(text) + (len(raw.redacted) if raw is not None else 0) + len(found.redacted)


def _entry_findings(entry: Any, searchable_text: str) -> Findings:
    """The floor and both checks' findings of one entry, computed afresh."""
    floor = history_privacy_classification(entry)
    strings = _joined_strings(entry)
    raw: Found | None = None
    if strings is None or MARKER_LITERAL in strings or may_match_json(strings):
        raw = find(js_stringify(entry))
    if strings is not None and (raw is None or not raw.redactions):
        # D13: a secret the extended layers find in any string raises the entry, even where the
        # serialization's escapes hide it from them; the floor's literals were checked above.
        hidden = extended_redact(strings)[1]
        if hidden:
            raw = Found(None, hidden, "", False) if raw is None else replace(raw, redactions=hidden)
    return floor, raw, find(searchable_text)


def classify_entry(
    entry: Any,
    searchable_text: str,
    *,
    policy: ProviderPolicy,
    privacy_config: Mapping[str, Any],
    ref_classification: str | None = None,
    content_hash: str | None = None,
    findings: EntryFindings | None = None,
) -> Sanitized:
    """Classify and sanitize a whole history entry before any excerpt is cut: the sanitized
    searchable text (empty when omitted), the higher of the raw and text classifications, and
    whether the entry is omitted.

    ``entry`` is the parsed JSONL entry.  A recall passes no ``ref_classification`` (§2.7 step 3:
    the raw check starts from max(default, floor) when a floor exists, else from the default);
    a read passes the ref's classification (§3.3 step 7: max(default, max(ref, floor) or ref)).
    The raw check sanitizes ``JSON.stringify(entry)``, so a secret or marker anywhere in the
    entry counts; the text check starts from the raw check's classification.  ``content_hash``:
    the SHA-256 of the bytes ``entry`` was parsed from; with it, ``findings`` remembers them.
    """
    default = default_classification(privacy_config)
    remembered = findings if content_hash is not None else None
    found = remembered.get(str(content_hash), searchable_text) if remembered is not None else None
    if found is None:
        found = _entry_findings(entry, searchable_text)
        if remembered is not None:
            remembered.put(str(content_hash), searchable_text, found)
    floor, raw_found, text_found = found
    if ref_classification is None:
        stored = None if floor is None else max_level(default, floor)
    else:
        stored = max_level(default, ref_classification if floor is None else max_level(ref_classification, floor))
    if raw_found is None:  # nothing found: the sanitizer keeps the level
        level = stored if stored is not None else default
        raw = Sanitized("", level, not policy.allows(level))
    else:
        raw = decide(raw_found, stored, policy, privacy_config)
    text = decide(text_found, raw.classification, policy, privacy_config)
    omitted = raw.omitted or text.omitted
    return Sanitized("" if omitted else text.text, max_level(raw.classification, text.classification), omitted)


def _joined_strings(value: Any) -> str | None:
    """Every string of a parsed JSON value (object keys included) joined by NUL, or None for a
    value that is not plain JSON data (then the caller serializes it)."""
    strings: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            strings.append(node)
        elif isinstance(node, dict):
            for key, item in node.items():
                if not isinstance(key, str):
                    return None
                strings.append(key)
                stack.append(item)
        elif isinstance(node, list):
            stack.extend(node)
        elif not (node is None or isinstance(node, (bool, int, float))):
            return None
    return "\0".join(strings)
