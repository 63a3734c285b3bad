"""§6.16: the before-compaction hook cancels exactly while a rebase is active or once the
compaction's abort signal has fired (the COMPACT scenarios run it through a real rebase)."""

from __future__ import annotations

import pytest

from reference.config.defaults import default_config
from reference.rebase.host import RebaseHost
from reference.rebase.service import RebaseService


@pytest.mark.parametrize(("active", "aborted", "answer"), [
    (False, False, {}),
    (False, True, {"cancel": True}),
    (True, False, {"cancel": True}),
    (True, True, {"cancel": True}),
])
def test_the_hook_cancels_while_active_or_aborted(active: bool, aborted: bool, answer: dict[str, bool]) -> None:
    service = RebaseService(RebaseHost(session_file=None, project_path="/p", project_trusted=True,
                                       config=default_config()))
    service.active = active
    assert service.before_compact(signal_aborted=aborted) == answer


def test_what_pi_runs_during_the_switch_runs_before_the_switch_is_decided() -> None:
    host = RebaseHost(session_file=None, project_path="/p", project_trusted=True, config=default_config(),
                      activation="cancel")
    seen: list[str] = []
    host.during_switch.append(lambda: seen.append("asked"))
    assert host.switch_session("/never/opened.jsonl") is None
    assert seen == ["asked"]
