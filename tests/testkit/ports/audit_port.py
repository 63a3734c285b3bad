"""Ports for ``conformance run --audit``: the reference with a broken projection, or another hello.

In process, ``--rr-adapter testkit.ports.audit_port:WrongHash`` is the reference except that after
every history request it overwrites the stored content hash of the index's first entry (what
AUDIT-004 finds; the steps never look at it); ``NoMapping`` declares no ``auditMapping``. Run as
a script it serves the same over stdio: ``--wrong-hash`` breaks the projection, ``--mapping
VALUE`` says ``auditMapping: VALUE`` in the hello (``--mapping ''``: none).
"""

from __future__ import annotations

import argparse
import dataclasses
import sqlite3
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from reference.adapter.operations import AUDIT_MAPPING, ReferenceAdapter

#: Where a history scenario tells the implementation to keep its index (conformance.world.HistoryProject).
INDEX: Final = Path("index") / "history.sqlite"
WRONG: Final = "0" * 64


def _agent_dir(params: Mapping[str, Any]) -> Path | None:
    env = params.get("env")
    agent = env.get("PI_CODING_AGENT_DIR") if isinstance(env, dict) else None
    return Path(agent) if isinstance(agent, str) else None


def overwrite_first_hash(index: Path) -> None:
    """The first entry row's content hash, made wrong (its line is not touched)."""
    if not index.is_file():
        return
    with sqlite3.connect(index) as connection:
        connection.execute("UPDATE entries SET content_hash = ? WHERE rowid = (SELECT min(rowid) FROM entries)",
                           [WRONG])
    connection.close()


class WrongHash(ReferenceAdapter):
    """The reference, except that its index's first content hash is wrong after each history request."""

    agent: Path | None = None

    def dispatch(self, op: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if op == "history.open":
            self.agent = _agent_dir(params)
        result: dict[str, Any] = super().dispatch(op, params)
        if op.startswith("history.") and self.agent is not None:
            overwrite_first_hash(self.agent / INDEX)
        return result


class NoMapping(ReferenceAdapter):
    """The reference, declaring no audit mapping in its hello."""

    def start(self) -> Any:
        return dataclasses.replace(super().start(), audit_mapping=None)


def main(argv: list[str] | None = None) -> int:
    """Serve the reference (or :class:`WrongHash`) on stdin/stdout with the hello's ``auditMapping`` chosen."""
    from conformance.protocol import PROTOCOL_VERSION
    from conformance.stdio import serve
    from reference.adapter.operations import IMPLEMENTATION, OPERATIONS, STATEFUL_OPERATIONS
    from reference.primitives.errors import ContractViolation
    from reference.primitives.jsonbytes import js_stringify

    parser = argparse.ArgumentParser()
    parser.add_argument("--wrong-hash", action="store_true")
    parser.add_argument("--mapping", default=AUDIT_MAPPING)
    args = parser.parse_args(argv)
    hello: dict[str, Any] = {"implementation": IMPLEMENTATION, "protocolVersion": PROTOCOL_VERSION,
                             "operations": [*OPERATIONS, *STATEFUL_OPERATIONS]}
    if args.mapping:
        hello["auditMapping"] = args.mapping
    implementation = WrongHash() if args.wrong_hash else ReferenceAdapter()
    sys.stdout.reconfigure(line_buffering=True, encoding="utf-8")  # type: ignore[union-attr]
    return serve(implementation.dispatch, hello, ContractViolation, encode=js_stringify)


if __name__ == "__main__":
    sys.exit(main())
