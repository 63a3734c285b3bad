"""The warm session facts on sessions written by the real Pi 0.84.3: for every leaf Pi can be
asked about (its default leaf, none, every entry id), the header id and the model provider at
the leaf read from the index (``reference.recall.model_facts``) are those of the full parse
(``parsed_session_facts``) and Pi's own ``buildSessionContext().model.provider``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

from reference.pi.leaf import DEFAULT_LEAF
from reference.recall.catchup import catch_up
from reference.recall.index_schema import open_index
from reference.recall.model_facts import indexed_session_facts, parsed_session_facts

pytestmark = pytest.mark.oracle

SEED = int(os.environ.get("PI_ORACLE_SEED", "20250601"))
SESSIONS = 16
MIN_PAIRS = 400


def _leaf(answer: dict[str, Any]) -> Any:
    leaf = answer["leaf"]
    return DEFAULT_LEAF if isinstance(leaf, dict) else leaf


def _pi_provider(answer: dict[str, Any]) -> str | None:
    if "contextError" in answer:
        return None
    model = json.loads(answer["contextJson"]["settings"]).get("model")
    provider = model.get("provider") if isinstance(model, dict) else None
    return provider if isinstance(provider, str) else None


def test_warm_facts_are_pi_s_on_pi_written_sessions(tmp_path: Path) -> None:
    manifest = _pi.generate_sessions(tmp_path / "sessions", seed=SEED, count=SESSIONS, tour=True)
    files = [s["file"] for s in manifest["sessions"]] + list(manifest["tour"]["files"].values())
    index = tmp_path / "index.sqlite"
    conn = open_index(index)
    for file in files:
        catch_up(conn, file)
    conn.close()
    pairs = warm_answers = 0
    providers: set[str | None] = set()
    for answer in _pi.ask_pi({"file": f, "leaves": "all"} for f in files):
        assert "error" not in answer, answer
        leaf = _leaf(answer)
        expected = (answer["header"]["id"], _pi_provider(answer))
        assert parsed_session_facts(answer["file"], leaf) == expected, (answer["file"], leaf)
        warm = indexed_session_facts(answer["file"], leaf, str(index))
        if warm is not None:
            warm_answers += 1
            assert warm == expected, (answer["file"], leaf, warm)
        providers.add(expected[1])
        pairs += 1
    assert pairs >= MIN_PAIRS
    assert warm_answers >= pairs * 0.9, f"the warm path answered only {warm_answers} of {pairs}"
    assert len(providers) >= 3  # several providers and no provider at all were compared
