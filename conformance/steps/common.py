"""Helpers several step modules share (a plain module, not a step module: no ``_steps`` suffix)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def id_list(text: str) -> list[Any]:
    """The words of a step's id list, ``null`` standing for JSON null."""
    return [None if word == "null" else word for word in text.split()]


def js_json(value: Any) -> str:
    """``JSON.stringify`` for the plain values of an envelope (strings, integers, lists, objects)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def symlink(link: Path, target: Path) -> None:
    """Create a symbolic link, or fail naming the platform primitive the scenario needs."""
    try:
        link.symlink_to(target)
    except (OSError, NotImplementedError) as exc:  # INTERPRETING: fail, naming the missing primitive
        raise AssertionError(f"this platform cannot create a symbolic link (needed primitive: symlink): {exc}") from None
