"""Privacy of history content (contract §2.10, §2.7 steps 3/6, §3.3 step 7, §8.4; D6)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.config.defaults import default_config
from reference.primitives.jsonbytes import js_stringify
from reference.privacy.entry import classify_entry
from reference.privacy.policy import (
    LEVELS,
    ProviderPolicy,
    classify_markers,
    history_privacy_classification,
    max_level,
)
from reference.privacy.public_ids import project_id, public_id
from reference.privacy.redaction import SECRET_LABEL, TOKEN_LABEL
from reference.privacy.sanitizer import history_sanitize, placeholder, strip_markers

PRIVACY = default_config()["privacy"]
LOCAL = ProviderPolicy.from_config(PRIVACY, "ollama")
REMOTE = ProviderPolicy.from_config(PRIVACY, "openai")


def sanitize(text: str, policy: ProviderPolicy = LOCAL, stored: str | None = None,
             config: dict[str, Any] | None = None) -> tuple[str, str, bool]:
    result = history_sanitize(text, stored=stored, policy=policy, privacy_config=config or PRIVACY)
    return result.text, result.classification, result.omitted


def privacy(**changes: Any) -> dict[str, Any]:
    return {**PRIVACY, **changes}


# ---------------------------------------------------------------- levels


def test_levels_and_order() -> None:
    assert LEVELS == ("normal", "internal", "sensitive", "local-only")
    assert max_level("normal", "internal") == "internal"
    assert max_level("local-only", "sensitive") == "local-only"
    assert max_level("sensitive", "sensitive") == "sensitive"
    with pytest.raises(KeyError):
        max_level("normal", "secret")


# ---------------------------------------------------------------- markers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text", None),
        ("a [ds4:internal]b[/ds4:internal]", "internal"),
        ("[DS4:Sensitive]x[/ds4:SENSITIVE]", "sensitive"),
        ("\\[ds4:local-only]x\\[/ds4:local-only]", None),  # escaped markers are literal
        ("stray close [/ds4:sensitive]", "sensitive"),  # unbalanced raises
        ("[ds4:internal]a [ds4:local-only]b[/ds4:internal]", "local-only"),  # nested raises
        ("[ds4:internal]a[/ds4:sensitive]", "sensitive"),  # mismatched raises
        ("[ds4:secret]x[/ds4:secret]", None),  # not a level
        ("[ds4: internal]x", None),
        ("[d\u017f4:internal]x", "internal"),  # JavaScript iu: long s matches s
        ("[ds4:\u017fensitive]x", "sensitive"),  # folded (fail closed), see docs/privacy.md
        ("[ds4:\u0130nternal]x", None),  # JavaScript iu: dotted I does not match i
    ],
)
def test_classify_markers(text: str, expected: str | None) -> None:
    assert classify_markers(text) == expected


@pytest.mark.parametrize(
    ("text", "shown", "level"),
    [
        ("a [ds4:internal]b[/ds4:internal] c", "a b c", "internal"),
        ("[DS4:INTERNAL]x[/ds4:internal]", "x", "internal"),
        ("[ds4:internal]a[/ds4:internal] b [ds4:internal]c[/ds4:internal]", "a b c", "internal"),  # shortest
        ("  [ds4:sensitive]  the rest of the text", "the rest of the text", "sensitive"),  # prefix, no close
        ("[ds4:internal]a[/ds4:sensitive]", "a[/ds4:sensitive]", "sensitive"),  # prefix; stray close stays
        ("text [ds4:internal] more", "text [ds4:internal] more", "internal"),  # opening not at the start
        ("\\[ds4:internal]x\\[/ds4:internal]", "\\[ds4:internal]x\\[/ds4:internal]", "normal"),
        ("[ds4:internal]a [ds4:local-only]b[/ds4:local-only] c[/ds4:internal]",
         "a [ds4:local-only]b[/ds4:local-only] c", "local-only"),  # nested: inner markers stay text
        ("[ds4:internal][/ds4:internal]", "", "internal"),
        ("", "", "normal"),
    ],
)
def test_marker_grammar_for_a_local_provider(text: str, shown: str, level: str) -> None:
    assert sanitize(text) == (shown, level, False)


def test_blocked_span_becomes_a_placeholder_and_counts() -> None:
    text = "a [ds4:sensitive]x[/ds4:sensitive] b [ds4:internal]y[/ds4:internal]"
    assert strip_markers(text, "normal", REMOTE) == (
        f"a {placeholder('sensitive')} b y", 1)
    assert placeholder("local-only") == "[DS4 local-only content excluded by privacy policy]"
    assert strip_markers("[ds4:local-only] all of it", "normal", REMOTE) == (placeholder("local-only"), 1)
    assert strip_markers("outside", "sensitive", REMOTE) == (placeholder("sensitive"), 1)


def test_marked_content_is_omitted_whole_for_a_remote_provider() -> None:
    assert sanitize("public [ds4:sensitive]x[/ds4:sensitive]", REMOTE) == ("", "sensitive", True)
    assert sanitize("public [ds4:internal]x[/ds4:internal]", REMOTE) == ("public x", "internal", False)
    assert sanitize("[/ds4:local-only] stray", REMOTE) == ("", "local-only", True)


# ---------------------------------------------------------------- provider policy


def test_provider_policy() -> None:
    assert LOCAL.destination == "local" and LOCAL.allowed == LEVELS
    assert ProviderPolicy.from_config(PRIVACY, " OLLAMA ").destination == "local"
    assert REMOTE.destination == "remote" and REMOTE.allowed == ("normal", "internal")
    for missing in (None, ""):
        policy = ProviderPolicy.from_config(PRIVACY, missing)
        assert (policy.provider, policy.destination) == ("unknown", "remote")
    assert ProviderPolicy.from_config(privacy(localProviders=["Unknown"]), None).destination == "local"
    assert ProviderPolicy.from_config(privacy(localProviders=["My-Box"]), "my-box ").destination == "local"


def test_remote_provider_rules() -> None:
    config = privacy(remoteProviders={"OpenAI": ["normal", "internal", "sensitive"], "mistral": []})
    assert ProviderPolicy.from_config(config, "openai").allowed == ("normal", "internal", "sensitive")
    assert ProviderPolicy.from_config(config, "MISTRAL").allowed == ()  # an empty rule is a rule
    assert ProviderPolicy.from_config(config, "anthropic").allowed == ("normal", "internal")


def test_local_only_never_goes_remote() -> None:
    lax = ProviderPolicy.from_config(privacy(remoteDefaultAllowed=list(LEVELS)), "openai")
    assert "local-only" in lax.allowed and not lax.allows("local-only")
    assert LOCAL.allows("local-only")
    assert sanitize("[ds4:local-only]x[/ds4:local-only]", lax) == ("", "local-only", True)


# ---------------------------------------------------------------- the runtime sanitizer


def test_sanitizer_runs_with_privacy_disabled_and_redaction_switched_off() -> None:
    for config in (privacy(enabled=False), privacy(enabled=False, redactSecrets=False)):
        assert sanitize("token Bearer FAKEFAKEFAKE", REMOTE, config=config) == ("", "sensitive", True)
        assert sanitize("token Bearer FAKEFAKEFAKE", LOCAL, config=config) == (
            f"token Bearer {TOKEN_LABEL}", "sensitive", False)


def test_redaction_raises_to_sensitive_and_no_further() -> None:
    assert sanitize("password: FAKEhunter22", LOCAL, stored="normal")[1] == "sensitive"
    assert sanitize("password: FAKEhunter22", LOCAL, stored="local-only")[1] == "local-only"
    sensitive_ok = ProviderPolicy.from_config(privacy(remoteProviders={"openai": ["normal", "sensitive"]}), "openai")
    assert sanitize("password: FAKEhunter22", sensitive_ok) == (f"password: {SECRET_LABEL}", "sensitive", False)


def test_stored_and_default_classification() -> None:
    assert sanitize("plain", REMOTE, stored="internal") == ("plain", "internal", False)
    assert sanitize("plain", REMOTE, config=privacy(defaultClassification="sensitive")) == ("", "sensitive", True)
    assert sanitize("plain", REMOTE, stored="normal", config=privacy(defaultClassification="sensitive")) == (
        "plain", "normal", False)
    with pytest.raises(ValueError):
        sanitize("plain", stored="secret")


def test_markers_are_stripped_from_the_redacted_text() -> None:
    text = "[ds4:internal]password: FAKEhunter22 [/ds4:internal] done"
    assert sanitize(text) == (f"password: {SECRET_LABEL}  done", "sensitive", False)
    # As upstream: the value runs up to "]", so redaction eats the closing marker; the opening
    # marker then classifies the rest and one "]" is left over.
    text = "[ds4:internal]password: FAKEhunter22[/ds4:internal] done"
    assert sanitize(text) == (f"password: {SECRET_LABEL}] done", "sensitive", False)


SECRETS = ["sk-FAKEfake0000", "ghp_FAKEfake0000", "AKIAFAKEFAKEFAKE0000", "Bearer FAKEtoken.abc123",
           "password: FAKEhunter22", "-----BEGIN PRIVATE KEY-----\nFAKEKEYMATERIAL42\n-----END PRIVATE KEY-----"]
SECRET_VALUES = ["sk-FAKEfake0000", "ghp_FAKEfake0000", "AKIAFAKEFAKEFAKE0000", "FAKEtoken.abc123",
                 "FAKEhunter22", "FAKEKEYMATERIAL42"]
MARKERS = [f"[{slash}ds4:{level}]" for slash in ("", "/") for level in LEVELS] + ["\\[ds4:internal]"]


@examples(deep=200, ci=200)
@given(
    st.lists(st.sampled_from(SECRETS + MARKERS + ["words", "more text", "x"]), max_size=12),
    st.sampled_from([None, *LEVELS]),
    st.sampled_from(["ollama", "openai", None, "lmstudio"]),
)
def test_sanitized_output_never_contains_a_secret(pieces: list[str], stored: str | None, provider: str | None) -> None:
    text = " ".join(pieces)
    result = history_sanitize(text, stored=stored, policy=ProviderPolicy.from_config(PRIVACY, provider),
                              privacy_config=PRIVACY)
    assert not any(secret in result.text for secret in SECRET_VALUES)
    if any(piece in SECRETS for piece in pieces):
        assert result.classification in ("sensitive", "local-only")
        assert result.omitted or provider in ("ollama", "lmstudio")
    if result.omitted:
        assert result.text == "" or "excluded by privacy policy" in result.text


# ---------------------------------------------------------------- the classification floor


def frame(classification: str = "local-only", quoted: Any = True) -> dict[str, Any]:
    return {"schema": "ds4-history-result-v1", "quotedData": quoted, "status": "complete",
            "coverage": "complete", "warnings": [], "hits": [{"classification": classification, "excerpt": "x"}]}


def test_floor_upstream_cases() -> None:
    assert history_privacy_classification({"content": [{"type": "text", "text": json.dumps(frame())}]}) == "local-only"
    assert history_privacy_classification(json.dumps(json.dumps(frame()))) == "local-only"
    assert history_privacy_classification(
        {"classification": "normal", "content": "a [ds4:sensitive]b[/ds4:sensitive]"}) == "sensitive"
    assert history_privacy_classification({"content": "ordinary text"}) is None
    assert history_privacy_classification('{"schema":"ds4-history-result-v1",broken') == "local-only"
    assert history_privacy_classification({"schema": "ds4-history-result-v1", "quotedData": False}) == "local-only"
    assert history_privacy_classification(["x"] * 10_001) == "local-only"


def test_floor_details() -> None:
    assert history_privacy_classification(frame("internal")) == "internal"
    assert history_privacy_classification(frame("internal", quoted=1)) == "local-only"  # strictly true
    assert history_privacy_classification({"schema": "ds4-history-result-v1"}) == "local-only"
    assert history_privacy_classification({"classification": "secret"}) is None
    assert history_privacy_classification({"classification": "internal", "n": 3, "b": True, "z": None}) == "internal"
    assert history_privacy_classification({"[ds4:local-only]": "keys are not inspected"}) is None
    # Mentions of the schema id outside a serialized container are text.
    assert history_privacy_classification("see ds4-history-result-v1 in the docs") is None
    assert history_privacy_classification(' \n {"schema": "ds4-history-result-v1" oops') == "local-only"
    assert history_privacy_classification('prefix "schema" : "ds4-history-result-v1"') == "local-only"
    assert history_privacy_classification('"ds4-history-result-v1"') is None  # parses to a plain string


def test_floor_walk_limits() -> None:
    assert history_privacy_classification(["x"] * 9_999) is None  # 10,000 nodes with the array
    assert history_privacy_classification(["x"] * 10_000) == "local-only"  # 10,001 nodes
    nested: Any = "x"
    for _ in range(64):
        nested = [nested]
    assert history_privacy_classification(nested) is None  # the string sits at depth 64
    assert history_privacy_classification([nested]) == "local-only"  # depth 65
    # A serialized value nests one level deeper than the string holding it.
    assert history_privacy_classification(json.dumps(frame("normal"))) == "normal"


def test_floor_keeps_parsed_values_apart() -> None:
    # Each serialized string parses to a fresh object; none may be mistaken for one already seen.
    value = [json.dumps(frame("normal")) for _ in range(50)] + [json.dumps(frame("sensitive"))]
    assert history_privacy_classification(value) == "sensitive"


# ---------------------------------------------------------------- whole entries


def message(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "id": "a1b2c3d4", "parentId": None, "timestamp": "2025-06-01T12:00:00.000Z",
            "message": {"role": "user", "content": text, **extra}}


def test_marker_beyond_the_excerpt_classifies_the_whole_entry() -> None:
    text = "LastExportUtc public beginning " + "x" * 2000 + "[ds4:local-only]private[/ds4:local-only]"
    entry = message(text)
    assert classify_entry(entry, text, policy=REMOTE, privacy_config=PRIVACY).omitted
    local = ProviderPolicy.from_config(privacy(localProviders=[*PRIVACY["localProviders"], "local"]), "local")
    seen = classify_entry(entry, text, policy=local, privacy_config=PRIVACY)
    assert (seen.classification, seen.omitted) == ("local-only", False)
    assert seen.text == "LastExportUtc public beginning " + "x" * 2000 + "private"
    # The provider changes to a remote one before the read: the ref's classification is local-only.
    read = classify_entry(entry, text, policy=REMOTE, privacy_config=PRIVACY, ref_classification="local-only")
    assert (read.text, read.omitted) == ("", True)


def test_secret_in_the_raw_json_omits_the_entry_for_a_default_remote_provider() -> None:
    entry = {"type": "message", "id": "e1", "message": {
        "role": "assistant", "content": [
            {"type": "text", "text": "I ran the request."},
            {"type": "toolCall", "id": "t1", "name": "bash",
             "arguments": {"command": "curl -H 'Authorization: Bearer FAKEtoken.abc123' https://x.test"}}]}}
    searchable = "I ran the request."
    for provider in ("openai", None):
        policy = ProviderPolicy.from_config(PRIVACY, provider)
        assert classify_entry(entry, searchable, policy=policy, privacy_config=PRIVACY).omitted
    local = classify_entry(entry, searchable, policy=LOCAL, privacy_config=PRIVACY)
    assert (local.text, local.classification, local.omitted) == (searchable, "sensitive", False)


def test_local_provider_sees_redacted_text() -> None:
    text = "deploy with password: FAKEhunter22 and sk-FAKEfake0000"
    result = classify_entry(message(text), text, policy=LOCAL, privacy_config=PRIVACY)
    assert result == type(result)(
        f"deploy with password: {SECRET_LABEL} and [DS4 REDACTED CREDENTIAL]", "sensitive", False)


def test_floor_and_ref_classification_feed_the_raw_check() -> None:
    custom = {"type": "custom", "id": "c1", "customType": "x", "data": {"classification": "sensitive", "note": "hi"}}
    assert classify_entry(custom, "hi", policy=REMOTE, privacy_config=PRIVACY).omitted
    assert classify_entry(custom, "hi", policy=LOCAL, privacy_config=PRIVACY).classification == "sensitive"
    plain = message("hello")
    assert classify_entry(plain, "hello", policy=REMOTE, privacy_config=PRIVACY).classification == "normal"
    read = classify_entry(plain, "hello", policy=REMOTE, privacy_config=PRIVACY, ref_classification="internal")
    assert (read.text, read.classification, read.omitted) == ("hello", "internal", False)
    assert classify_entry(plain, "hello", policy=REMOTE, privacy_config=PRIVACY,
                          ref_classification="sensitive").omitted
    internal = privacy(defaultClassification="internal")
    assert classify_entry(plain, "hello", policy=REMOTE, privacy_config=internal,
                          ref_classification="normal").classification == "internal"


def test_marker_outside_the_searchable_text_still_counts() -> None:
    entry = message("hello", details="[ds4:local-only]hidden field[/ds4:local-only]")
    assert classify_entry(entry, "hello", policy=REMOTE, privacy_config=PRIVACY).omitted
    result = classify_entry(entry, "hello", policy=LOCAL, privacy_config=PRIVACY)
    assert (result.text, result.classification) == ("hello", "local-only")


def test_raw_check_reads_the_javascript_serialization() -> None:
    # JSON.stringify escapes a newline, so the key/value pattern sees "\n" as two characters.
    entry = message("ok", note="password:\nFAKE")
    assert "password:\\nFAKE" in js_stringify(entry)
    assert classify_entry(entry, "ok", policy=REMOTE, privacy_config=PRIVACY).omitted


def test_empty_searchable_text_is_not_omitted() -> None:
    result = classify_entry(message(""), "", policy=REMOTE, privacy_config=PRIVACY)
    assert (result.text, result.omitted) == ("", False)


# ---------------------------------------------------------------- public ids


def opaque(value: str) -> str:
    return "opaque_" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:24]


@pytest.mark.parametrize("value", ["a1b2c3d4", "01972b5c-ee00-79f3-a190-4c20cf6b478b", "x.y:z_w-1", "a" * 128])
def test_public_id_shown_as_is(value: str) -> None:
    assert public_id(value) == value


@pytest.mark.parametrize("value", ["", "a" * 129, "id with space", "abc\n", "caf\u00e9", "sk-FAKEfake0000",
                                   "ghp_FAKEfake0000", "AKIAFAKEFAKEFAKE0000"])
def test_public_id_opaque(value: str) -> None:
    assert public_id(value) == opaque(value)


def test_public_id_pinned_against_node() -> None:
    assert public_id("sk-FAKEfake0000") == "opaque_1aa2d517c9af3e0b5e49df52"
    assert public_id("id with space") == "opaque_8e58e3b82b298a78f33d00b4"
    assert public_id("a\ud800b") == "opaque_05087813392efc16fe8ff448"  # a lone surrogate hashes as U+FFFD


def test_public_id_follows_the_provider_policy() -> None:
    strict = ProviderPolicy.from_config(privacy(remoteDefaultAllowed=["internal"]), "openai")
    assert public_id("a1b2c3d4", policy=strict) == opaque("a1b2c3d4")
    assert public_id("a1b2c3d4", policy=REMOTE) == "a1b2c3d4"


def test_project_id_pinned_against_node() -> None:
    assert project_id("/home/user/project") == "9dad1e4e08b0b11cbcd8"
    assert project_id("/home/\u00fcser/pr\u00f8ject") == "ab1f885dd96b67ed7ccc"


# ---------------------------------------------------------------- the whole-entry shortcuts

_ENTRY_PIECES = st.sampled_from([
    "[ds4:sensitive]", "[/ds4:sensitive]", "[DS4:local-only]", "[ds4:internal] ", "\\[ds4:internal]", "4:",
    "password=hunter22", "Bearer abcdefgh123", "\x08earer abcdefgh123", "sk-FAKEfake0000", "ghp_FAKEfake0000",
    "text", "\n", " ", '"', "ds4-history-result-v1", '{"schema":"ds4-history-result-v1"}', "\udbea", "rer",
])
_ENTRY_STRINGS = st.lists(_ENTRY_PIECES, max_size=6).map("".join)
_ENTRY_VALUES = st.recursive(
    st.one_of(_ENTRY_STRINGS, st.integers(), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_ENTRY_STRINGS, inner, max_size=3)),
    max_leaves=8,
)


def _plain_classify(entry: Any, text: str, policy: ProviderPolicy, ref: str | None) -> tuple[str, str, bool]:
    """``classify_entry`` as contract §2.7/§3.3 spell it, with no shortcut and nothing remembered."""
    default = PRIVACY["defaultClassification"]
    floor = history_privacy_classification(entry)
    if ref is None:
        stored = None if floor is None else max_level(default, floor)
    else:
        stored = max_level(default, ref if floor is None else max_level(ref, floor))
    raw = history_sanitize(js_stringify(entry), stored=stored, policy=policy, privacy_config=PRIVACY)
    body = history_sanitize(text, stored=raw.classification, policy=policy, privacy_config=PRIVACY)
    omitted = raw.omitted or body.omitted
    return "" if omitted else body.text, max_level(raw.classification, body.classification), omitted


@examples(deep=300, ci=300)
@given(_ENTRY_VALUES, _ENTRY_STRINGS, st.sampled_from([LOCAL, REMOTE]), st.sampled_from([None, *LEVELS]),
       st.booleans())
def test_classify_entry_equals_the_plain_steps(entry: Any, text: str, policy: ProviderPolicy, ref: str | None,
                                              remembered: bool) -> None:
    """Skipping the serialization when it holds nothing, and remembering findings per content hash,
    give what the plain steps give."""
    value = {"type": "message", "id": "e1", "payload": entry}
    content_hash = hashlib.sha256(js_stringify(value).encode("utf-8", "surrogatepass")).hexdigest()
    expected = _plain_classify(value, text, policy, ref)
    for _ in range(2 if remembered else 1):
        got = classify_entry(value, text, policy=policy, privacy_config=PRIVACY, ref_classification=ref,
                             content_hash=content_hash if remembered else None)
        assert (got.text, got.classification, got.omitted) == expected


def test_remembered_findings_belong_to_one_text() -> None:
    entry = {"type": "message", "id": "e1", "message": {"role": "user", "content": "x"}}
    first = classify_entry(entry, "plain", policy=REMOTE, privacy_config=PRIVACY, content_hash="h")
    other = classify_entry(entry, "password=hunter22", policy=REMOTE, privacy_config=PRIVACY, content_hash="h")
    assert (first.omitted, other.omitted) == (False, True)
