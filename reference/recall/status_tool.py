"""``context_history_status`` (contract §4): whether the current session is indexed, and how
many of its entries, without catching up."""

from __future__ import annotations

from reference.recall.catchup_state import index_state, rows_missing
from reference.recall.envelope import StatusResult
from reference.recall.history_state import HistoryState
from reference.recall.model_facts import load_seal
from reference.recall.scope import current_session


def run_status(service: HistoryState) -> StatusResult:
    with service.connection() as conn:  # runtime access comes before the session (§4)
        _session_file, session_id = current_session(service.host)  # else ephemeral-session
        state = index_state(conn, session_id)
        if (state is not None and load_seal(conn, session_id) is None
                and rows_missing(conn, session_id, state.indexed_entries)):  # a valid seal proves none
            state = None  # the next recall rebuilds it (D15): not "complete" until then
    return StatusResult(service.history_config["defaultScope"], None if state is None else state.indexed_entries)
