"""``recall-rebase host --stdio``: the reference behind the adapter protocol's line transport."""

from __future__ import annotations

import sys


def serve_stdio() -> int:
    """Serve the adapter protocol on stdin/stdout for one host process (``recall-rebase host --stdio``)."""
    from conformance.platforms import platform_of
    from conformance.protocol import PROTOCOL_VERSION
    from conformance.stdio import serve
    from reference.adapter.operations import (
        AUDIT_MAPPING,
        IMPLEMENTATION,
        OPERATIONS,
        STATEFUL_OPERATIONS,
        ReferenceAdapter,
    )
    from reference.primitives.errors import ContractViolation
    from reference.primitives.jsonbytes import js_stringify

    hello = {
        "implementation": IMPLEMENTATION,
        "protocolVersion": PROTOCOL_VERSION,
        "operations": [*OPERATIONS, *STATEFUL_OPERATIONS],
        "auditMapping": AUDIT_MAPPING,
        "platform": platform_of().value,  # sys.platform as the hello names it (posix families)
    }
    implementation = ReferenceAdapter()  # one host process: its references live as long as it does
    # Reconfigure so a crash in the middle of a line never leaves half a message behind.
    sys.stdout.reconfigure(line_buffering=True, encoding="utf-8")  # type: ignore[union-attr]
    # Bytes that are not UTF-8 reach the server as lone surrogates, refused as invalid-request.
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")  # type: ignore[union-attr]
    return serve(implementation.dispatch, hello, ContractViolation, encode=js_stringify)
