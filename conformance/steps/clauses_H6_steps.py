"""Steps of the scenarios written for clauses of pi-session-model.md that no row checked (issue 26).

Bytes a feature file cannot show (bytes that are not UTF-8) are written raw by the harness.
"""

from __future__ import annotations

import re
from pathlib import Path

from pytest_bdd import given, parsers, then

from conformance.world import Response, SessionFile

_RAW_BYTE = re.compile(r"\[x([0-9A-F]{2})\]")


@given('a session file with these lines, where each "[xHH]" is that raw byte:')
def given_raw_bytes(workdir: Path, session_file: SessionFile, docstring: str) -> None:
    """Each line UTF-8 encoded, with every ``[xHH]`` replaced by the single byte 0xHH."""
    data = bytearray()
    for line in (line for line in docstring.splitlines() if line != ""):
        at = 0
        for match in _RAW_BYTE.finditer(line):
            data += line[at:match.start()].encode("utf-8")
            data.append(int(match.group(1), 16))
            at = match.end()
        data += line[at:].encode("utf-8") + b"\n"
    path = workdir / "session.jsonl"
    path.write_bytes(bytes(data))
    session_file.path = path
    session_file.bytes_before = bytes(data)


@then(parsers.parse('the header fields "{names}" are reported as not strings'))
def then_invalid_header_fields(response: Response, names: str) -> None:
    assert response.value()["diagnostics"]["invalidHeaderFields"] == names.split(), response.value()["diagnostics"]
