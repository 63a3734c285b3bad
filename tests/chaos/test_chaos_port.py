"""The chaos port (issue 23): Hypothesis breaks the reference's answers in every way the protocol
can be broken, a schedule per run, and every run keeps the invariants of :mod:`chaos.invariants`;
rows the chaos did not touch keep the reference's verdict (PASS).

A run is ``conformance run --id 'PRIM-001*'``: 17 rows of one ``json.canonicalize`` request each,
whose ``text`` names the row, so the server's log says which rows each broken answer touched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.paths import REPO_ROOT
from testkit.ports import kill_recorded

from chaos import tally
from chaos.budget import chaos_settings
from chaos.chaos_port import KINDS
from chaos.invariants import run_against
from chaos.reference_server import Answered, ReferenceServer, Schedule, reference_server

ROWS = "PRIM-001*"
FEATURE = REPO_ROOT / "features" / "primitives" / "primitives.feature"
#: A kind that costs a request timeout (or a flood) is drawn a tenth as often as the cheap ones, a
#: clean answer about one time in six; the simplest schedule Hypothesis draws (index 0) is all
#: lone surrogates, the bug of issue 23.
COSTLY = frozenset({"hang", "torn-hang", "linger", "stdout-flood", "big-line", "stderr-flood"})
FIRST = "lone-surrogate-escape"
DRAWN = [FIRST, *["clean"] * 40, *[kind for kind in sorted(set(KINDS) - {"clean"})
                                   for _ in range(1 if kind in COSTLY else 10 if kind != FIRST else 9)]]
#: The kinds that leave the row's verdict as the reference's (in sync, the right answer).
HARMLESS = frozenset({"clean", "delay", "stderr-flood"})


def rows_by_text() -> dict[str, str]:
    """PRIM-001's rows by the JSON text each one sends (its Examples table's ``input``)."""
    text = FEATURE.read_text(encoding="utf-8")
    block = text[text.index("@id:PRIM-001"): text.index("@id:PRIM-002")]
    rows: dict[str, str] = {}
    for line in block.splitlines():
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) == 3 and cells[0] != "case":
            rows[cells[1]] = f"PRIM-001[{cells[0]}]"
    return rows


ROW_OF = rows_by_text()


def touched(log: list[Answered]) -> set[str]:
    """The rows a broken answer touched: its own, and the next row's (in run order: the feature's)
    when the kind spoils the port's next request (that request may never reach the server)."""
    order = list(ROW_OF.values())
    rows: set[str] = set()
    for entry in log:
        if entry.cmd != "request" or entry.kind in HARMLESS:
            continue
        row = ROW_OF[entry.params["text"]]
        rows.add(row)
        if KINDS[entry.kind][1] and row != order[-1]:
            rows.add(order[order.index(row) + 1])
    return rows


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with reference_server() as served:
        yield served


@pytest.fixture(autouse=True)
def seed_of_the_run(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    given_seed = request.config.getoption("hypothesis_seed")
    generated = getattr(request.function, "_hypothesis_internal_use_generated_seed", None)
    tally.SEEDS[request.node.name] = given_seed if given_seed is not None else generated


@chaos_settings()
@given(kinds=st.lists(st.sampled_from(DRAWN), min_size=17, max_size=17))
def test_no_broken_answer_spoils_the_run(server: ReferenceServer, tmp_path_factory: pytest.TempPathFactory,
                                         kinds: list[str]) -> None:
    folder = tmp_path_factory.mktemp("chaos")
    state = folder / "port"
    state.mkdir()
    server.schedule = schedule = Schedule(lambda n, op: kinds[n] if n < len(kinds) else "clean")
    try:
        run = run_against(server.port_command(state), folder, state, "--id", ROWS, "--timeout", "2")
    finally:
        kill_recorded(state)
    applied = [entry.kind for entry in schedule.log if entry.cmd == "request" and entry.kind != "clean"]
    tally.RUNS["runs"] += 1
    tally.BEHAVIOURS.update(applied)
    tally.progress(len(applied), run.seconds)
    assert run.problems == (), run.problems
    assert sorted(run.rows) == sorted(ROW_OF.values())  # every selected row, once (the report has unique ids)
    assert {entry.params["text"] for entry in schedule.log if entry.cmd == "request"} <= set(ROW_OF)
    spoiled = touched(schedule.log)
    changed = {row_id for row_id, row in run.rows.items() if row["status"] != "PASS"}
    assert changed <= spoiled, (changed - spoiled, kinds)
    assert run.code == (1 if changed else 0)
    assert run.seconds < 100
