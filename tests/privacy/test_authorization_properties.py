"""Issue 29 as properties: an Authorization header leaks nothing whatever its scheme, and a masked
value, a placeholder or a vendor's documented example credential stays whole wherever it sits.

The credentials are random (a token68, or auth-params with quoted values), the scheme is any
token that is not ``Bearer`` or ``Basic`` (those are the contract floor's and the house Basic
rule's, tested in test_redaction.py and test_detection.py), the header name in any case, the
header plain, in a JSON object or JSON-escaped.  A leak is 8 consecutive characters of the
credential (the corpus's rule).
"""

from __future__ import annotations

import json
import string

from hypothesis import assume, given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.privacy.detection import redact
from reference.privacy.harmless import DOCUMENTED_EXAMPLES
from reference.privacy.redaction import CREDENTIAL_LABEL, PRIVATE_KEY_LABEL, SECRET_LABEL, TOKEN_LABEL

URLSAFE = string.ascii_letters + string.digits + "-_"
B64 = string.ascii_letters + string.digits + "+/"
SCHEME_CHARS = string.ascii_letters + string.digits + "-._"

schemes = st.text(SCHEME_CHARS, min_size=2, max_size=20).filter(
    lambda s: s[0].isalpha() and s.lower() not in {"bearer", "basic"})
#: A credential with a digit in it and 16+ characters: machine-made, never prose.
token68 = st.builds(lambda head, digit, tail, pad: head + digit + tail + "=" * pad,
                    st.text(URLSAFE + "+/.~", min_size=8, max_size=60), st.sampled_from(string.digits),
                    st.text(URLSAFE, min_size=7, max_size=40), st.integers(0, 2))
param_names = st.text(string.ascii_lowercase + "_-", min_size=2, max_size=12).filter(lambda s: s[0].isalpha())
auth_params = st.lists(st.tuples(param_names, token68, st.booleans()), min_size=1, max_size=5)
header_names = st.sampled_from(["Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization"])


def _windows(secret: str) -> list[str]:
    return [secret[i:i + 8] for i in range(len(secret) - 7)]


#: What a redaction writes: a credential that shares a window with it (``000000000REDACTED``) would
#: seem to leak through the label.
LABELS = "\n".join((CREDENTIAL_LABEL, PRIVATE_KEY_LABEL, SECRET_LABEL, TOKEN_LABEL))


def _shares_a_window(secret: str, public: str) -> bool:
    """Whether the text around a credential (its scheme, a parameter name) or a redaction label
    holds one of its windows."""
    return any(window in public or window in LABELS for window in _windows(secret))


def _placements(header: str, value: str) -> list[str]:
    return [f"{header}: {value}", json.dumps({"headers": {header: value}}),
            json.dumps({"config": f"curl -H '{header}: {value}' https://api.example.test"}),
            f"> {header}: {value}\n> Accept: */*"]


@examples(deep=300, ci=150, deadline=None)
@given(header_names, schemes, token68)
def test_a_token68_under_any_scheme_does_not_leak(header: str, scheme: str, credential: str) -> None:
    assume(not _shares_a_window(credential, "\n".join(_placements(header, scheme))))
    for text in _placements(header, f"{scheme} {credential}"):
        redacted, count = redact(text)
        assert count > 0, text
        assert not any(window in redacted for window in _windows(credential)), (text, redacted)


@examples(deep=300, ci=150, deadline=None)
@given(header_names, schemes, auth_params)
def test_auth_params_under_any_scheme_do_not_leak(header: str, scheme: str,
                                                  params: list[tuple[str, str, bool]]) -> None:
    public = "\n".join(_placements(header, scheme + " ".join(name for name, _v, _q in params)))
    assume(not any(_shares_a_window(credential, public) for _n, credential, _q in params))
    value = scheme + " " + ", ".join(f'{name}="{v}"' if quoted else f"{name}={v}" for name, v, quoted in params)
    for text in _placements(header, value):
        redacted, _count = redact(text)
        for _name, credential, _quoted in params:
            assert not any(window in redacted for window in _windows(credential)), (text, redacted)


MASK_PREFIXES = ["", "sk-", "sk_live_", "sk_test_", "ghp_", "github_pat_", "glpat-", "xoxb-", "AKIA", "AC", "npm_"]
masked_values = st.builds(lambda prefix, mask, n, digits: prefix + mask * n + digits,
                          st.sampled_from(MASK_PREFIXES), st.sampled_from(["*", "x", "X", "•", "#"]),
                          st.integers(4, 40), st.text(string.digits, max_size=4))
#: D14's own bound on the contract floor: an assignment's placeholder is ``<name>``, its name
#: starting with a letter (``password=<1abc>`` and ``password: ${X}`` are redacted by the floor, as
#: upstream redacts them), so the ``$`` forms are checked where no floor assignment is.
angle_placeholders = st.builds(lambda s: f"<{s}>", st.text(string.ascii_lowercase + "-_", min_size=1, max_size=30).filter(
    lambda s: s[0].isalpha()))
variable_placeholders = st.one_of(
    st.builds(lambda s: "${" + s + "}", st.text(string.ascii_uppercase + "_", min_size=1, max_size=30)),
    st.builds(lambda s: "$" + s, st.text(string.ascii_uppercase + "_", min_size=1, max_size=30)),
    st.builds(lambda s: "${{ secrets." + s + " }}", st.text(string.ascii_uppercase + "_", min_size=1, max_size=30)),
)
CONTEXTS = ["{v}", "export OPENAI_API_KEY={v}", "Authorization: Token {v}", "Authorization: Bearer {v}",
            "Authorization: SSWS {v}", "api_key = \"{v}\"", '{{"token": "{v}"}}', "password: {v}",
            "GITHUB_TOKEN={v} gh release create"]


@examples(deep=400, ci=200, deadline=None)
@given(masked_values, st.sampled_from(CONTEXTS))
def test_a_masked_value_stays_whole(value: str, context: str) -> None:
    text = context.format(v=value)
    assert redact(text) == (text, 0)


@examples(deep=400, ci=200, deadline=None)
@given(st.one_of(angle_placeholders, variable_placeholders),
       st.sampled_from([c for c in CONTEXTS[2:] if "api_key" not in c and "password" not in c]))
def test_a_placeholder_stays_whole(value: str, context: str) -> None:
    text = context.format(v=value)
    assert redact(text) == (text, 0)


@examples(deep=200, ci=100, deadline=None)
@given(angle_placeholders, st.sampled_from(["api_key = \"{v}\"", "password: {v}", "client_secret={v}"]))
def test_an_angle_placeholder_assigned_stays_whole(value: str, context: str) -> None:
    text = context.format(v=value)
    assert redact(text) == (text, 0)


@examples(deep=120, ci=60, deadline=None)
@given(st.sampled_from(sorted(DOCUMENTED_EXAMPLES)),
       st.sampled_from(["{v}", "aws_access_key_id = {v}", "AWS_SECRET_ACCESS_KEY={v}", "`{v}`",
                        "the docs use {v} as the example", '{{"example": "{v}"}}']))
def test_a_documented_example_stays_whole(value: str, context: str) -> None:
    text = context.format(v=value)
    assert redact(text) == (text, 0)


def test_a_real_looking_key_beside_an_example_is_still_redacted() -> None:
    text = "AKIAIOSFODNN7EXAMPLE and AKIAFAKE0123456789AB"
    redacted, count = redact(text)
    assert "AKIAIOSFODNN7EXAMPLE" in redacted and "AKIAFAKE0123456789AB" not in redacted and count > 0
