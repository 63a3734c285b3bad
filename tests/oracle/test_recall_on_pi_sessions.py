"""History recall on sessions written by the real Pi 0.84.3, judged by Pi's own tree.

Two seeded sets of session files come from Pi's ``SessionManager`` (``oracle/gen-sessions.mjs``),
both with the temp project folder as header ``cwd``:

* ``--recall`` sessions: every searchable place holds a marker word found nowhere else, and every
  message the word ``pelican``. Each has a main line with one or two compactions (the first keeps
  only the last pre-compaction turn, so earlier user messages leave Pi's context), another branch
  from before the compaction, a ``branchWithSummary`` branch, a second root (``resetLeaf``),
  sometimes a third one (``branchWithSummary(null)``), labels, a session name, custom entries and
  ``context_history_*`` tool traffic. The manifest says where each word is, so the exact hit set
  of each query is known.
* ordinary random sessions (the set ``test_context_matches_pi.py`` uses), queried with their
  vocabulary; here only the ancestry and relation rules are checked.

The ancestry of each leaf is what Pi reports (``pathIds`` from ``oracle/pi-oracle.mjs``); the
context at the leaf is Pi's ``contextEntryIds``. The history service is built the way
``reference/history_host.py`` builds it (``HistoryHostState.open``: temp home and agent dir,
``--approve``, the header cwd as project path), and leaves are moved with ``history.setLeaf``.

Claims, over every (session, leaf, query) triple:

1. ``current-branch`` returns only entries Pi lists in ``pathIds`` for that leaf, labelled
   ``ancestor``; for marker sessions exactly the in-scope entries holding a query word.
2. ``current-session`` labels each hit ``ancestor`` when Pi lists it in ``pathIds`` and
   ``other-branch`` otherwise; for marker sessions it finds every entry holding a query word.
3. A user message from before a compaction, absent from Pi's context at the leaf, is still
   recalled there, and ``context_history_read`` returns its content verbatim; no session file
   changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

pytestmark = pytest.mark.oracle

#: Fixed so failures reproduce; PI_ORACLE_SEED explores other sets (as in test_context_matches_pi).
SEED = int(os.environ.get("PI_ORACLE_SEED", "20250601"))
RECALL_SESSIONS = 8
RANDOM_SESSIONS = 16
RANDOM_LEAVES_PER_SESSION = 14
RANDOM_QUERIES_PER_LEAF = 3
LIMIT = 12
COMMON_WORD = "pelican"
MIN_TRIPLES_PER_SCOPE = 2500

#: Where a generator word can sit, and whether recall may return it (contract §3.4, §2.6).
FOUND = {"user-string", "user-blocks", "assistant-text", "assistant-toolcall", "toolResult", "bash",
         "custom_message", "message-custom"}
SUMMARY = {"compaction", "branch_summary"}  # only with includeSummaries
NEVER = {"assistant-thinking", "assistant-toolcall-history", "toolResult-history", "label", "session_info", "custom"}

#: Queries for the random sessions, from the generator's vocabulary (words, folding, identifiers).
RANDOM_QUERIES = ["build script", "session", "rebase refactor", "cafe", "naïve Straße", "function error",
                  "`a/b/c`", "test file path", "quoted single", "`$HOME`", "日本語", "json"]


# --------------------------------------------------------------------------- the Pi-written world


@dataclass
class PiSession:
    """One session file, and what Pi says about each of its leaves."""

    file: str
    session_id: str
    shape: str
    leaves: list[dict[str, Any]]  # Pi's answers, one per leaf
    places: list[dict[str, Any]] = field(default_factory=list)  # recall sessions only
    pre_compaction: list[dict[str, Any]] = field(default_factory=list)
    public_ids: dict[str, str] = field(default_factory=dict)  # public entry id -> entry id

    @property
    def name(self) -> str:
        return Path(self.file).name


@dataclass(frozen=True)
class Query:
    text: str
    include_summaries: bool | None = None
    words: frozenset[str] = frozenset()  # the generator words in it (recall sessions)


@dataclass
class Disagreement:
    session: PiSession
    leaf: Any
    scope: str
    query: Query
    what: str
    expected: Any
    got: Any

    def render(self) -> str:
        leaf = "<default>" if isinstance(self.leaf, dict) else json.dumps(self.leaf)
        query = json.dumps(self.query.text, ensure_ascii=False)
        summaries = "" if self.query.include_summaries is None else f" includeSummaries={self.query.include_summaries}"
        return (f"{self.session.name} [{self.session.shape}] leaf={leaf} scope={self.scope} query={query}{summaries}: "
                f"{self.what}\n  expected: {_short(self.expected)}\n  got     : {_short(self.got)}")


def _short(value: Any, limit: int = 700) -> str:
    text = json.dumps(value, ensure_ascii=False, default=sorted)
    return text if len(text) <= limit else text[:limit] + "..."


def _sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _opaque(value: str) -> str:
    """How a result shows an id that cannot be shown as is (``reference.privacy.public_id``)."""
    return "opaque_" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:24]


def _host_leaf(pi_leaf: Any) -> Any:
    """A Pi oracle leaf as the history host takes it: DEFAULT_LEAF, None or an entry id."""
    from reference.pi.leaf import DEFAULT_LEAF

    return DEFAULT_LEAF if isinstance(pi_leaf, dict) else pi_leaf


class World:
    """The generated files, Pi's answers and one history host, built on first use in a test body."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._built = False
        self.recall_sessions: list[PiSession] = []
        self.random_sessions: list[PiSession] = []
        self.hashes: dict[str, str] = {}

    def build(self) -> World:
        if self._built:
            return self
        self.project = (self.root / "project").resolve()
        self.home = self.root / "home"
        self.agent = self.root / "home" / "agent"
        for folder in (self.project, self.agent):
            folder.mkdir(parents=True, exist_ok=True)
        # Room for every hit the assertions count: 12 results and the largest output budget.
        (self.agent / "ds4-context.json").write_text(
            json.dumps({"historyTools": {"maxResults": LIMIT, "maxOutputTokens": 6000}}), encoding="utf-8")
        recall_dir, random_dir = self.root / "recall-sessions", self.root / "random-sessions"
        cwd = ["--cwd", str(self.project)]
        _pi.run_node(_pi.GEN_SCRIPT, [str(recall_dir), "--seed", str(SEED), "--count", str(RECALL_SESSIONS),
                                      "--recall", *cwd])
        _pi.run_node(_pi.GEN_SCRIPT, [str(random_dir), "--seed", str(SEED), "--count", str(RANDOM_SESSIONS), *cwd])
        recall_manifest = json.loads((recall_dir / "manifest.json").read_text(encoding="utf-8"))
        random_manifest = json.loads((random_dir / "manifest.json").read_text(encoding="utf-8"))
        files = [s["file"] for s in recall_manifest["recall"]] + [s["file"] for s in random_manifest["sessions"]]
        self.hashes = {f: _sha256(f) for f in files}
        answers: dict[str, list[dict[str, Any]]] = {f: [] for f in files}
        for answer in _pi.ask_pi({"file": f, "leaves": "all"} for f in files):
            answers[answer["file"]].append(answer)
        for f, leaves in answers.items():
            broken = [a for a in leaves if "pathIds" not in a or a.get("fileUnchanged") is not True]
            assert leaves and not broken, f"Pi could not answer for {f}: {broken[:1]}"
        for s in recall_manifest["recall"]:
            self.recall_sessions.append(self._session(s["file"], answers[s["file"]], f"recall #{s['index']}",
                                                      s["places"], s["preCompaction"]))
        for s in random_manifest["sessions"]:
            shape = f"random #{s['index']}: " + ",".join(s["features"])
            self.random_sessions.append(self._session(s["file"], answers[s["file"]], shape, [], []))
        self.state = _history_host_state()
        self._built = True
        return self

    def _session(self, file: str, leaves: list[dict[str, Any]], shape: str, places: list[dict[str, Any]],
                 pre: list[dict[str, Any]]) -> PiSession:
        header = leaves[0]["header"]
        assert header["cwd"] == str(self.project), f"{file}: header cwd {header['cwd']!r}"
        ids = {i for a in leaves for i in a["pathIds"] if isinstance(i, str)}
        public = {i: i for i in ids} | {_opaque(i): i for i in ids}
        return PiSession(file, header["id"], shape, leaves, places, pre, public)

    @property
    def sessions(self) -> list[PiSession]:
        return self.recall_sessions + self.random_sessions

    def open(self, session: PiSession) -> Any:
        """``history.open`` for this session (refs survive), as the adapter and the CLI host do."""
        from reference.recall.host import HistoryOpening

        service = self.state.open(HistoryOpening.from_params({
            "home": str(self.home),
            "cwd": str(self.project),
            "env": {"PI_CODING_AGENT_DIR": str(self.agent)},
            "argv": ["--approve"],
            "sessionFile": session.file,
        }))
        assert service.host.session_id == session.session_id
        assert service.host.project_trusted is True
        assert service.host.config["historyTools"]["maxResults"] == LIMIT
        return service

    def set_leaf(self, pi_leaf: Any) -> None:
        self.state.require().host.leaf = _host_leaf(pi_leaf)  # history.setLeaf

    def changed_files(self) -> list[str]:
        return [f for f, digest in self.hashes.items() if _sha256(f) != digest]


def _history_host_state() -> Any:
    from reference.recall.host import HistoryHostState

    return HistoryHostState()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield World(tmp_path_factory.mktemp("recall-on-pi"))


# --------------------------------------------------------------------------- queries


def _marker_queries(session: PiSession, path: set[str], rng: random.Random) -> list[Query]:
    """Five queries whose exact answer the manifest fixes: the common word, on- and off-path markers."""
    markers = [p for p in session.places if p["word"] != COMMON_WORD]
    on = [p for p in markers if p["entryId"] in path and p["where"] in FOUND]
    off = [p for p in markers if p["entryId"] not in path]

    def spelled(word: str) -> str:
        return word if rng.random() < 0.5 else f"`{word}`"  # lexical (FTS) or exact identifier

    first = rng.choice(on or markers)
    second = rng.choice(off or markers)
    a, b = rng.sample(markers, 2)
    summary = rng.choice([p for p in markers if p["where"] in SUMMARY])
    return [
        Query(COMMON_WORD, rng.choice([None, True, False]), frozenset({COMMON_WORD})),
        Query(spelled(first["word"]), None, frozenset({first["word"]})),
        Query(spelled(second["word"]), None, frozenset({second["word"]})),
        Query(f"{spelled(a['word'])} {spelled(b['word'])}", None, frozenset({a["word"], b["word"]})),
        Query(spelled(summary["word"]), rng.random() < 0.7, frozenset({summary["word"]})),
    ]


def _expected_ids(session: PiSession, query: Query) -> set[str]:
    """Every entry a recall over the whole session must find for this query (before the limit)."""
    summaries = bool(query.include_summaries)  # the configured default is false
    return {p["entryId"] for p in session.places
            if p["word"] in query.words and (p["where"] in FOUND or (summaries and p["where"] in SUMMARY))}


def _leaves(session: PiSession, rng: random.Random) -> list[dict[str, Any]]:
    if session.places:
        return session.leaves  # every leaf: default, null and each entry
    fixed = session.leaves[:2]  # default and null
    rest = session.leaves[2:]
    return fixed + rng.sample(rest, min(len(rest), RANDOM_LEAVES_PER_SESSION - 2))


# --------------------------------------------------------------------------- the comparison


@dataclass
class Outcome:
    triples: int = 0
    files: set[str] = field(default_factory=set)
    disagreements: list[Disagreement] = field(default_factory=list)
    hits_checked: int = 0

    def fail_message(self, limit: int = 8) -> str:
        shown = "\n\n".join(d.render() for d in self.disagreements[:limit])
        more = len(self.disagreements) - limit
        tail = f"\n\n... and {more} more" if more > 0 else ""
        return (f"{len(self.disagreements)} disagreements with Pi over {self.triples} (session, leaf, query) "
                f"triples:\n\n{shown}{tail}")


def _recall(service: Any, scope: str, query: Query) -> dict[str, Any]:
    params: dict[str, Any] = {"query": query.text, "scope": scope, "limit": LIMIT}
    if query.include_summaries is not None:
        params["includeSummaries"] = query.include_summaries
    result: dict[str, Any] = service.recall(params).as_json()
    return result


def _check_scope(world: World, scope: str) -> Outcome:
    """Run ``scope`` recall over every (session, leaf, query) and judge each hit by Pi's pathIds."""
    outcome = Outcome()
    for session in world.sessions:
        rng = random.Random(f"{SEED}:{scope}:{session.name}")
        service = world.open(session)
        outcome.files.add(session.file)
        for answer in _leaves(session, rng):
            leaf = answer["leaf"]
            world.set_leaf(leaf)
            path = {i for i in answer["pathIds"] if isinstance(i, str)}
            if session.places:
                queries = _marker_queries(session, path, rng)
            else:
                queries = [Query(q) for q in rng.sample(RANDOM_QUERIES, RANDOM_QUERIES_PER_LEAF)]
            for query in queries:
                outcome.triples += 1
                result = _recall(service, scope, query)
                _judge(session, leaf, path, scope, query, result, outcome)
    return outcome


def _judge(session: PiSession, leaf: Any, path: set[str], scope: str, query: Query, result: dict[str, Any],
           outcome: Outcome) -> None:
    def disagree(what: str, expected: Any, got: Any) -> None:
        outcome.disagreements.append(Disagreement(session, leaf, scope, query, what, expected, got))

    if result.get("status") == "unavailable":
        disagree("recall was unavailable", "a recall result", result.get("warnings"))
        return
    if result.get("effectiveScope") != scope:
        disagree("effectiveScope", scope, result.get("effectiveScope"))
    got: list[str] = []
    for hit in result["hits"]:
        outcome.hits_checked += 1
        entry_id = session.public_ids.get(hit["entryId"])
        if hit["sessionId"] not in (session.session_id, _opaque(session.session_id)):
            disagree("hit from another session", session.session_id, hit["sessionId"])
            continue
        if entry_id is None:
            disagree("hit with an entry id Pi does not know", sorted(session.public_ids.values()), hit["entryId"])
            continue
        got.append(entry_id)
        ancestor = entry_id in path
        if scope == "current-branch" and not ancestor:
            disagree(f"hit {entry_id} is not an ancestor of the leaf (Pi pathIds)", sorted(path), entry_id)
        want = "ancestor" if ancestor else "other-branch"
        if hit["relation"] != want:
            disagree(f"relation of {entry_id} (Pi {'lists' if ancestor else 'does not list'} it in pathIds)",
                     want, hit["relation"])
    if len(set(got)) != len(got):
        disagree("the same entry returned twice", sorted(set(got)), got)
    if not session.places:
        return
    # Marker sessions: the hit set is known exactly.
    expected = _expected_ids(session, query)
    if scope == "current-branch":
        expected &= path
    warnings = result.get("warnings")
    if warnings:
        disagree("warnings on a clean Pi-written session", [], warnings)
    if len(expected) <= LIMIT:
        if set(got) != expected:
            disagree("hit set (missing / unexpected)", sorted(expected - set(got)), sorted(set(got) - expected))
    elif len(got) != LIMIT or not set(got) <= expected:
        disagree(f"{LIMIT} hits from the {len(expected)} entries holding a query word", sorted(expected), got)


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize(
    ("scope", "label"),
    [
        ("current-branch", "current-branch recall vs Pi pathIds"),
        ("current-session", "current-session relations vs Pi pathIds"),
    ],
    ids=["current-branch-returns-only-pi-ancestors", "current-session-labels-relations-by-pi-ancestry"],
)
def test_recall_agrees_with_pi_ancestry(world: World, triple_stats: Any, scope: str, label: str) -> None:
    world.build()
    outcome = _check_scope(world, scope)
    triple_stats.add(label, triples=outcome.triples, disagreements=len(outcome.disagreements),
                     files=len(outcome.files))
    assert not world.changed_files(), "recall changed a session file"
    assert outcome.triples >= MIN_TRIPLES_PER_SCOPE, f"only {outcome.triples} triples compared"
    assert outcome.hits_checked > outcome.triples, f"too few hits to judge ({outcome.hits_checked})"
    if outcome.disagreements:
        pytest.fail(outcome.fail_message(), pytrace=False)


def test_pre_compaction_original_is_recalled_and_read_verbatim(world: World, triple_stats: Any) -> None:
    world.build()
    problems: list[str] = []
    triples = 0
    originals = 0
    for session in world.recall_sessions:
        rng = random.Random(f"{SEED}:pre-compaction:{session.name}")
        before = _sha256(session.file)
        service = world.open(session)
        for original in session.pre_compaction:
            entry_id, word, content = original["entryId"], original["word"], original["content"]
            assert isinstance(content, str), "the generator records string user messages only"
            # Leaves where Pi has the message on the path but compacted out of the context.
            dropped = [a for a in session.leaves
                       if entry_id in a["pathIds"] and entry_id not in a["contextEntryIds"]]
            if not dropped:
                continue
            originals += 1
            for answer in rng.sample(dropped, min(4, len(dropped))):
                leaf = answer["leaf"]
                world.set_leaf(leaf)
                query = Query(rng.choice([word, f"`{word}`"]), None, frozenset({word}))
                triples += 1
                where = f"{session.name} leaf={_host_leaf(leaf)!r} query={query.text!r} (entry {entry_id})"
                recalled = _recall(service, "current-branch", query)
                hits = [h for h in recalled.get("hits", []) if session.public_ids.get(h["entryId"]) == entry_id]
                if recalled.get("status") != "complete" or len(recalled.get("hits", [])) != 1 or len(hits) != 1:
                    problems.append(f"{where}: expected exactly this entry, got {_short(recalled)}")
                    continue
                if hits[0]["relation"] != "ancestor" or hits[0]["kind"] != "message" or hits[0].get("role") != "user":
                    problems.append(f"{where}: hit fields {_short(hits[0])}")
                read = service.read({"sourceRef": hits[0]["sourceRef"]}).as_json()
                verbatim = read.get("text") == content and read.get("truncated") is False
                if read.get("status") != "complete" or not verbatim:
                    problems.append(f"{where}: read gave {_short(read)}, expected text {content!r}")
                elif read["source"]["entryId"] != hits[0]["entryId"] or read["source"]["relation"] != "ancestor":
                    problems.append(f"{where}: read source {_short(read['source'])}")
        after = _sha256(session.file)
        if after != before or after != world.hashes[session.file]:
            problems.append(f"{session.name}: SHA-256 changed from {before} to {after}")
    triple_stats.add("pre-compaction originals recalled and read", triples=triples, disagreements=len(problems),
                     files=len(world.recall_sessions))
    assert originals >= len(world.recall_sessions), (
        f"only {originals} pre-compaction user messages are out of Pi's context on some leaf")
    assert triples >= 2 * len(world.recall_sessions)
    if problems:
        pytest.fail(f"{len(problems)} problems over {triples} recalls:\n" + "\n".join(problems[:10]), pytrace=False)
