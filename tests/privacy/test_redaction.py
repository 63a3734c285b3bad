"""Secret redaction (contract §2.11, D6): the labelled corpus, JavaScript regex semantics, properties.

The corpus's expected outputs were produced by Node running the TypeScript implementation's
expressions; every value in it is fake.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.paths import DATA
from testkit.profiles import examples

from reference.primitives.jsonbytes import js_stringify
from reference.privacy import redaction as _secrets
from reference.privacy.redaction import (
    CREDENTIAL_LABEL,
    FAMILIES,
    PRIVATE_KEY_LABEL,
    SECRET_LABEL,
    TOKEN_LABEL,
    js_boundary,
    js_ci,
    redact_secrets,
)

CORPUS: list[dict[str, Any]] = json.loads(
    (DATA / "secret_corpus.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CORPUS, ids=[case["label"] for case in CORPUS])
def test_corpus(case: dict[str, Any]) -> None:
    assert redact_secrets(case["text"]) == (case["redacted"], case["count"])


def test_corpus_covers_every_family_and_near_misses() -> None:
    labels = {PRIVATE_KEY_LABEL: 0, CREDENTIAL_LABEL: 0, TOKEN_LABEL: 0, SECRET_LABEL: 0}
    for case in CORPUS:
        for label in labels:
            labels[label] += label in case["redacted"] and label not in case["text"]
    assert all(count >= 3 for count in labels.values()), labels
    near_misses = [case for case in CORPUS if case["label"].startswith("near-miss")]
    assert len(near_misses) >= 15
    assert all(case["count"] == 0 and case["redacted"] == case["text"] for case in near_misses)
    texts = {case["text"] for case in CORPUS}
    for required in ("sk-short", "ghp_FAKEfake000", "AKIAFAKEFAKEFAKE000", "Bearer abc", "password: abc",
                     "task-FAKEfake0000"):
        assert required in texts


def test_labels_and_order() -> None:
    assert [name for name, _pattern, _replacement in FAMILIES] == [
        "private-key", "credential", "bearer-token", "assignment"]
    assert PRIVATE_KEY_LABEL == "[DS4 REDACTED PRIVATE KEY]"
    assert CREDENTIAL_LABEL == "[DS4 REDACTED CREDENTIAL]"
    assert TOKEN_LABEL == "[DS4 REDACTED TOKEN]"
    assert SECRET_LABEL == "[DS4 REDACTED SECRET]"
    # A credential inside a PEM block goes with the block: one redaction, not two.
    text = "-----BEGIN PRIVATE KEY-----\nsk-FAKEfake0000\n-----END PRIVATE KEY-----"
    assert redact_secrets(text) == (PRIVATE_KEY_LABEL, 1)


# ---------------------------------------------------------------- JavaScript regex semantics


def test_word_boundary_is_ascii_unlike_python() -> None:
    boundary = re.compile(js_boundary("A-Za-z0-9_") + "sk-")
    assert boundary.search("\u00e9sk-") is not None
    assert re.search(r"\bsk-", "\u00e9sk-") is None  # why Python's \b cannot be used
    assert boundary.search("ask-") is None


def test_case_insensitive_literal_follows_javascript_folding() -> None:
    pattern = re.compile(js_ci("sk"))
    assert all(pattern.fullmatch(text) for text in ("sk", "SK", "\u017fk", "s\u212a"))
    assert re.fullmatch(js_ci("i"), "\u0130") is None and re.fullmatch(js_ci("i"), "\u0131") is None
    assert re.fullmatch("i", "\u0131", re.IGNORECASE) is not None  # Python's re.I differs


def test_javascript_whitespace() -> None:
    assert redact_secrets("Bearer\ufeffFAKEFAKEFAKE")[1] == 1
    assert redact_secrets("Bearer\x85FAKEFAKEFAKE")[1] == 0
    assert redact_secrets("password\x1f=FAKEFAKE")[1] == 0
    assert redact_secrets("password\u3000=\u3000FAKEFAKE") == ("password\u3000=\u3000" + SECRET_LABEL, 1)


def test_long_s_and_kelvin_are_word_characters_under_iu() -> None:
    # JavaScript's \b with the i and u flags counts U+017F and U+212A as word characters.
    assert redact_secrets("\u017fpassword=FAKEFAKE")[1] == 0
    assert redact_secrets("\u212aBearer FAKEFAKEFAKE")[1] == 0
    # ...but not in the case-sensitive credential family.
    assert redact_secrets("\u017fsk-FAKEfake0000")[1] == 1


def test_lazy_private_key_span() -> None:
    block = "-----BEGIN PRIVATE KEY-----x-----END PRIVATE KEY-----"
    assert redact_secrets(f"{block} kept {block}") == (f"{PRIVATE_KEY_LABEL} kept {PRIVATE_KEY_LABEL}", 2)


def test_assignment_backtracks_to_close_its_quote() -> None:
    assert redact_secrets("password='FAKEFAKE'") == (f"password='{SECRET_LABEL}'", 1)
    assert redact_secrets("password='FAKE FAKE'") == ("password='FAKE FAKE'", 0)
    assert redact_secrets("password=FAKEFAKE'") == (f"password={SECRET_LABEL}'", 1)


def test_assignments_are_idempotent_unlike_upstream() -> None:
    """D14: a label is not an assignment's value, so a second pass changes nothing (upstream's
    grows the text to ``password=[DS4 REDACTED SECRET] REDACTED SECRET]``)."""
    once, count = redact_secrets("password=hunter22")
    assert (once, count) == (f"password={SECRET_LABEL}", 1)
    assert redact_secrets(once) == (once, 0)
    assert redact_secrets(f"api_key: '{CREDENTIAL_LABEL}'") == (f"api_key: '{CREDENTIAL_LABEL}'", 0)
    assert redact_secrets("password=[DS4x and") == (f"password={SECRET_LABEL} and", 1)  # not a label
    assert redact_secrets("password=[DS4 REDACTE") == (f"password={SECRET_LABEL} REDACTE", 1)


# ---------------------------------------------------------------- properties

# Whole secret-bearing tokens and the part of each that must never survive redaction.
SECRETS: list[tuple[str, str]] = [
    ("-----BEGIN RSA PRIVATE KEY-----\nFAKEKEYMATERIAL42\n-----END RSA PRIVATE KEY-----", "FAKEKEYMATERIAL42"),
    ("sk-FAKEfake0000", "sk-FAKEfake0000"),
    ("sk-ant-FAKE0000fake", "sk-ant-FAKE0000fake"),
    ("ghp_FAKEfake0000", "ghp_FAKEfake0000"),
    ("AKIAFAKEFAKEFAKE0000", "AKIAFAKEFAKEFAKE0000"),
    ("Authorization: Bearer FAKEtoken.abc123", "FAKEtoken.abc123"),
    ("password: FAKEhunter22", "FAKEhunter22"),
    ("api_key='FAKE-KEY-0000'", "FAKE-KEY-0000"),
    ("client_secret=FAKEclient9", "FAKEclient9"),
]
ASSIGNMENT_SECRETS = {"password: FAKEhunter22", "api_key='FAKE-KEY-0000'", "client_secret=FAKEclient9"}
FILLER = st.text(alphabet="abcdefghijklmnopqrstuvwxyz:.[]/-", min_size=1, max_size=10)
SEPARATOR = st.sampled_from([" ", "\n", "\t", " ; ", "\r\n"])


def texts(pieces: list[str]) -> st.SearchStrategy[str]:
    token = st.one_of(st.sampled_from(pieces), FILLER)
    return st.lists(st.tuples(token, SEPARATOR), max_size=12).map(
        lambda parts: "".join(piece + separator for piece, separator in parts)
    )


@examples(deep=200, ci=200)
@given(texts([token for token, _secret in SECRETS]))
def test_no_corpus_secret_survives(text: str) -> None:
    redacted, count = redact_secrets(text)
    for token, secret in SECRETS:
        assert secret not in redacted
        if token in text:
            assert count > 0


@examples(deep=200, ci=200)
@given(texts([token for token, _secret in SECRETS if token not in ASSIGNMENT_SECRETS]))
def test_idempotent_without_assignments(text: str) -> None:
    once, _count = redact_secrets(text)
    assert redact_secrets(once) == (once, 0)


_LABEL_VALUE = re.compile(r"[\"']?\[DS4 REDACTED ")


@examples(deep=200, ci=200)
@given(texts([token for token, _secret in SECRETS]))
def test_a_second_pass_only_finds_labelled_assignments(text: str) -> None:
    once, _count = redact_secrets(text)
    for _name, pattern, _replacement in FAMILIES[:3]:
        assert pattern.search(once) is None
    for match in FAMILIES[3][1].finditer(once):
        assert _LABEL_VALUE.match(once, match.end(2)), match.group(0)


@examples(deep=200, ci=200)
@given(st.text(max_size=200))
def test_redaction_never_grows_a_text_without_secrets(text: str) -> None:
    redacted, count = redact_secrets(text)
    if count == 0:
        assert redacted == text
    else:
        assert "[DS4 REDACTED " in redacted



@examples(deep=200, ci=200)
@given(st.text(alphabet=st.sampled_from(list("sk-ghpousr_AKIBearer pasword:=apikeyTOKENſKK0123456789ABCDEFxyz\"'")),
                 max_size=80))
def test_the_literal_prefilter_never_skips_a_family_that_would_match(text: str) -> None:
    """The pre-check is only a shortcut: every family that matches must pass it."""
    folded = text.casefold()
    for name, pattern, _replacement in _secrets.FAMILIES:
        if pattern.search(text):
            assert _secrets._may_hold(name, text, folded), (name, text)


# Pieces from which an escape (\b, \t, \u001b, a lone surrogate's hex digits) can build a word.
_JSON_PIECES = st.sampled_from([
    "\x08earer ", "\tken", "\x1bearer", "\udbea", "rer", "\u017f", "\u212a", "earer", "bearer ", "Bearer ",
    "abcdefgh123", "oken", "access_", "token", "api", "_key", "=", ": ", "'", '"', "password", "ecret",
    "client_", "sk-", "ant-", "AKIA", "0123456789ABCDEF", "ghp_", "gh", "s_", "PRIVATE KEY-----",
    "-----BEGIN ", "-----END ", "\n", "\\", " ", "x", "4", ":",
])
_JSON_STRINGS = st.lists(_JSON_PIECES, max_size=12).map("".join)
_JSON_VALUES = st.recursive(
    st.one_of(_JSON_STRINGS, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_JSON_STRINGS, inner, max_size=4)),
    max_leaves=12,
)


def _strings_of(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (key, *_strings_of(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings_of(item)]
    return []


@given(_JSON_VALUES)
@examples(deep=400, ci=400)
def test_may_match_json_never_misses_a_family_of_the_serialization(value: object) -> None:
    """``False`` from the pre-check on a value's strings means no family matches its JSON."""
    if not _secrets.may_match_json("\0".join(_strings_of(value))):
        serialized = js_stringify(value)
        for name, pattern, _replacement in _secrets.FAMILIES:
            assert pattern.search(serialized) is None, (name, serialized)


def test_may_match_json_sees_a_word_built_by_an_escape() -> None:
    assert _secrets.FAMILIES[2][1].search(js_stringify({"a": "\x08earer abcdefgh123"}))
    assert _secrets.may_match_json("a\0\x08earer abcdefgh123")
    assert not _secrets.may_match_json("a\0plain text\0[000123] build ok")


@pytest.mark.parametrize(("text", "expected"), [
    ("the Bearer authentication scheme", ("the Bearer authentication scheme", 0)),
    ("as Bearer Followed\tby", ("as Bearer Followed\tby", 0)),
    ("Bearer abcdefgh", (f"Bearer {TOKEN_LABEL}", 1)),  # no word after it: a token
    ("Bearer abcdefgh, next", (f"Bearer {TOKEN_LABEL}, next", 1)),
    ("Bearer abcdefgh Next", (f"Bearer {TOKEN_LABEL} Next", 1)),  # the next word must be lower case
    ("Bearer abCdefgh next", (f"Bearer {TOKEN_LABEL} next", 1)),
    ("Bearer FAKEFAKEFAKE next", (f"Bearer {TOKEN_LABEL} next", 1)),
    ("password=<your-password-here> is", ("password=<your-password-here> is", 0)),
    ("password: '<db-pass>' ok", ("password: '<db-pass>' ok", 0)),
    ("password=<abc>x", (f"password={SECRET_LABEL}", 1)),
    ("password=<1abc>", (f"password={SECRET_LABEL}", 1)),
    ("password=<abcd", (f"password={SECRET_LABEL}", 1)),
])
def test_d14_keeps_prose_and_placeholders_whole(text: str, expected: tuple[str, int]) -> None:
    """D14: the two floor shapes that are not secrets; each neighbour of them stays redacted."""
    assert redact_secrets(text) == expected
