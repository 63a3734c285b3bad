"""The compact scan of a rebase (docs/rebase.md, "Memory") against the plain read of the same lines,
on sessions the real Pi 0.84.3 wrote (``oracle/gen-sessions.mjs``: Pi's own 8-hex ids, branches,
compactions, odd strings): ids, parents, types, spans, the first invalid line, and the
tool-exchange issues of every leaf's branch against the plain analysis of the decoded entries."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import pi_oracle as _pi
from testkit.plain_scan import compact_facts, plain_scan

from reference.pi.exact.context import UnbuildableContext, entry_to_messages
from reference.pi.exact.toolexchange import exchange_issues
from reference.pi.model.entry_ids import is_pi_id
from reference.pi.model.session import scan_source
from reference.rebase.archive import exchange_issues_of

pytestmark = pytest.mark.oracle

SEED = 20250613
SESSION_COUNT = 20


def outcome(compute: object) -> object:
    try:
        return sorted(compute())  # type: ignore[operator]
    except UnbuildableContext:
        return "unbuildable"


def test_the_compact_scan_of_pi_sessions_equals_a_plain_read(tmp_path: Path) -> None:
    _pi.generate_sessions(tmp_path / "random", seed=SEED, count=SESSION_COUNT)
    _pi.generate_sessions(tmp_path / "tour", seed=SEED, count=0, tour=True)
    paths = sorted(tmp_path.rglob("*.jsonl"))
    assert len(paths) >= SESSION_COUNT
    pi_shaped = 0
    for path in paths:
        scan = scan_source(str(path))
        assert compact_facts(scan) == plain_scan(path), path.name
        pi_shaped += sum(1 for entry_id in dict(scan.ids.items()) if is_pi_id(entry_id))
        for leaf in range(scan.entry_count):
            branch = scan.ancestry(leaf)
            entries = scan.decode_many(branch)
            plain = outcome(lambda entries=entries: exchange_issues(
                [m for e in entries for m in entry_to_messages(e)]))
            assert outcome(lambda scan=scan, branch=branch: exchange_issues_of(scan, branch)) == plain, (path.name, leaf)
    assert pi_shaped > 0  # Pi's own ids took the compact path
