"""The leak oracle of the privacy corpus walks (conformance/privacy_walk.py): what counts as a
secret seen in an output.  A window of a secret is 8 characters, or 12 when they are all hex
digits: a port's 32-hex operation ids meet some 8-hex window of the corpus's hex secrets by chance
about once in 550 runs (350 ids a run, 897 hex windows: 350 * 25 * 897 / 16**8), which failed
PRIVACY-103[local] once on a clean reference (7468bb5)."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from conformance.privacy_corpus import CorpusLabels, Secret
from conformance.privacy_walk import HEX_WINDOW, WINDOW, leaked, windows

SECRET = "dop_v1_c6ed51a5ddfa333e32e7f05f48f3d139d02021bf3fb7ff1a666ef38e502af289"


def labels_of(sensitive: str) -> CorpusLabels:
    secret = Secret(id="s1", role="user", entry_id="e1", term="kestrel-s1", family="f", position="plain",
                    sensitive=sensitive)
    return CorpusLabels(version=1, seed=0, session="x", families=(), secrets=(secret,), near_misses=())


def test_eight_hex_digits_inside_an_id_are_chance_not_a_leak() -> None:
    output = '{"operationId":"rebase_00' + SECRET[20:28] + '0000000000000000000000"}'
    assert SECRET[20:28] in output and all(c in string.hexdigits for c in SECRET[20:28])
    assert leaked([output], labels_of(SECRET)) == []


def test_twelve_hex_digits_are_a_leak() -> None:
    assert leaked(["id 00" + SECRET[20 : 20 + HEX_WINDOW] + "00"], labels_of(SECRET)) == ["s1"]
    assert leaked(["id 00" + SECRET[20 : 20 + HEX_WINDOW - 1] + "z"], labels_of(SECRET)) == []


def test_eight_characters_that_are_not_all_hex_are_a_leak() -> None:
    assert leaked(["x dop_v1_c y"], labels_of(SECRET)) == ["s1"]  # the prefix: 8 characters
    assert leaked(["x dop_v1_ y"], labels_of(SECRET)) == []  # 7 before the end of the run


def test_a_short_hex_secret_is_found_whole() -> None:
    """A hex run shorter than 12 is a window of its own length (at least 8): it is still found."""
    assert list(windows("deadbeef99")) == ["deadbeef99"]
    assert leaked(["..deadbeef99.."], labels_of("deadbeef99")) == ["s1"]


@examples(deep=500, ci=100)
@given(st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=WINDOW, max_size=60))
def test_every_secret_is_found_in_an_output_that_holds_it_whole(secret: str) -> None:
    assert leaked([f"before {secret} after"], labels_of(secret)) == ["s1"]
