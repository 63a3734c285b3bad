"""``context_history_status`` (contract §4): whether the current session is indexed, and how
many of its entries, without catching up."""

from __future__ import annotations

import os

from reference.primitives.codes import Code
from reference.recall.catchup_state import index_state, rows_missing
from reference.recall.envelope import StatusResult, Unavailable
from reference.recall.history_state import HistoryState
from reference.recall.model_facts import load_seal


def run_status(service: HistoryState) -> StatusResult | Unavailable:
    host = service.host
    session_file = host.session_file
    if not session_file or not os.path.isfile(session_file) or host.session_id is None:
        return Unavailable(Code.EPHEMERAL_SESSION)
    with service.connection() as conn:
        state = index_state(conn, host.session_id)
        if (state is not None and load_seal(conn, host.session_id) is None
                and rows_missing(conn, host.session_id, state.indexed_entries)):  # a valid seal proves none
            state = None  # the next recall rebuilds it (D15): not "complete" until then
    return StatusResult(service.history_config["defaultScope"], None if state is None else state.indexed_entries)
