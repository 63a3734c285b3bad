"""testkit.once: a costly session value is computed by one xdist worker and read by the others."""

from __future__ import annotations

import uuid

import pytest
from testkit.once import once_per_test_run


def test_under_xdist_the_value_is_computed_once_and_read_back(tmp_path_factory: pytest.TempPathFactory,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    calls: list[int] = []

    def compute() -> dict[str, object]:
        calls.append(1)
        return {"rows": [1, 2], "text": "é"}

    name = f"once-test-{uuid.uuid4().hex}"  # faked worker: the shared folder outlives this run
    try:
        first = once_per_test_run(tmp_path_factory, name, compute)
        second = once_per_test_run(tmp_path_factory, name, compute)
    finally:
        for suffix in (".json", ".json.lock"):
            (tmp_path_factory.getbasetemp().parent / f"{name}{suffix}").unlink(missing_ok=True)
    assert first == second == {"rows": [1, 2], "text": "é"}
    assert calls == [1]


def test_without_xdist_it_is_computed_every_time(tmp_path_factory: pytest.TempPathFactory,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    calls: list[int] = []
    for _ in range(2):
        once_per_test_run(tmp_path_factory, "once-test-plain", lambda: calls.append(1) or 0)
    assert calls == [1, 1]
