"""Steps for lead-in clauses of contract §6.2 that no earlier row checked (issue 26): a plain
rebase asked from a rebase target rebases that target, because the lineage source is taken only
when recovering (steps 10 to 13).

Nothing here imports the reference: the target header is read from disk (the interop format, D1).
"""

from __future__ import annotations

import json
import os

from pytest_bdd import then

from conformance import interop_layout
from conformance.world import RebaseWorld


@then("the newest rebase target names the first rebase target as its parentSession")
def then_target_of_target(rebase: RebaseWorld) -> None:
    assert len(rebase.results) >= 2, rebase.results
    first = interop_layout.target_path(rebase.source_dir, rebase.results[0]["operationId"])
    newest = rebase.target
    assert newest != first and newest.is_file(), (newest, first)
    header = json.loads(newest.read_text(encoding="utf-8").splitlines()[0])
    assert header.get("parentSession") == os.path.realpath(first), (header.get("parentSession"), str(first))
