"""The per-source lexical engine (contract §2.6, §7.7): scope in SQL before LIMIT, eligibility,
the diagnostic score, engine order, dedup and degraded modes.

The tables are built here the way the indexer fills them: one ``entries`` row and one FTS row
(same ``searchable_text``) per entry, joined through ``entries_fts_keys``, and the narrow
``entry_filters`` row of migration 4 (session number, type and role codes, time, id).
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.primitives.codes import Code
from reference.primitives.textunits import chars_v1_tokens
from reference.recall.candidate_rows import RetrievalQuery, fts_match_expression
from reference.recall.index_schema import ROLE_CODES, TYPE_CODES
from reference.recall.match_text import contains_token, dedup_key, fold_for_match
from reference.recall.query_terms import describe_query
from reference.recall.retrieval import (
    RetrievalResult,
    SourceEntries,
    candidate_window,
    retrieve,
)

SESSION = "sess-1"
SCHEMA = """
CREATE TABLE entries(
  entry_key TEXT PRIMARY KEY, session_id TEXT, entry_id TEXT, parent_id TEXT, entry_type TEXT,
  role TEXT, created_at INTEGER NULL, content_hash TEXT, searchable_text TEXT,
  token_estimate INTEGER, indexed_at INTEGER);
CREATE VIRTUAL TABLE entries_fts USING fts5(searchable_text, tokenize='unicode61 remove_diacritics 2');
CREATE TABLE entries_fts_keys(fts_rowid INTEGER PRIMARY KEY, entry_key TEXT UNIQUE);
CREATE TABLE session_numbers(session_no INTEGER PRIMARY KEY, session_id TEXT UNIQUE);
CREATE TABLE entry_filters(
  fts_rowid INTEGER PRIMARY KEY, session_no INTEGER, type_code INTEGER, role_code INTEGER,
  created_at INTEGER, entry_id TEXT);
"""


@dataclass(frozen=True)
class Row:
    entry_id: str
    text: str
    created_at: int | None = None
    role: str | None = "user"
    entry_type: str = "message"
    tokens: int | None = None
    session_id: str = SESSION


def make_db(rows: Sequence[Row]) -> sqlite3.Connection:
    """An in-memory index holding ``rows`` (token estimate defaults to chars-v1 of the text)."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    for row in rows:
        key = f"{row.session_id}:{row.entry_id}"
        tokens = chars_v1_tokens(row.text) if row.tokens is None else row.tokens
        conn.execute(
            "INSERT INTO entries VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, 0)",
            (key, row.session_id, row.entry_id, row.entry_type, row.role, row.created_at, f"hash-{key}", row.text, tokens),
        )
        rowid = conn.execute("INSERT INTO entries_fts(searchable_text) VALUES (?)", (row.text,)).lastrowid
        conn.execute("INSERT INTO entries_fts_keys VALUES (?, ?)", (rowid, key))
        conn.execute("INSERT OR IGNORE INTO session_numbers(session_id) VALUES (?)", (row.session_id,))
        conn.execute(
            "INSERT INTO entry_filters SELECT ?, session_no, ?, ?, ?, ? FROM session_numbers WHERE session_id = ?",
            (rowid, TYPE_CODES.get(row.entry_type, 0), None if row.role is None else ROLE_CODES.get(row.role, 0),
             row.created_at, row.entry_id, row.session_id),
        )
    return conn


def run(
    conn: sqlite3.Connection,
    query: str,
    authorized: Sequence[str] | set[str],
    *,
    exact: bool = True,
    fts: bool = True,
    roles: Sequence[str] | None = None,
    before: int | None = None,
    after: int | None = None,
    summaries: bool = False,
    max_results: int = 12,
) -> RetrievalResult:
    (result,) = retrieve(
        conn,
        [SourceEntries(SESSION, authorized)],
        RetrievalQuery(describe_query(query), summaries, roles, before, after, exact, fts, max_results),
    )
    return result


def ids(result: RetrievalResult) -> list[str]:
    return [hit.entry_id for hit in result.hits]


EXACT_ONLY = pytest.mark.parametrize(("exact", "fts"), [(True, False), (False, True)], ids=["exact", "fts"])


# --- §7.7: scope before LIMIT -------------------------------------------------------------------


def starvation_db() -> sqlite3.Connection:
    return make_db([Row(f"entry-{index}", "LastExportUtc original decision", created_at=index) for index in range(40)])


def test_an_unscoped_limit_starves_the_authorized_row() -> None:
    conn = starvation_db()
    exact_rows = conn.execute(
        "SELECT entry_id FROM entries WHERE instr(searchable_text, ?) > 0 ORDER BY created_at DESC LIMIT 6",
        ("LastExportUtc",),
    ).fetchall()
    fts_rows = conn.execute(
        "SELECT e.entry_id FROM entries_fts JOIN entries_fts_keys AS k ON k.fts_rowid = entries_fts.rowid"
        " JOIN entries AS e ON e.entry_key = k.entry_key WHERE entries_fts MATCH ?"
        " ORDER BY bm25(entries_fts), e.created_at DESC LIMIT 6",
        ('"LastExportUtc"',),
    ).fetchall()
    assert len(exact_rows) == len(fts_rows) == 6
    assert ("entry-0",) not in exact_rows and ("entry-0",) not in fts_rows


@EXACT_ONLY
def test_the_engine_finds_the_only_authorized_row(exact: bool, fts: bool) -> None:
    result = run(starvation_db(), "LastExportUtc original decision", {"entry-0"}, exact=exact, fts=fts, max_results=1)
    assert result.status == "ok"
    assert ids(result) == ["entry-0"]
    assert result.alternate_branch_candidates == 0


@EXACT_ONLY
def test_150_unauthorized_siblings_never_hide_the_ancestor(exact: bool, fts: bool) -> None:
    rows = [Row("ancestor", "We chose the ReleaseTrain rollout plan", created_at=1)]
    rows += [Row(f"sib-{index:03d}", f"ReleaseTrain rollout plan v{index}", created_at=1000 + index) for index in range(150)]
    result = run(make_db(rows), "ReleaseTrain rollout", {"ancestor"}, exact=exact, fts=fts, max_results=6)
    assert ids(result) == ["ancestor"]
    assert result.alternate_branch_candidates == 0


@EXACT_ONLY
@pytest.mark.parametrize("field", ["role", "before", "type"])
def test_every_filter_runs_before_the_limit(exact: bool, fts: bool, field: str) -> None:
    # 100 newer authorized decoys fail only the filter under test; a window filled by them
    # (6 rows for one result) would hide the target.
    def decoy(index: int) -> Row:
        kind = "compaction" if field == "type" else "message"
        role = "assistant" if field == "role" else "user"
        return Row(f"d{index:03d}", f"ReleaseTrain {index}", created_at=1000 + index, role=role, entry_type=kind)

    rows = [Row("target", "the ReleaseTrain rollout", created_at=5), *(decoy(index) for index in range(100))]
    result = run(
        make_db(rows),
        "ReleaseTrain",
        {row.entry_id for row in rows},
        exact=exact,
        fts=fts,
        roles=["user"] if field == "role" else None,
        before=500 if field == "before" else None,
        max_results=1,
    )
    assert ids(result) == ["target"]


def test_candidate_window() -> None:
    assert [candidate_window(n) for n in (1, 6, 12, 17, 20, 200)] == [6, 36, 72, 100, 100, 200]


def test_the_exact_window_is_newest_first_within_scope() -> None:
    # 80 authorized rows match; the window for 12 results is 72 rows, newest first. The 8 oldest
    # never become candidates, and the newest win the recency bonus.
    rows = [Row(f"e{index:02d}", f"Marker{index:02d} `Token` text", created_at=index) for index in range(80)]
    result = run(make_db(rows), "`Token`", {row.entry_id for row in rows}, fts=False)
    assert result.candidate_count == 72
    assert ids(result) == [f"e{index:02d}" for index in range(79, 67, -1)]


# --- filters --------------------------------------------------------------------------------------


def role_db() -> sqlite3.Connection:
    return make_db(
        [
            Row("u", "kettle from the user", role="user", created_at=1),
            Row("a", "kettle from the assistant", role="assistant", created_at=2),
            Row("t", "kettle from a tool", role="toolResult", created_at=3),
            Row("n", "kettle without a role", role=None, created_at=4),
        ]
    )


@EXACT_ONLY
def test_roles_filter(exact: bool, fts: bool) -> None:
    query = "`kettle`" if exact else "kettle"
    everyone = {"u", "a", "t", "n"}
    assert sorted(ids(run(role_db(), query, everyone, exact=exact, fts=fts))) == ["a", "n", "t", "u"]
    assert ids(run(role_db(), query, everyone, exact=exact, fts=fts, roles=["assistant"])) == ["a"]
    assert sorted(ids(run(role_db(), query, everyone, exact=exact, fts=fts, roles=["user", "toolResult", "user"]))) == [
        "t",
        "u",
    ]
    empty = run(role_db(), query, everyone, exact=exact, fts=fts, roles=[])
    assert (empty.status, empty.hits, empty.candidate_count) == ("ok", (), 0)


def date_db() -> sqlite3.Connection:
    return make_db(
        [
            Row("t100", "kettle one", created_at=100),
            Row("t200", "kettle two", created_at=200),
            Row("t300", "kettle three", created_at=300),
            Row("none", "kettle undated", created_at=None),
        ]
    )


@EXACT_ONLY
@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (None, None, ["none", "t100", "t200", "t300"]),
        (200, None, ["t100"]),
        (None, 200, ["t300"]),
        (300, 100, ["t200"]),
        (301, 99, ["t100", "t200", "t300"]),
        (200, 199, []),
    ],
)
def test_dates_are_strict_and_null_never_matches(
    exact: bool, fts: bool, before: int | None, after: int | None, expected: list[str]
) -> None:
    query = "`kettle`" if exact else "kettle"
    result = run(date_db(), query, {"t100", "t200", "t300", "none"}, exact=exact, fts=fts, before=before, after=after)
    assert sorted(ids(result)) == expected


def type_db() -> sqlite3.Connection:
    kinds = ["message", "custom_message", "compaction", "branch_summary", "custom", "model_change"]
    return make_db([Row(kind, f"kettle in a {kind}", entry_type=kind, created_at=1) for kind in kinds])


@EXACT_ONLY
def test_entry_types_with_and_without_summaries(exact: bool, fts: bool) -> None:
    query = "`kettle`" if exact else "kettle"
    everything = {"message", "custom_message", "compaction", "branch_summary", "custom", "model_change"}
    plain = run(type_db(), query, everything, exact=exact, fts=fts)
    assert sorted(ids(plain)) == ["custom_message", "message"]
    with_summaries = run(type_db(), query, everything, exact=exact, fts=fts, summaries=True)
    assert sorted(ids(with_summaries)) == ["branch_summary", "compaction", "custom_message", "message"]


@EXACT_ONLY
def test_authorization_and_sessions(exact: bool, fts: bool) -> None:
    conn = make_db(
        [
            Row("mine", "kettle here", created_at=1),
            Row("other", "kettle there", created_at=2),
            Row("mine", "kettle elsewhere", created_at=3, session_id="sess-2"),
        ]
    )
    query = "`kettle`" if exact else "kettle"
    assert ids(run(conn, query, {"mine"}, exact=exact, fts=fts)) == ["mine"]
    assert run(conn, query, {"mine"}, exact=exact, fts=fts).hits[0].entry_key == f"{SESSION}:mine"
    nothing = run(conn, query, set(), exact=exact, fts=fts)
    assert (nothing.status, nothing.hits, nothing.candidate_count) == ("ok", (), 0)


def test_empty_text_is_never_eligible() -> None:
    conn = make_db([Row("empty", "", created_at=1), Row("full", "kettle", created_at=2)])
    assert ids(run(conn, "kettle", {"empty", "full"})) == ["full"]


# --- eligibility: verified FTS matches --------------------------------------------------------------


def test_fts_rows_need_a_whole_token_match_after_folding() -> None:
    conn = make_db(
        [
            Row("accent", "Un CAFÉ au lait", created_at=1),
            # SQLite splits tokens at U+0305 (not one of its diacritics), so FTS returns this row
            # for "kettle"; the verification counts marks as token characters and rejects it.
            Row("mark", "kettle\u0305bar", created_at=2),
        ]
    )
    assert conn.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH '\"kettle\"'").fetchone() == (1,)
    cafe = run(conn, "cafe", {"accent", "mark"}, exact=False)
    assert ids(cafe) == ["accent"] and cafe.hits[0].match_reason == "lexical-match"
    kettle = run(conn, "kettle", {"accent", "mark"}, exact=False)
    assert (kettle.status, kettle.hits, kettle.candidate_count) == ("ok", (), 1)


def test_fold_and_whole_token_agree_with_javascript() -> None:
    # Expected values from Node 24 running the upstream lexicalMatchText / lexicalTermPattern.
    # Marks go only after Latin letters: the Greek accent stays, decomposed; final sigma as JS.
    assert fold_for_match("Ḗ É e\u0301 Σίσυφος İ") == "e e e \u03c3\u03b9\u0301\u03c3\u03c5\u03c6\u03bf\u03c2 i"
    assert fold_for_match("ΟΔΟΣ") == "\u03bf\u03b4\u03bf\u03c2"
    assert contains_token(fold_for_match("Un CAFÉ, svp"), fold_for_match("café"))
    assert contains_token(fold_for_match("src/app.ts:12"), fold_for_match("app.ts"))
    assert not contains_token(fold_for_match("cafés"), fold_for_match("café"))
    assert not contains_token(fold_for_match("x\ue000cafe"), fold_for_match("cafe"))  # private use is a token char
    assert contains_token(fold_for_match("x_cafe"), fold_for_match("cafe"))  # "_" separates, as in unicode61


# Letters whose base letter the JavaScript fold reaches through two marks, where SQLite's
# remove_diacritics 2 table stops: a term with the base letter verifies, SQLite does not match.
_FOLD_EXCEPTIONS = {0x1E0, 0x1E1, 0x1E2, 0x1E3, 0x1EE, 0x1EF, 0x1FC, 0x1FD, 0x1FE, 0x1FF}


def test_the_fold_matches_sqlite_unicode61_on_latin_letters() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2')")
    disagreements = set()
    for code in [*range(0xC0, 0x250), *range(0x1E00, 0x1F00)]:
        char = chr(code)
        if unicodedata.category(char)[0] != "L":
            continue
        text = f"word q{char}q end"
        conn.execute("DELETE FROM t")
        conn.execute("INSERT INTO t VALUES (?)", (text,))
        base = unicodedata.normalize("NFD", char)[0].lower()
        for term in {f"q{char}q", f"q{fold_for_match(char)}q", f"q{base}q"}:
            sqlite_match = conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (f'"{term}"',)).fetchone()[0] == 1
            if sqlite_match != contains_token(fold_for_match(text), fold_for_match(term)):
                disagreements.add(code)
    assert disagreements == _FOLD_EXCEPTIONS


# --- score, order, reason ----------------------------------------------------------------------------


def test_score_of_exact_identifiers() -> None:
    conn = make_db([Row("x", "alphaOne and betaTwo", tokens=0, created_at=5)])
    (hit,) = run(conn, "`alphaOne` `betaTwo`", {"x"}, fts=False).hits
    # 100 + 3*(2-1) identifiers, 2 symbols * 10, 15 branch, 8 user; one candidate: no recency.
    assert hit.score == 100 + 3 + 20 + 15 + 8
    assert (hit.match_reason, hit.literal_priority) == ("exact-identifier", 2)


def test_score_of_phrases() -> None:
    conn = make_db([Row("x", "the original decision and the retry policy", role="assistant", tokens=0)])
    (hit,) = run(conn, '"original decision" "retry policy"', {"x"}, fts=False).hits
    assert hit.score == 85 + 2 + 15 + 5
    assert (hit.match_reason, hit.literal_priority) == ("exact-phrase", 1)


def test_score_of_files_symbols_and_errors() -> None:
    conn = make_db([Row("x", "src/app.ts failed with ENOENT", role="toolResult", tokens=0)])
    terms = describe_query("see src/app.ts ENOENT")
    assert (terms.exact_identifiers, terms.files, terms.symbols, terms.errors) == (
        ("src/app.ts", "app.ts", "ENOENT"),
        ("src/app.ts",),
        ("app.ts", "ENOENT"),
        ("ENOENT",),
    )
    (hit,) = run(conn, "see src/app.ts ENOENT", {"x"}, fts=False).hits
    # 100 + min(12, 3*2); file 12; symbols 2*10; error 12; branch 15; toolResult 4.
    assert hit.score == 106 + 12 + 20 + 12 + 15 + 4


def test_score_of_fts_terms_row_order_recency_and_length() -> None:
    conn = make_db(
        [
            Row("all", "kettle teapot saucer", tokens=0, created_at=0),
            Row("new", "kettle alone", role="bashExecution", tokens=5000, created_at=300),
            Row("mid", "teapot alone", role="custom", tokens=40_000, created_at=100),
        ]
    )
    result = run(conn, "kettle teapot saucer", {"all", "new", "mid"}, exact=False)
    scores = {hit.entry_id: hit.score for hit in result.hits}
    # 60 + (10 - row index in the bm25 order) + 40 per extra term (at most 2), then branch,
    # role, recency (linear over 0..300) and minus min(12, tokens / 1000).
    order = [row for (row,) in conn.execute(
        "SELECT e.entry_id FROM entries_fts JOIN entries_fts_keys AS k ON k.fts_rowid = entries_fts.rowid"
        " JOIN entries AS e ON e.entry_key = k.entry_key WHERE entries_fts MATCH ?"
        " ORDER BY bm25(entries_fts), e.created_at DESC, e.entry_id", ('"kettle" OR "teapot" OR "saucer"',))]  # fmt: skip
    assert scores["all"] == 60 + 10 - order.index("all") + 80 + 15 + 8 + 0
    assert scores["new"] == 60 + 10 - order.index("new") + 15 + 4 + 8 - 5
    assert scores["mid"] == round(60 + 10 - order.index("mid") + 15 + 1 + 8 / 3 - 12, 6)
    assert all(hit.match_reason == "lexical-match" and hit.literal_priority == 0 for hit in result.hits)


def test_scores_are_rounded_to_six_decimals() -> None:
    conn = make_db([Row("a", "`Token` a", tokens=1, created_at=0), Row("b", "`Token` b", tokens=0, created_at=3),
                    Row("c", "`Token` c", tokens=0, created_at=1)])  # fmt: skip
    scores = {hit.entry_id: hit.score for hit in run(conn, "`Token`", {"a", "b", "c"}, fts=False).hits}
    base = 100 + 10 + 15 + 8
    assert scores == {"a": base - 0.001, "b": base + 8, "c": base + 2.666667}


def test_literal_priority_outranks_a_higher_score() -> None:
    conn = make_db(
        [
            Row("literal", "Zeta", tokens=20_000, created_at=1),  # "eta" is inside a word: no FTS term
            Row("lexical", "kettle teapot saucer", tokens=0, created_at=2),
        ]
    )
    result = run(conn, "`eta` kettle teapot saucer", {"literal", "lexical"})
    assert ids(result) == ["literal", "lexical"]
    literal, lexical = result.hits
    assert literal.score < lexical.score
    assert (literal.match_reason, lexical.match_reason) == ("exact-identifier", "lexical-match")


def test_ties_go_to_newer_then_to_code_point_order() -> None:
    rows = [Row(entry_id, f"`Token` {entry_id}", tokens=0, created_at=7) for entry_id in ("b", "a", "é", "Z")]
    rows.append(Row("undated", "`Token` undated", tokens=0, created_at=None))
    result = run(make_db(rows), "`Token`", {row.entry_id for row in rows}, fts=False)
    # Same score and time: ascending code points (D5), not localeCompare's a, b, é, Z.
    assert ids(result) == ["Z", "a", "b", "é", "undated"]


def test_one_reason_even_when_everything_matches() -> None:
    conn = make_db([Row("x", "the original decision about LastExportUtc", created_at=1)])
    (hit,) = run(conn, 'LastExportUtc "original decision"', {"x"}).hits
    assert (hit.match_reason, hit.literal_priority) == ("exact-identifier", 2)


# --- dedup and the result cap ----------------------------------------------------------------------


def test_duplicates_by_normalized_text_keep_the_first_in_engine_order() -> None:
    conn = make_db(
        [
            Row("old", "Kettle  Report\n", role="assistant", created_at=1),
            Row("new", " kettle report", role="user", created_at=2),
            Row("nbsp", "KETTLE\u00a0REPORT", role="assistant", created_at=0),
            Row("other", "kettle other report", role="assistant", created_at=0),
        ]
    )
    result = run(conn, "kettle", {"old", "new", "nbsp", "other"})
    assert ids(result) == ["new", "other"]
    assert result.duplicate_candidates == 2
    assert dedup_key("\u3000 A\t\u2028B \ufeff") == "a b"
    assert dedup_key("A\x85B") == "a\x85b"  # U+0085 is not JavaScript whitespace


def test_at_most_max_results_hits() -> None:
    rows = [Row(f"e{index:02d}", f"kettle number {index}", created_at=index) for index in range(30)]
    conn = make_db(rows)
    assert len(run(conn, "kettle", {row.entry_id for row in rows}).hits) == 12
    assert len(run(conn, "kettle", {row.entry_id for row in rows}, max_results=3).hits) == 3


# --- statuses and degraded modes ---------------------------------------------------------------------


def test_a_query_without_terms_is_no_query() -> None:
    result = run(starvation_db(), "please fix this with that", {"entry-0"})
    assert result == RetrievalResult(status="no-query")


def test_disabled_when_no_search_kind_is_on() -> None:
    result = run(starvation_db(), "LastExportUtc", {"entry-0"}, exact=False, fts=False)
    assert result == RetrievalResult(status="disabled")


def test_fts_failure_keeps_exact_hits_and_warns() -> None:
    conn = make_db([Row("x", "LastExportUtc original decision", created_at=1)])
    conn.execute("DROP TABLE entries_fts")
    both = run(conn, "LastExportUtc original", {"x"})
    assert (both.status, ids(both), both.warnings) == ("ok", ["x"], (Code.RETRIEVAL_DEGRADED,))
    fts_only = run(conn, "LastExportUtc original", {"x"}, exact=False)
    assert (fts_only.status, fts_only.hits, fts_only.warnings) == ("ok", (), (Code.RETRIEVAL_DEGRADED,))


def test_exact_failure_fails_the_source_without_hits() -> None:
    conn = make_db([Row("x", "LastExportUtc original decision", created_at=1)])

    def deny_instr(action: int, _arg1: str | None, name: str | None, *_: object) -> int:
        return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_FUNCTION and name == "instr" else sqlite3.SQLITE_OK

    conn.set_authorizer(deny_instr)
    assert run(conn, "LastExportUtc original", {"x"}) == RetrievalResult(status="failed")
    lexical = run(conn, "LastExportUtc original", {"x"}, exact=False)
    assert (lexical.status, ids(lexical)) == ("ok", ["x"])


def test_fts_match_expression() -> None:
    assert fts_match_expression(['say "hi"', "Foo", "foo", "bar"]) == '"say ""hi""" OR "Foo" OR "bar"'
    assert fts_match_expression([f"t{index}" for index in range(20)]).count(" OR ") == 15


# --- property: every hit is authorized and eligible ----------------------------------------------------

_WORDS = ["kettle", "Kettle", "KETTLE", "café", "cafe", "CAFÉ", "ReleaseTrain", "src/app.ts", "app", "ts", "ENOENT",
          "x_y", "tea", "teapot", "naïve", "e\u0301t\u00e9", "the", "original decision", "fooBar", "-", ".", "  "]  # fmt: skip
_QUERY_PIECES = ["kettle", "`Kettle`", "cafe", "café", "`src/app.ts`", "ENOENT", "ReleaseTrain", '"original decision"',
                 "teapot", "fooBar", "naïve", "`x_y`", "étÉ", "please"]  # fmt: skip
_TYPES = ["message", "custom_message", "compaction", "branch_summary", "custom"]
_ROLES = ["user", "assistant", "toolResult", "bashExecution", "custom", "summary", None]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[Row], set[str], dict[str, object]]:
    count = draw(st.integers(0, 25))
    rows = [
        Row(
            f"e{index}",
            " ".join(draw(st.lists(st.sampled_from(_WORDS), max_size=6))),
            created_at=draw(st.none() | st.integers(0, 50)),
            role=draw(st.sampled_from(_ROLES)),
            entry_type=draw(st.sampled_from(_TYPES)),
            tokens=draw(st.integers(0, 30_000)),
        )
        for index in range(count)
    ]
    authorized = {row.entry_id for row in rows if draw(st.booleans())}
    options: dict[str, object] = {
        "query": " ".join(draw(st.lists(st.sampled_from(_QUERY_PIECES), min_size=1, max_size=4))),
        "roles": draw(st.none() | st.lists(st.sampled_from([r for r in _ROLES if r]), max_size=3)),
        "before": draw(st.none() | st.integers(0, 50)),
        "after": draw(st.none() | st.integers(0, 50)),
        "summaries": draw(st.booleans()),
        "exact": draw(st.booleans()),
        "fts": draw(st.booleans()),
        "max_results": draw(st.integers(1, 12)),
    }
    return rows, authorized, options


@examples(deep=150, ci=75, deadline=None)
@given(scenarios())
def test_every_hit_is_authorized_and_eligible(scenario: tuple[list[Row], set[str], dict[str, object]]) -> None:
    rows, authorized, options = scenario
    query = str(options["query"])
    roles = options["roles"]
    before, after = options["before"], options["after"]
    assert roles is None or isinstance(roles, list)
    assert before is None or isinstance(before, int)
    assert after is None or isinstance(after, int)
    result = run(
        make_db(rows),
        query,
        authorized,
        exact=bool(options["exact"]),
        fts=bool(options["fts"]),
        roles=roles,
        before=before,
        after=after,
        summaries=bool(options["summaries"]),
        max_results=int(str(options["max_results"])),
    )
    terms = describe_query(query)
    by_id = {row.entry_id: row for row in rows}
    types = {"message", "custom_message"} | ({"compaction", "branch_summary"} if options["summaries"] else set())
    assert len(result.hits) <= int(str(options["max_results"]))
    assert result.alternate_branch_candidates == 0
    assert len({dedup_key(hit.searchable_text) for hit in result.hits}) == len(result.hits)
    for hit in result.hits:
        row = by_id[hit.entry_id]
        assert hit.entry_id in authorized
        assert row.entry_type in types and row.text
        assert roles is None or row.role in roles
        assert before is None or (row.created_at is not None and row.created_at < before)
        assert after is None or (row.created_at is not None and row.created_at > after)
        exact_hit = options["exact"] and any(term in row.text for term in terms.exact_identifiers)
        phrase_hit = options["exact"] and any(phrase in row.text for phrase in terms.phrases)
        folded = fold_for_match(row.text)
        token_hit = options["fts"] and any(contains_token(folded, fold_for_match(term)) for term in terms.terms)
        assert exact_hit or phrase_hit or token_hit
        expected_reason = "exact-identifier" if exact_hit else "exact-phrase" if phrase_hit else "lexical-match"
        assert hit.match_reason == expected_reason


@examples(deep=60, ci=60, deadline=None)
@given(st.integers(0, 200), st.integers(1, 12), st.booleans())
def test_one_authorized_row_is_found_behind_any_number_of_siblings(siblings: int, limit: int, exact: bool) -> None:
    rows = [Row("ancestor", "the ReleaseTrain rollout", created_at=0)]
    rows += [Row(f"s{index}", f"ReleaseTrain rollout {index}", created_at=index + 1) for index in range(siblings)]
    result = run(make_db(rows), "ReleaseTrain", {"ancestor"}, exact=exact, fts=not exact, max_results=limit)
    assert ids(result) == ["ancestor"]
