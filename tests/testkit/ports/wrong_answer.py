"""A port that answers one request wrongly: the reference, except the ``N``-th ``text.measure``.

In process, ``--rr-adapter testkit.ports.wrong_answer:WrongOnce``; over stdio, this file run as
a script serves the same adapter on the line protocol and writes one ``wrong-answer:`` line on
stderr when it lies. ``WRONG_ANSWER_AT`` (default 3) says which ``text.measure`` of the process
gets :data:`WRONG`, so a Then step that compares the measure fails (FAIL, not CRASH).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from reference.adapter.operations import ReferenceAdapter

WRONG_OP: Final = "text.measure"
WRONG: Final = {"utf16Length": -1, "faulty": ["a", "wrong", "answer"]}
AT_ENV: Final = "WRONG_ANSWER_AT"


def wrong_at() -> int:
    return int(os.environ.get(AT_ENV, "3"))


class WrongOnce(ReferenceAdapter):
    """The reference, except that one ``text.measure`` answers :data:`WRONG`."""

    calls: ClassVar[int] = 0

    def request(self, op: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if op == WRONG_OP:
            WrongOnce.calls += 1
            if WrongOnce.calls == wrong_at():
                sys.stderr.write(f"wrong-answer: lying about {op} call {WrongOnce.calls}\n")
                sys.stderr.flush()
                return dict(WRONG)
        result: dict[str, Any] = super().request(op, params)
        return result


def main() -> int:
    """Serve :class:`WrongOnce` on stdin/stdout, as ``recall-rebase host --stdio`` serves the reference."""
    from conformance.protocol import PROTOCOL_VERSION, ContractError
    from conformance.stdio import serve
    from reference.adapter.operations import IMPLEMENTATION, OPERATIONS, STATEFUL_OPERATIONS

    hello = {"implementation": IMPLEMENTATION, "protocolVersion": PROTOCOL_VERSION,
             "operations": [*OPERATIONS, *STATEFUL_OPERATIONS]}
    sys.stderr.write("wrong-answer: serving the reference, with one wrong answer\n")
    sys.stderr.flush()
    return serve(WrongOnce().request, hello, ContractError)


if __name__ == "__main__":
    sys.exit(main())
