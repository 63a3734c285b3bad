"""Query term extraction (contract §2.6.1): the upstream ``describeTask`` on JavaScript regex rules.

Every expected value here was checked against Node 24.19 running the upstream regular
expressions on the same input (docs/retrieval.md, "How the port was checked"); the JavaScript
quirks are pinned on purpose (ASCII ``\\b``, ``/iu`` case folding, JavaScript whitespace).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.recall.query_terms import STOPWORDS, QueryTerms, describe_query, unique_terms


def test_backticks_force_exact_identifiers() -> None:
    terms = describe_query("why did `LastExportUtc` change in src/export/job.ts?")
    assert terms.exact_identifiers == ("LastExportUtc", "src/export/job.ts", "job.ts")
    assert terms.files == ("src/export/job.ts",)
    assert terms.symbols == ("LastExportUtc", "job.ts")
    assert terms.keywords == ("lastexportutc", "change", "export")
    # ``lastexportutc`` is a case-insensitive duplicate of the identifier: kept once, first form.
    assert terms.terms == ("LastExportUtc", "src/export/job.ts", "job.ts", "change", "export")


def test_backtick_span_bounds_and_whitespace() -> None:
    terms = describe_query("`a b` `x` `ab` `LastExportUtc` `" + "y" * 161 + "`")
    # 2..160 characters; a span with whitespace is an identifier but never a symbol.
    assert terms.exact_identifiers == ("a b", "ab", "LastExportUtc")
    assert terms.symbols == ("ab", "LastExportUtc")
    # Matches do not overlap: `x`y`zz` gives only "zz" (``x`` is too short, ``y`` is between).
    assert describe_query("`x`y`zz`").exact_identifiers == ("zz",)


def test_javascript_whitespace() -> None:
    # Trimmed with JavaScript's set (U+3000, BOM), so the span is found; U+00A0 is ``\s``, so a
    # span holding it is no symbol; U+0085 is whitespace for Python only, so it stays.
    assert describe_query("\u3000`ab`\ufeff").terms == ("ab",)
    nbsp = describe_query("`\u00a0ab`")
    assert (nbsp.exact_identifiers, nbsp.symbols) == (("ab",), ())
    nel = describe_query("`\x85ab`")
    assert (nel.exact_identifiers, nel.symbols) == (("\x85ab",), ("\x85ab",))


def test_quoted_phrases() -> None:
    terms = describe_query("the \"original decision\" about 'retry policy' and \"abc\" and \"    \"")
    # The text between the quotes of "abc" and "    " is itself a quoted span (" and " -> "and");
    # "abc" is too short; a span of spaces trims to nothing and is dropped.
    assert terms.phrases == ("original decision", "and", "retry policy")
    assert terms.terms[:3] == ("original decision", "and", "retry policy")
    assert describe_query("say \"it's fine\" now").phrases == ("it's fine",)


def test_at_most_eight_phrases() -> None:
    terms = describe_query(" ".join(f'"phrase number {index}"' for index in range(10)))
    assert terms.phrases == tuple(f"phrase number {index}" for index in range(8))


def test_file_like_tokens() -> None:
    terms = describe_query("e.g. v1.2.3 ../up/one.md ./here.js @scope/pkg@1.0.json C:\\repo\\file.tsx")
    assert terms.files == ("e.g", "v1.2.3", "../up/one.md", "./here.js", "@scope/pkg@1.0.json", "C:\\repo\\file.tsx")
    assert terms.symbols == ("e.g", "one.md", "here.js", "file.tsx")
    many = describe_query(" ".join(f"f{index}.ts" for index in range(20)))
    assert many.files == tuple(f"f{index}.ts" for index in range(16))
    # The qualified names carry all 20 into the symbols, so the identifiers still hold every file.
    assert len(many.exact_identifiers) == 20


def test_qualified_names_use_ascii_word_boundaries() -> None:
    terms = describe_query("foo::bar::Baz obj.method.call $scope.value café.résumé")
    # ``$scope``: JavaScript ``\b`` needs a word character on one side, so the name starts at "s".
    assert terms.symbols == ("foo::bar::Baz", "obj.method.call", "scope.value", "Baz")
    assert terms.exact_identifiers == ("obj.method.call", "scope.value", "foo::bar::Baz", "Baz")
    # ``é`` is not a JavaScript word character: "Perché" yields the symbol "Perch".
    assert describe_query("Perché").symbols == ("Perch",)
    assert describe_query("Café").terms == ("Caf", "café")


def test_flags_follow_javascript_iu_case_folding() -> None:
    terms = describe_query("--verbose --Dry-run x--notflag --ſtrict --\u212aelvin")
    # /iu lets U+017F (long s) and U+212A (Kelvin sign) match [a-z]; x--notflag is no flag.
    assert terms.symbols == ("--verbose", "--Dry-run", "--ſtrict", "--\u212aelvin", "Dry-run", "x--notflag")


def test_symbol_words() -> None:
    terms = describe_query("snake_case kebab-case camelCase PascalCase ALLCAPS Abc A1 aB plain")
    assert terms.symbols == ("snake_case", "kebab-case", "camelCase", "PascalCase", "ALLCAPS", "Abc")
    # Stopwords never become symbols, whatever their case.
    assert describe_query("This Would Thanks").terms == ()


def test_error_codes() -> None:
    terms = describe_query(
        "ENOENT EACCES SIGTERM ERR_MODULE_NOT_FOUND SQLITE_BUSY HTTP404 TS2345 E_FAIL CS0246 EFOO Error"
    )
    assert terms.errors == (
        "ENOENT", "EACCES", "SIGTERM", "ERR_MODULE_NOT_FOUND", "SQLITE_BUSY", "HTTP404", "TS2345",
        "E_FAIL", "CS0246", "EFOO",
    )  # fmt: skip
    many = describe_query(" ".join(f"E_CODE{index}" for index in range(15)))
    assert many.errors == tuple(f"E_CODE{index}" for index in range(12))


def test_keywords() -> None:
    terms = describe_query("Perché über naïve 2024 ١٢٣٤ ΟΔΟΣ x_y a-b-c")
    # Lower-cased Unicode letters/numbers, 4+ code points; only ASCII digit runs are dropped
    # (JavaScript ``\d``), so Arabic-Indic digits stay; the final sigma follows JavaScript.
    assert terms.keywords == ("perché", "über", "naïve", "١٢٣٤", "οδος", "a-b-c")
    many = describe_query(" ".join(f"word{index:02d}x" for index in range(30)))
    assert many.keywords == tuple(f"word{index:02d}x" for index in range(20))


@pytest.mark.parametrize("query", ["please fix this with that", "the a an of is", "  ", "", "1234 56789"])
def test_stopwords_and_short_words_give_no_terms(query: str) -> None:
    assert describe_query(query) == QueryTerms((), (), (), (), (), (), ())


def test_stopword_list_is_the_upstream_one() -> None:
    assert len(STOPWORDS) == 81
    assert {"about", "aggiungi", "perche", "your", "fix"} <= STOPWORDS


def test_terms_are_capped_at_24() -> None:
    terms = describe_query(" ".join(f"`ident{index}`" for index in range(30)) + " extra keywords here")
    assert terms.exact_identifiers == tuple(f"ident{index}" for index in range(24))
    assert terms.terms == terms.exact_identifiers


def test_the_query_is_cut_at_20000_utf16_units() -> None:
    assert describe_query("x " * 10_000 + "Tail").terms == ()
    assert describe_query("x " * 9_990 + "Tail").terms == ("Tail",)
    # An astral character counts twice: 9,998 of them fill 19,996 units, leaving room for " Tai".
    assert describe_query("😀" * 9_998 + " Tail").terms == ("Tai",)
    assert describe_query("😀" * 9_997 + " Tail").terms == ("Tail",)


def test_unique_terms() -> None:
    assert unique_terms([" Foo ", "foo", "", "  ", "BAR", "bar", "baz"], 2) == ("Foo", "BAR")


_PIECES = st.sampled_from(
    ["`Ident`", '"a quoted phrase"', "src/a.ts", "ENOENT", "--flag", "camelCase", "the", "über", "x::y", " ", "\n"]
)


@examples(deep=200, ci=200)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=30).map("".join))
def test_term_invariants(query: str) -> None:
    terms = describe_query(query)
    assert len(terms.terms) <= 24 and len(terms.exact_identifiers) <= 24
    assert len(terms.phrases) <= 8 and len(terms.files) <= 16 and len(terms.symbols) <= 20
    assert len(terms.errors) <= 12 and len(terms.keywords) <= 20
    lowered = [term.lower() for term in terms.terms]
    assert len(set(lowered)) == len(lowered)
    assert all(term for term in terms.terms)
    assert all(re.fullmatch(r"[0-9]+", keyword) is None for keyword in terms.keywords)
    assert set(terms.terms) <= set(terms.exact_identifiers) | set(terms.phrases) | set(terms.keywords)
