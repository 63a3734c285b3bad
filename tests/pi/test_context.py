"""Context building on odd message shapes (the oracle covers the shapes Pi writes)."""

from __future__ import annotations

from typing import Any

import pytest

from reference.pi.exact.context import entry_to_messages


@pytest.mark.parametrize("role", [["user"], {"r": 1}, 7, None])
def test_a_role_that_is_not_a_string_is_kept_as_it_is(role: Any) -> None:
    message = {"role": role, "content": None}
    assert entry_to_messages({"type": "message", "message": message}) == [message]


def test_a_content_role_with_null_content_gets_an_empty_list() -> None:
    message = {"role": "user", "content": None}
    assert entry_to_messages({"type": "message", "message": message}) == [{"role": "user", "content": []}]
