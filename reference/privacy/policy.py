"""Privacy of history content: classifications, markers, provider policy and the sanitizer
the history tools use (contract §2.10, §2.7 steps 3 and 6, §3.3 step 7; decisions D6).

D6 makes the TypeScript runtime normative, not its unit tests' simplified sanitizer: the history
sanitizer runs whether or not ``privacy.enabled`` is set, always redacts secrets (the
``privacy.redactSecrets`` switch governs only the automatic-context engine), raises any text with
a secret to at least ``sensitive``, and omits whole what the provider may not receive.

Marker patterns follow JavaScript's ``iu`` regex semantics (see ``reference.privacy.redaction``).
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from reference.config.defaults import default_config
from reference.primitives.jsonbytes import JsonParseError, js_parse, js_stringify, property_order
from reference.primitives.jsvalues import JS_WHITESPACE, trim
from reference.privacy.redaction import JS_SPACE, js_ci, may_match_json, redact_secrets

LEVELS: Final = ("normal", "internal", "sensitive", "local-only")
_RANK: Final = {level: rank for rank, level in enumerate(LEVELS)}
HISTORY_RESULT_SCHEMA: Final = "ds4-history-result-v1"
#: The floor walk fails closed (``local-only``) past these (contract §8.4).
MAX_WALK_NODES: Final = 10_000
MAX_WALK_DEPTH: Final = 64
UNKNOWN_PROVIDER: Final = "unknown"
_PUBLIC_ID: Final = re.compile(r"[A-Za-z0-9_.:-]{1,128}")

_DS4: Final = js_ci("ds4")
_LEVEL_WORDS: Final = "|".join(js_ci(level) for level in LEVELS)
#: Any opening or closing marker not preceded by a backslash; group 1 is ``/`` for a closing one.
_ANY_MARKER: Final = re.compile(rf"(?<!\\)\[(/?){_DS4}:({_LEVEL_WORDS})\]")
#: An opening marker at the start (after whitespace) classifies the rest when nothing closes.
_PREFIX_MARKER: Final = re.compile(rf"\A{JS_SPACE}*(?<!\\)\[{_DS4}:({_LEVEL_WORDS})\]{JS_SPACE}*")
#: A marked span: the shortest text up to a closing marker of the same level (any case).
_CLOSED_MARKER: Final = re.compile(
    rf"(?<!\\)\[{_DS4}:(?:"
    + "|".join(
        rf"(?P<level{rank}>{js_ci(level)})\](?P<body{rank}>[\s\S]*?)(?<!\\)\[/{_DS4}:{js_ci(level)}\]"
        for rank, level in enumerate(LEVELS)
    )
    + ")"
)
#: Every marker holds ``4:`` (the end of ``ds4:``): text without it has none, so the marker
#: patterns need not run over a 4 MiB record that holds no marker.
_MARKER_LITERAL: Final = "4:"
#: A string that may be a serialized history result (then it is parsed and walked too).
_RESULT_PROTOCOL: Final = re.compile(rf'"schema"{JS_SPACE}*:{JS_SPACE}*"ds4-history-result-v1"')


def is_level(value: Any) -> bool:
    """Whether ``value`` is one of the four classifications (exact, lower-case)."""
    return isinstance(value, str) and value in _RANK


def max_level(a: str, b: str) -> str:
    """The higher of two classifications (``normal`` < ``internal`` < ``sensitive`` < ``local-only``)."""
    return b if _RANK[b] > _RANK[a] else a


def _raise_floor(floor: str | None, level: str | None) -> str | None:
    if level is None:
        return floor
    return level if floor is None else max_level(floor, level)


def _marker_level(word: str) -> str:
    """The classification a marker names; the long s folds to ``s`` (JavaScript's ``iu`` match).

    Upstream lower-cases with ``toLowerCase``, which keeps U+017F, so ``[ds4:ſensitive]`` is
    stripped but raises nothing there; folding it is the fail-closed reading (docs/privacy.md).
    """
    return word.lower().replace("\u017f", "s")


def classify_markers(text: str) -> str | None:
    """The highest level named by any unescaped opening or closing marker, or None.

    Upstream also checks the marker structure (nesting, unbalanced or mismatched markers raise
    the floor); every level that check can raise is a marker's own level, so the plain maximum
    over all markers already covers it.
    """
    floor: str | None = None
    if _MARKER_LITERAL not in text:
        return floor
    for match in _ANY_MARKER.finditer(text):
        floor = _raise_floor(floor, _marker_level(match.group(2)))
    return floor


def _default_classification(privacy_config: Mapping[str, Any]) -> str:
    value = privacy_config.get("defaultClassification", "normal")
    if not is_level(value):
        raise ValueError(f"invalid privacy.defaultClassification: {value!r}")
    return str(value)


@dataclass(frozen=True)
class ProviderPolicy:
    """Which classifications the current model provider may receive (contract §2.10 step 4)."""

    provider: str
    destination: Literal["local", "remote"]
    allowed: tuple[str, ...]

    @classmethod
    def from_config(cls, privacy_config: Mapping[str, Any], provider: str | None) -> ProviderPolicy:
        """Local providers get all four levels; a remote one its own list or the default list.

        Names compare trimmed and lower-cased; no provider (or an empty name) is ``unknown``,
        which is remote unless configured as local.
        """
        name = provider or UNKNOWN_PROVIDER
        key = trim(name).lower()
        defaults = default_config()["privacy"]
        local = privacy_config.get("localProviders", defaults["localProviders"])
        if any(isinstance(item, str) and trim(item).lower() == key for item in local):
            return cls(name, "local", LEVELS)
        remote = privacy_config.get("remoteProviders", defaults["remoteProviders"])
        rule = next((allowed for item, allowed in property_order(remote) if trim(item).lower() == key), None)
        if rule is None:
            rule = privacy_config.get("remoteDefaultAllowed", defaults["remoteDefaultAllowed"])
        return cls(name, "remote", tuple(level for level in LEVELS if level in rule))

    def allows(self, level: str) -> bool:
        """Whether content of ``level`` may go to this provider; ``local-only`` never leaves."""
        return level in self.allowed and not (self.destination == "remote" and level == "local-only")


def placeholder(level: str) -> str:
    """What replaces a marked span the provider may not receive."""
    return f"[DS4 {level} content excluded by privacy policy]"


def strip_markers(text: str, classification: str, policy: ProviderPolicy) -> tuple[str, int]:
    """The text with marked spans unwrapped (or replaced by a placeholder), and the count of
    replaced spans.

    Text outside a span has ``classification``; a span has the higher of that and its marker.
    Without any closed span, an opening marker at the start classifies the rest.  Markers that
    form no span (escaped, unbalanced, a nested opening inside a span) stay as text.
    """
    if not text:
        return text, 0
    if _MARKER_LITERAL not in text:  # no marker: the whole text has the classification
        return (text, 0) if policy.allows(classification) else (placeholder(classification), 1)
    out: list[str] = []
    blocked = 0

    def emit(piece: str, level: str) -> None:
        nonlocal blocked
        if policy.allows(level):
            out.append(piece)
        else:
            out.append(placeholder(level))
            blocked += 1

    cursor, spans = 0, 0
    for match in _CLOSED_MARKER.finditer(text):
        if match.start() > cursor:
            emit(text[cursor:match.start()], classification)
        rank = next(index for index in range(len(LEVELS)) if match.group(f"level{index}") is not None)
        emit(match.group(f"body{rank}"), max_level(classification, LEVELS[rank]))
        cursor, spans = match.end(), spans + 1
    if spans:
        if cursor < len(text):
            emit(text[cursor:], classification)
        return "".join(out), blocked
    prefix = _PREFIX_MARKER.match(text)
    if prefix:
        emit(text[prefix.end():], max_level(classification, _marker_level(prefix.group(1))))
    else:
        emit(text, classification)
    return "".join(out), blocked


@dataclass(frozen=True)
class Sanitized:
    """The sanitizer's answer: text to show (empty when omitted), its classification, omitted."""

    text: str
    classification: str
    omitted: bool


@dataclass(frozen=True)
class _Found:
    """What the sanitizer finds in one text whatever the level and provider: the markers' level,
    the secret count and the redacted text."""

    markers: str | None
    redactions: int
    redacted: str
    marked: bool  # the redacted text may hold a marker (else stripping keeps it whole)


def _find(text: str) -> _Found:
    redacted, redactions = redact_secrets(text)
    return _Found(classify_markers(text), redactions, redacted, _MARKER_LITERAL in redacted)


def _decide(found: _Found, stored: str | None, policy: ProviderPolicy, privacy_config: Mapping[str, Any]) -> Sanitized:
    if stored is not None and not is_level(stored):
        raise ValueError(f"invalid stored classification: {stored!r}")
    level = stored if stored is not None else _default_classification(privacy_config)
    if found.markers is not None:
        level = max_level(level, found.markers)
    if found.redactions:
        level = max_level(level, "sensitive")
    if not policy.allows(level):
        return Sanitized("", level, True)
    if not found.marked:
        return Sanitized(found.redacted, level, False)
    body, blocked = strip_markers(found.redacted, level, policy)
    return Sanitized(body, level, blocked > 0)


def history_sanitize(
    text: str, *, stored: str | None, policy: ProviderPolicy, privacy_config: Mapping[str, Any]
) -> Sanitized:
    """The runtime history sanitizer (contract §2.10, seven steps); ``privacy.enabled`` and
    ``privacy.redactSecrets`` do not change it.
    """
    return _decide(_find(text), stored, policy, privacy_config)


def history_privacy_classification(value: Any) -> str | None:
    """The classification floor of a parsed value, depth first; None when nothing raised it.

    Fails closed (``local-only``) past 10,000 visited nodes or below depth 64, and on a string
    that looks like a serialized history result but does not parse.  A history result object
    not marked ``quotedData: true`` starts at ``local-only``; a valid ``classification`` field
    and every child raise an object.  Object keys are not inspected (as upstream).
    """
    count = 0
    seen: dict[int, Any] = {}  # holds the objects too, so a parsed value's id is never reused

    def walk_string(node: str, depth: int) -> str | None:
        marked = classify_markers(node)
        if HISTORY_RESULT_SCHEMA not in node:  # both tests below need the schema name
            return marked
        start = node.lstrip(JS_WHITESPACE)[:1]
        container = HISTORY_RESULT_SCHEMA in node and start in ("{", "[", '"')
        if not container and not _RESULT_PROTOCOL.search(node):
            return marked
        try:
            parsed = js_parse(node)
        except (JsonParseError, RecursionError):
            return "local-only"
        return _raise_floor(marked, walk(parsed, depth + 1))

    def walk(node: Any, depth: int) -> str | None:
        nonlocal count
        count += 1
        if count > MAX_WALK_NODES or depth > MAX_WALK_DEPTH:
            return "local-only"
        if isinstance(node, str):
            return walk_string(node, depth)
        if not isinstance(node, (Mapping, list, tuple)) or id(node) in seen:
            return None
        seen[id(node)] = node
        floor: str | None = None
        children: Any = node
        if isinstance(node, Mapping):
            if node.get("schema") == HISTORY_RESULT_SCHEMA and node.get("quotedData") is not True:
                floor = "local-only"
            own = node.get("classification")
            if is_level(own):
                floor = _raise_floor(floor, own)
            children = node.values()
        for child in children:
            floor = _raise_floor(floor, walk(child, depth + 1))
        return floor

    return walk(value, 0)


@dataclass(frozen=True)
class EntryPrivacy:
    """The whole-entry decision: sanitized searchable text (empty when omitted), the higher of the
    raw and text classifications, and whether the entry is omitted."""

    text: str
    classification: str
    omitted: bool


#: Entries whose findings are remembered (a recall classifies its hits, a read of one of them
#: follows; a long record is read window by window), keyed by the SHA-256 of the record's bytes.
_REMEMBERED_ENTRIES: Final = 16
_remembered: OrderedDict[str, tuple[str, str | None, _Found | None, _Found]] = OrderedDict()


def forget_entries() -> None:
    """Drop the remembered findings (the benchmark measures a first read with it)."""
    _remembered.clear()


def _entry_findings(entry: Any, searchable_text: str, content_hash: str | None) -> tuple[str | None, _Found | None, _Found]:
    """The floor, the raw check's findings (None: the serialization holds no marker and no
    secret) and the text check's findings; remembered per ``content_hash`` and text."""
    if content_hash is not None:
        known = _remembered.get(content_hash)
        if known is not None and known[0] == searchable_text:
            _remembered.move_to_end(content_hash)
            return known[1:]
    floor = history_privacy_classification(entry)
    strings = _joined_strings(entry)
    raw: _Found | None = None
    if strings is None or _MARKER_LITERAL in strings or may_match_json(strings):
        raw = _find(js_stringify(entry))
    findings = (floor, raw, _find(searchable_text))
    if content_hash is not None:
        _remembered[content_hash] = (searchable_text, *findings)
        while len(_remembered) > _REMEMBERED_ENTRIES:
            _remembered.popitem(last=False)
    return findings


def classify_entry(
    entry: Any,
    searchable_text: str,
    *,
    policy: ProviderPolicy,
    privacy_config: Mapping[str, Any],
    ref_classification: str | None = None,
    content_hash: str | None = None,
) -> EntryPrivacy:
    """Classify and sanitize a whole history entry before any excerpt is cut.

    ``entry`` is the parsed JSONL entry.  A recall passes no ``ref_classification`` (§2.7 step 3:
    the raw check starts from max(default, floor) when a floor exists, else from the default);
    a read passes the ref's classification (§3.3 step 7: max(default, max(ref, floor) or ref)).
    The raw check sanitizes ``JSON.stringify(entry)``, so a secret or marker anywhere in the
    entry counts; the text check starts from the raw check's classification.  ``content_hash``:
    the SHA-256 of the bytes ``entry`` was parsed from; the findings are then remembered.
    """
    default = _default_classification(privacy_config)
    floor, raw_found, text_found = _entry_findings(entry, searchable_text, content_hash)
    if ref_classification is None:
        stored = None if floor is None else max_level(default, floor)
    else:
        stored = max_level(default, ref_classification if floor is None else max_level(ref_classification, floor))
    if raw_found is None:  # nothing found: the sanitizer keeps the level
        level = stored if stored is not None else default
        raw = Sanitized("", level, not policy.allows(level))
    else:
        raw = _decide(raw_found, stored, policy, privacy_config)
    text = _decide(text_found, raw.classification, policy, privacy_config)
    omitted = raw.omitted or text.omitted
    return EntryPrivacy("" if omitted else text.text, max_level(raw.classification, text.classification), omitted)


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


def _sha256_hex(text: str) -> str:
    """SHA-256 of the string as Node hashes it: UTF-8, a lone surrogate as U+FFFD."""
    data = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def public_id(value: str, *, policy: ProviderPolicy | None = None) -> str:
    """A session or entry id as results show it (contract §2.7 step 6).

    Shown as is when it matches ``^[A-Za-z0-9_.:-]{1,128}$`` and the history sanitizer at
    ``normal`` leaves it unchanged and not omitted (so an id that looks like a credential is
    hidden); otherwise ``opaque_`` + 24 hex of its SHA-256.  ``policy`` is the current
    provider's (upstream sanitizes the id for it); None means one that accepts ``normal``.
    """
    policy = policy or ProviderPolicy("local", "local", LEVELS)
    if _PUBLIC_ID.fullmatch(value):
        safe = history_sanitize(value, stored="normal", policy=policy, privacy_config={})
        if not safe.omitted and safe.text == value:
            return value
    return "opaque_" + _sha256_hex(value)[:24]


def project_id(canonical_project_path: str) -> str:
    """``projectId``: the first 20 hex of SHA-256 of the canonical project path (unsalted)."""
    return _sha256_hex(canonical_project_path)[:20]
