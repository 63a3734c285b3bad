"""The stored branch (``reference/recall/branch_store.py``) on sessions written by the real Pi 0.84.3.

Seeded sessions from Pi's ``SessionManager`` (``oracle/gen-sessions.mjs``: forks, compactions,
branch summaries, second roots, labels); Pi's ``pathIds`` for every leaf.  One index per
session; the leaves are asked in a seeded order, so stored branches are kept, moved (a fork
close by) and built.  Claims:

1. the stored branch of every leaf (default, ``null`` aside, each entry) is Pi's ``pathIds``,
   as a set, and what the walk of ``active_branch`` (SQLite's recursive query, ``branch_ids``) gives;
2. after appends to a copy (a chain below the default leaf, a fork from an earlier entry), the
   stored branch of the new default leaf and of the fork's leaf is the plain walk's.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

pytestmark = pytest.mark.oracle

SEED = 20250611
SESSIONS = 10


def _stored(conn: Any, session_id: str, leaf: Any) -> set[str]:
    from reference.pi.leaf import DEFAULT_LEAF
    from reference.recall.branch_store import SessionIds, load_branch, prepare_branch
    from reference.recall.model_facts import default_leaf_id

    prepare_branch(conn, session_id, leaf)
    conn.execute("BEGIN")
    try:
        leaf_id = default_leaf_id(conn, session_id) if leaf is DEFAULT_LEAF else leaf
        stored = load_branch(conn, session_id, leaf_id)
        assert stored is not None, (session_id, leaf)
        return set(SessionIds(conn, session_id, stored.branch_no))
    finally:
        conn.execute("ROLLBACK")


def _plain(conn: Any, session_id: str, leaf: Any) -> set[str]:
    from reference.recall.active_branch import branch_ids

    return set(branch_ids(conn, session_id, leaf))


def test_stored_branch_is_pis_path_for_every_leaf(tmp_path: Path) -> None:
    from reference.pi.leaf import DEFAULT_LEAF
    from reference.recall.catchup import catch_up
    from reference.recall.index_schema import open_index

    manifest = _pi.generate_sessions(tmp_path / "sessions", seed=SEED, count=SESSIONS)
    files = [s["file"] for s in manifest["sessions"]]
    answers: dict[str, list[dict[str, Any]]] = {f: [] for f in files}
    for answer in _pi.ask_pi({"file": f, "leaves": "all"} for f in files):
        answers[answer["file"]].append(answer)
    checked = 0
    rng = random.Random(SEED)
    for number, file in enumerate(files):
        conn = open_index(tmp_path / f"index-{number}.sqlite")
        session_id = catch_up(conn, file).session_id
        leaves = [a for a in answers[file] if a["leaf"] is not None]
        rng.shuffle(leaves)
        for answer in leaves:
            leaf = DEFAULT_LEAF if isinstance(answer["leaf"], dict) else answer["leaf"]
            expected = {i for i in answer["pathIds"] if isinstance(i, str)}
            assert _stored(conn, session_id, leaf) == expected == _plain(conn, session_id, leaf), (file, leaf)
            checked += 1
        _appended(conn, file, session_id, tmp_path / f"copy-{number}.jsonl", rng)
    assert checked >= SESSIONS * 5


def _appended(conn: Any, file: str, session_id: str, copy: Path, rng: random.Random) -> None:
    """Appends to a copy (the index follows the copy): a chain, then a fork from an earlier entry."""
    from reference.pi.leaf import DEFAULT_LEAF
    from reference.recall.catchup import catch_up
    from reference.recall.model_facts import default_leaf_id

    shutil.copyfile(file, copy)
    catch_up(conn, str(copy))  # another path: a rebuild
    _stored(conn, session_id, DEFAULT_LEAF)
    ids = [row[0] for row in conn.execute("SELECT entry_id FROM entries WHERE session_id = ?", (session_id,))]
    for round_, kind in enumerate(("chain", "fork", "chain")):
        parent = default_leaf_id(conn, session_id) if kind == "chain" else rng.choice(ids)
        with copy.open("ab") as stream:
            for n in range(3):
                entry_id = f"ap{round_}{n:05d}"
                stream.write((json.dumps({
                    "type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
                    "message": {"role": "user", "content": f"appended {round_}", "timestamp": 1767225600000},
                }) + "\n").encode("utf-8"))
                parent = entry_id
        catch_up(conn, str(copy))
        for leaf in (DEFAULT_LEAF, rng.choice(ids), DEFAULT_LEAF):
            assert _stored(conn, session_id, leaf) == _plain(conn, session_id, leaf), (copy, kind, leaf)
