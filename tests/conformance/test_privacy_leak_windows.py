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


def leaked_by_every_substring(outputs: list[str], labels: CorpusLabels) -> list[str]:
    """The oracle of ``leaked``: every substring of each output of a window's length, looked up."""
    owners: dict[str, list[str]] = {}
    for secret in labels.secrets:
        for gram in set(windows(secret.sensitive)):
            owners.setdefault(gram, []).append(secret.id)
    sizes = sorted({len(gram) for gram in owners})
    found: set[str] = set()
    for text in outputs:
        grams = {text[start : start + size] for size in sizes for start in range(len(text) - size + 1)}
        for gram in owners.keys() & grams:
            found.update(owners[gram])
    return [secret.id for secret in labels.secrets if secret.id in found]


ALPHABET = string.ascii_letters + string.digits + "-_ \n\\\"/+=" + "abcdef0123"


@examples(deep=400, ci=150)
@given(st.lists(st.text(ALPHABET, min_size=0, max_size=40), min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 40), st.integers(0, 20), st.text(ALPHABET, max_size=6)),
                max_size=6))
def test_one_pass_over_each_output_finds_what_every_substring_finds(sensitives: list[str],
                                                                  cuts: list[tuple[int, int, int, str]]) -> None:
    secrets = tuple(Secret(id=f"s{n}", role="user", entry_id=f"e{n}", term=f"t{n}", family="f", position="plain",
                           sensitive=text) for n, text in enumerate(sensitives))
    labels = CorpusLabels(version=1, seed=0, session="x", families=(), secrets=secrets, near_misses=())
    outputs = [noise + sensitives[which % len(sensitives)][start : start + length] + noise
               for which, start, length, noise in cuts]
    assert leaked(outputs, labels) == leaked_by_every_substring(outputs, labels)


def test_on_the_corpus_the_one_pass_finds_what_every_substring_finds() -> None:
    from conformance.privacy_corpus import load_corpus
    from conformance.privacy_walk import envelope_text

    corpus = load_corpus()
    outputs = [envelope_text(record) for record in corpus.records[::7]]
    expected = leaked_by_every_substring(outputs, corpus.labels)
    assert leaked(outputs, corpus.labels) == expected and len(expected) > 20
