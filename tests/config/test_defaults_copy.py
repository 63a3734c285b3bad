"""``default_config()`` is a fresh copy of the built-in defaults, whatever makes it (the oracle:
``copy.deepcopy``): equal, of the same types at every level, and shared with nothing."""

from __future__ import annotations

import copy
from typing import Any

from reference.config.defaults import DEFAULT_CONFIG, default_config


def _shape(value: Any) -> Any:
    """The value with every leaf replaced by its type's name (``1`` and ``1.0`` differ)."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return type(value).__name__


def _containers(value: Any) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(n for item in value.values() for n in _containers(item))]
    if isinstance(value, list):
        return [id(value), *(n for item in value for n in _containers(item))]
    return []


def test_a_fresh_copy_is_the_deep_copy_of_the_defaults() -> None:
    fresh, oracle = default_config(), copy.deepcopy(DEFAULT_CONFIG)
    assert fresh == oracle and _shape(fresh) == _shape(oracle)
    assert list(fresh) == list(oracle)  # the keys' order too


def test_no_two_copies_share_a_container_and_changing_one_changes_nothing_else() -> None:
    first, second = default_config(), default_config()
    assert not set(_containers(first)) & (set(_containers(second)) | set(_containers(DEFAULT_CONFIG)))
    first["historyTools"]["allowProjectScope"] = not first["historyTools"]["allowProjectScope"]
    assert default_config() == copy.deepcopy(DEFAULT_CONFIG) != first
