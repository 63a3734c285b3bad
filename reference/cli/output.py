"""What every product command prints: one error line, or one JSON document."""

from __future__ import annotations

import sys
from typing import Any, Final

EXIT_CONTRACT_ERROR: Final = 2
#: Set by ``main`` when the command line has ``--json``: a refusal is then also one JSON document.
JSON_REFUSALS = False


def fail(code: str, message: str) -> int:
    """One readable line on stderr for bad input: ``recall-rebase: <code>: <message>``; with
    ``--json`` also ``{"code", "message"}`` as the one JSON document on stdout."""
    if JSON_REFUSALS:
        print_json({"code": code, "message": message})
    print(f"recall-rebase: {code}: {message}", file=sys.stderr)
    return EXIT_CONTRACT_ERROR


def print_json(value: Any) -> None:
    """Exactly one JSON document on stdout, with JavaScript's ``JSON.stringify`` bytes."""
    from reference.primitives.jsonbytes import js_stringify

    sys.stdout.write(js_stringify(value) + "\n")
