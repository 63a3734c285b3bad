"""What a valid Pi session entry is (upstream ``isPiSessionEntryRecord``).

One rule for every reader: a ``type`` that is a string other than ``session``, a string ``id``,
a ``parentId`` that is a string or null, and a string ``timestamp``.  The streaming reader and
the compact scan keep only these fields of a line (:func:`has_entry_fields`); a parsed line is
checked whole (:func:`is_pi_entry`).
"""

from __future__ import annotations

from typing import Any

from reference.primitives.jsonbytes import UNDEFINED


def has_entry_fields(entry_type: Any, entry_id: Any, parent_id: Any, timestamped: bool) -> bool:
    """The rule on an object's fields (``timestamped``: its ``timestamp`` is a string)."""
    return (isinstance(entry_type, str) and entry_type != "session" and isinstance(entry_id, str)
            and (parent_id is None or isinstance(parent_id, str)) and timestamped)


def is_pi_entry(value: Any) -> bool:
    """The rule on a parsed line: an object whose fields pass :func:`has_entry_fields`."""
    if not isinstance(value, dict):
        return False
    return has_entry_fields(value.get("type"), value.get("id"), value.get("parentId", UNDEFINED),
                            isinstance(value.get("timestamp"), str))
