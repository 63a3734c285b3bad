"""What every product command prints: one error line, or one JSON document."""

from __future__ import annotations

import sys
from typing import Any, Final

EXIT_CONTRACT_ERROR: Final = 2


def fail(code: str, message: str) -> int:
    """One readable line on stderr for bad input: ``recall-rebase: <code>: <message>``."""
    print(f"recall-rebase: {code}: {message}", file=sys.stderr)
    return EXIT_CONTRACT_ERROR


def print_json(value: Any) -> None:
    """Exactly one JSON document on stdout, with JavaScript's ``JSON.stringify`` bytes."""
    from reference.primitives.jsonbytes import js_stringify

    sys.stdout.write(js_stringify(value) + "\n")
