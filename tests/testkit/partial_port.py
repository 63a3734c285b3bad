"""A port that has done only part of the work: ``python tests/testkit/partial_port.py [--declare OPS] [--break OPS] [--platform P]``.

It is the reference behind ``host --stdio``, except that its hello declares only the operations
``--declare`` names (all of them without it), and that the operations ``--break`` names answer
``{}``, so their scenarios fail, and that ``--platform`` puts a platform of its choice in its hello
(none: ``--platform ""``). It still answers undeclared operations and runs every scenario, so a
harness that forgot the declaration would see their scenarios pass: the UNSUPPORTED tests can fail.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any


def _operations(text: str) -> list[str]:
    return [op for op in text.split(",") if op]


def main(argv: list[str]) -> int:
    from conformance.platforms import platform_of
    from conformance.protocol import PROTOCOL_VERSION
    from conformance.stdio import serve
    from reference.adapter.operations import IMPLEMENTATION, OPERATIONS, STATEFUL_OPERATIONS, ReferenceAdapter
    from reference.primitives.errors import ContractViolation
    from reference.primitives.jsonbytes import js_stringify

    parser = argparse.ArgumentParser(prog="partial_port")
    parser.add_argument("--declare", type=_operations, default=[*OPERATIONS, *STATEFUL_OPERATIONS])
    parser.add_argument("--break", dest="broken", type=_operations, default=[])
    parser.add_argument("--platform", default=None, help="the hello's platform ('' for none; default: the real one)")
    args = parser.parse_args(argv)
    reference = ReferenceAdapter()

    def dispatch(op: str, params: Mapping[str, Any]) -> dict[str, Any]:
        return {} if op in args.broken else reference.dispatch(op, params)

    hello = {"implementation": {**IMPLEMENTATION, "name": "partial-port"}, "protocolVersion": PROTOCOL_VERSION,
             "operations": args.declare}
    if args.platform != "":
        hello["platform"] = args.platform if args.platform is not None else platform_of().value
    sys.stdout.reconfigure(line_buffering=True, encoding="utf-8")  # type: ignore[union-attr]
    return serve(dispatch, hello, ContractViolation, encode=js_stringify)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
