"""The lineage the ``current-lineage`` recall scope adds (contract §2.5 step 3, §6.13).

Upstream the runtime verifies a session's lineage when the session opens and recall reuses the
result.  A host here has no "open" event, so the verification is remembered per current file,
leaf and source files (size and mtime): a changed file, a moved leaf or a touched source
verifies again.  Only verified pairs on the active branch count; ``parentSession`` never does.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from typing import Any, Final

from reference.lineage.chain import RebaseState, is_projected, load_rebase_state, project_pairs
from reference.pi.leaf import DEFAULT_LEAF, LeafChoice
from reference.pi.model.session import branch_customs
from reference.primitives.platform_ops.identity import size_and_mtime
from reference.primitives.platform_ops.paths import real_path

_REMEMBERED: Final = 16


class LineageCache:
    """Verified lineage per (current file, leaf), while none of the files involved changed."""

    def __init__(self) -> None:
        self._states: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], RebaseState]] = OrderedDict()

    def state(self, session_file: str, leaf: Any, project_path: str, conn: sqlite3.Connection) -> RebaseState:
        key = (real_path(session_file), leaf if isinstance(leaf, (str, LeafChoice)) or leaf is None else repr(leaf),
               project_path)
        remembered = self._states.get(key)
        current = size_and_mtime(session_file)
        if remembered is not None:
            stamps, state = remembered
            if stamps == (current, *(size_and_mtime(s.session_file) for s in state.sources)):
                self._states.move_to_end(key)
                if state.verified and not is_projected(conn, state):
                    project_pairs(conn, state.pairs)  # the index was deleted since: project again
                return state
        branch = branch_customs(session_file, leaf) if isinstance(leaf, str) or leaf is DEFAULT_LEAF else []
        state = load_rebase_state(session_file, branch, project_path, conn=conn)
        self._states[key] = ((current, *(size_and_mtime(s.session_file) for s in state.sources)), state)
        while len(self._states) > _REMEMBERED:
            self._states.popitem(last=False)
        return state
