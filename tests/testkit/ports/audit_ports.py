"""Ports for the AUDIT scenarios' own tests: the reference without an audit mapping, and a mutant
whose index is wrong in a way a port could plausibly get it wrong.

``--rr-adapter testkit.ports.audit_ports:NoAuditMapping`` declares every operation but no
``auditMapping``: its AUDIT scenarios are UNSUPPORTED. ``testkit.ports.audit_ports:PhaseInLowerCase``
projects each operation row's phase in lower case ("verified"), which nothing of the feature reads
back (contract §5.3), so only the audit sees it: AUDIT-101 fails with AUDIT-016.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from typing import Any

from reference.adapter.operations import ReferenceAdapter


class NoAuditMapping(ReferenceAdapter):
    """The reference, with a hello that names no audit mapping."""

    def start(self) -> Any:
        return dataclasses.replace(super().start(), audit_mapping=None)


class PhaseInLowerCase(ReferenceAdapter):
    """The reference, except that it projects each operation row's phase in lower case."""

    index_path: str | None = None

    def request(self, op: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if op == "rebase.open" and params.get("indexPath"):
            self.index_path = str(params["indexPath"])
        result: dict[str, Any] = super().request(op, params)
        if op in ("rebase.run", "history.recall") and self.index_path:  # lineage verification projects again
            with closing(sqlite3.connect(self.index_path)) as connection, connection:
                connection.execute("UPDATE rebase_operations SET phase = lower(phase)")
        return result
