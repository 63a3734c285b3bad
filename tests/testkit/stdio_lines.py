"""Helpers of the hostile-input tests of ``recall-rebase host --stdio``: serve lines in-process
(``conformance.stdio.serve`` over StringIO, the reference's dispatch) or through a real host."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

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

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
HOST: Final = [sys.executable, "-m", "reference.cli", "host", "--stdio"]
HELLO: Final = {"implementation": IMPLEMENTATION, "protocolVersion": 1,
                "operations": [*OPERATIONS, *STATEFUL_OPERATIONS], "auditMapping": AUDIT_MAPPING}
START: Final = '{"seq":1,"cmd":"start","protocolVersion":1}'
#: A good request and its answer: sent after every bad line, it must still be served.
GOOD: Final = '{"seq":99,"cmd":"request","op":"text.measure","params":{"text":"ab"}}'
GOOD_ANSWER: Final = {"seq": 99, "ok": {"utf16Length": 2, "utf8Length": 2, "tokens": 1}}


def request(seq: int, op: str, params: Any) -> str:
    return json.dumps({"seq": seq, "cmd": "request", "op": op, "params": params})


def serve_text(text: str, adapter: ReferenceAdapter | None = None) -> str:
    """What the in-process server writes for ``text`` (the lines as the host reads them)."""
    out = io.StringIO()
    serve((adapter or ReferenceAdapter()).dispatch, HELLO, ContractViolation, stdin=io.StringIO(text), stdout=out,
          encode=js_stringify)
    return out.getvalue()


def answers(output: str) -> list[dict[str, Any]]:
    assert "Traceback" not in output and '"errored"' not in output
    return [json.loads(line) for line in output.splitlines()]


def serve_lines(*lines: str, started: bool = True, adapter: ReferenceAdapter | None = None) -> list[dict[str, Any]]:
    """The answers to ``start`` (when ``started``), ``lines``, then :data:`GOOD`; the start's and the
    good request's answers are checked here and left out."""
    sent = [START] if started else []
    output = serve_text("".join(line + "\n" for line in [*sent, *lines, GOOD]), adapter)
    found = answers(output)
    if started:
        assert found[0]["ok"]["protocolVersion"] == 1
        found = found[1:]
    assert found[-1] == GOOD_ANSWER, found[-1]
    return found[:-1]


def refusal(*lines: str, **options: Any) -> tuple[Any, str]:
    """``(seq, code)`` of the one answer to a line that must be refused."""
    (answer,) = serve_lines(*lines, **options)
    assert set(answer) == {"seq", "error"}, answer
    message = answer["error"]["message"]
    assert message and "\n" not in message and len(message) <= 300
    return answer["seq"], answer["error"]["code"]


def real_host(data: bytes, *, cwd: Path) -> tuple[list[dict[str, Any]], str]:
    """The answers of a real ``host --stdio`` process to ``data`` (bytes as written), and its stderr."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(HOST, input=data, capture_output=True, timeout=120, cwd=cwd, env=env)
    stdout = done.stdout.decode("utf-8")
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0 and "Traceback" not in stderr
    return answers(stdout), stderr
