"""What the host tells the history tools (decisions D9): the facts Pi knows and a Python process
does not, as one value the tools, the scope and the hits read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference.pi.leaf import DEFAULT_LEAF, Leaf


@dataclass
class HistoryHost:
    """What Pi knows and a Python process does not (D9), as the host sets it.

    ``provider_at_leaf``: the provider is Pi's at the leaf and not looked up yet; the first tool
    call finds it in the index it has just caught up (else by reading the file), so a one-shot
    never parses the session before its index is current.
    """

    session_file: str | None
    project_path: str
    project_trusted: bool
    config: Mapping[str, Any]
    provider: str | None = None
    leaf: Leaf = DEFAULT_LEAF  # Pi's rule (last entry in file order), None, or an entry id
    session_id: str | None = None
    aborted: bool = False
    provider_at_leaf: bool = False
