"""Counts a run keeps for its end-of-run summary, carried from pytest-xdist's workers to the controller.

Under ``-n N`` each worker is a separate process with its own module globals and ``config.stash``;
the controller runs no test, so what the tests count is only in the workers. A worker hands its
counts over in ``pytest_sessionfinish`` (``hand_over``: into ``config.workeroutput``, which xdist
sends with the worker's last message) and the controller adds them up in ``pytest_testnodedown``
(``handed_over``: ``node.workeroutput``). Only the controller prints a summary or writes a report
(``on_worker``). Counts taken from test reports (``pytest_runtest_logreport``) need none of this:
the controller receives every worker's reports. Without xdist (``-n 0``, ``-p no:xdist``) the one
process is the controller and nothing is handed over.

The values must be what execnet can send: dicts, lists, tuples, strings, numbers, None (a
``Counter`` goes over as a plain ``dict``).
"""

from __future__ import annotations

from typing import Any


def on_worker(config: Any) -> bool:
    """Whether this process is an xdist worker (which hands its counts over and prints nothing)."""
    return hasattr(config, "workerinput")


def hand_over(config: Any, name: str, counts: object) -> None:
    """On a worker, send ``counts`` to the controller under ``name``; elsewhere nothing."""
    if on_worker(config):
        config.workeroutput[name] = counts


def handed_over(node: Any, name: str) -> Any:
    """What the finished worker ``node`` sent under ``name`` (None when it sent nothing)."""
    return getattr(node, "workeroutput", {}).get(name)
