"""Steps that write the session file a READER, TREE, CONTEXT or TOOLX scenario reads.

Session files are written by the harness from doc strings (one JSON value per line, each
followed by LF unless a step says otherwise) or copied from packaged fixtures by id.  Bytes and
characters a feature file cannot show are written raw.  The expected values the harness computes
itself (byte offsets, SHA-256) come from the bytes written here, never from the implementation;
the requests and their checks are in :mod:`conformance.steps.session_reader_steps`.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

from pytest_bdd import given, parsers

from conformance.suite import fixture_path
from conformance.world import SessionFile


def _write_session(workdir: Path, session_file: SessionFile, data: bytes, name: str = "session.jsonl") -> Path:
    path = workdir / name
    path.write_bytes(data)
    session_file.path = path
    session_file.bytes_before = data
    return path


def _lines(docstring: str) -> list[str]:
    return [line for line in docstring.splitlines() if line != ""]


@given(parsers.parse('the fixture session "{fixture_id}"'))
def given_fixture(workdir: Path, session_file: SessionFile, fixture_id: str) -> None:
    source = fixture_path(fixture_id)
    target = workdir / source.name
    shutil.copyfile(source, target)
    session_file.path = target
    session_file.bytes_before = target.read_bytes()


@given("a session file with these lines:")
def given_lines(workdir: Path, session_file: SessionFile, docstring: str) -> None:
    text = "".join(line + "\n" for line in _lines(docstring))
    _write_session(workdir, session_file, text.encode("utf-8"))


@given("a session file with CRLF line endings and these lines:")
def given_crlf_lines(workdir: Path, session_file: SessionFile, docstring: str) -> None:
    text = "".join(line + "\r\n" for line in _lines(docstring))
    _write_session(workdir, session_file, text.encode("utf-8"))


@given("a session file whose last line has no newline, with these lines:")
def given_unterminated(workdir: Path, session_file: SessionFile, docstring: str) -> None:
    text = "\n".join(_lines(docstring))
    _write_session(workdir, session_file, text.encode("utf-8"))


@given(parsers.parse("a session file with a UTF-8 byte order mark before these lines:"))
def given_bom(workdir: Path, session_file: SessionFile, docstring: str) -> None:
    text = "".join(line + "\n" for line in _lines(docstring))
    _write_session(workdir, session_file, b"\xef\xbb\xbf" + text.encode("utf-8"))


@given(parsers.parse("a session file with these lines, where line {number:d} is also followed by {count:d} blank lines:"))
def given_blank_after(workdir: Path, session_file: SessionFile, docstring: str, number: int, count: int) -> None:
    lines = _lines(docstring)
    lines[number - 1 : number] = [lines[number - 1]] + ["   "] * (count - 1) + [""]
    _write_session(workdir, session_file, "".join(line + "\n" for line in lines).encode("utf-8"))


@given(parsers.parse("a session file of {size:d} bytes of random binary data"))
def given_binary(workdir: Path, session_file: SessionFile, size: int) -> None:
    generator = random.Random(size)
    data = bytes(generator.randrange(256) for _ in range(size)).replace(b"\n", b"\x00")
    _write_session(workdir, session_file, data)


@given("an empty session file")
def given_empty(workdir: Path, session_file: SessionFile) -> None:
    _write_session(workdir, session_file, b"")


@given("a folder where the session file should be")
def given_folder(workdir: Path, session_file: SessionFile) -> None:
    folder = workdir / "folder.jsonl"
    folder.mkdir()
    session_file.path = folder


@given("a session path where no file exists")
def given_missing(workdir: Path, session_file: SessionFile) -> None:
    session_file.path = workdir / "missing.jsonl"


@given(parsers.parse("a session file that starts with at least {size:d} bytes of malformed lines and then has these lines:"))
def given_late_header(workdir: Path, session_file: SessionFile, size: int, docstring: str) -> None:
    """Whole malformed lines of about 1 KB, at least ``size`` bytes of them, then the given lines
    (READER-012 gives a valid header there: a header that comes too late)."""
    junk_line = b"{not json" + b"x" * 1000 + b"\n"
    junk = junk_line * (size // len(junk_line) + 1)
    text = "".join(line + "\n" for line in _lines(docstring)).encode("utf-8")
    _write_session(workdir, session_file, junk + text)


@given(parsers.parse("a session file with these lines, where line {number:d} carries a message of {mib:d} MiB:"))
def given_oversize(workdir: Path, session_file: SessionFile, number: int, mib: int, docstring: str) -> None:
    lines = _lines(docstring)
    entry = json.loads(lines[number - 1])
    entry["message"]["content"] = "x" * (mib * 1024 * 1024)
    lines[number - 1] = json.dumps(entry, separators=(",", ":"))
    _write_session(workdir, session_file, "".join(line + "\n" for line in lines).encode("utf-8"))


def _hostile_value(shape: str, size: int) -> str:
    """JSON text that a recursive parser (or ``int()``'s digit limit) refuses and V8 reads."""
    if shape == "array":
        return "[" * size + "1" + "]" * size
    if shape == "object":
        return '{"k":' * size + "1" + "}" * size
    return ("-" if shape == "negative" else "") + "9" * size


@given(parsers.re(r'a session file with these lines, where "(?P<placeholder>[^"]+)" becomes '
                  r"(?:an? (?P<shape>array|object) nested (?P<depth>\d+) levels deep"
                  r"|an? (?P<sign>negative )?integer of (?P<digits>\d+) digits):$"))
def given_hostile_value(workdir: Path, session_file: SessionFile, docstring: str, placeholder: str,
                        shape: str | None, depth: str | None, sign: str | None, digits: str | None) -> None:
    value = (_hostile_value(shape, int(depth)) if shape and depth
             else _hostile_value("negative" if sign else "integer", int(digits or 0)))
    text = "".join(line.replace(f'"{placeholder}"', value) + "\n" for line in _lines(docstring))
    _write_session(workdir, session_file, text.encode("utf-8"))


_RAW_CHARACTER = re.compile(r"\[U\+([0-9A-F]{4,6})\]")


@given('a session file with these lines, where each "[U+XXXX]" is that raw character:')
def given_raw_characters(workdir: Path, session_file: SessionFile, docstring: str) -> None:
    """Characters a feature file cannot show (NBSP, line separators, controls) written raw."""
    lines = [_RAW_CHARACTER.sub(lambda match: chr(int(match.group(1), 16)), line) for line in _lines(docstring)]
    _write_session(workdir, session_file, "".join(line + "\n" for line in lines).encode("utf-8"))


_RAW_BYTE = re.compile(r"\[x([0-9A-F]{2})\]")


@given('a session file with these lines, where each "[xHH]" is that raw byte:')
def given_raw_bytes(workdir: Path, session_file: SessionFile, docstring: str) -> None:
    """Bytes that are not UTF-8: each line UTF-8 encoded, every ``[xHH]`` replaced by the single byte 0xHH."""
    data = bytearray()
    for line in _lines(docstring):
        at = 0
        for match in _RAW_BYTE.finditer(line):
            data += line[at:match.start()].encode("utf-8")
            data.append(int(match.group(1), 16))
            at = match.end()
        data += line[at:].encode("utf-8") + b"\n"
    _write_session(workdir, session_file, bytes(data))


def _padded(line: str, size: int) -> str:
    """``line`` with its ``"@PAD"`` string grown so that the line and its LF are ``size`` bytes."""
    bare = len(line.replace('"@PAD"', '""').encode("utf-8")) + 1
    assert size >= bare, f"a line of {size} bytes cannot hold {line!r}"
    return line.replace('"@PAD"', '"' + "x" * (size - bare) + '"')


@given(parsers.parse("a session file whose first line is padded to end with its LF at byte {end:d}, with these lines:"))
def given_padded_header(workdir: Path, session_file: SessionFile, end: int, docstring: str) -> None:
    lines = _lines(docstring)
    lines[0] = _padded(lines[0], end)
    _write_session(workdir, session_file, "".join(line + "\n" for line in lines).encode("utf-8"))


@given(parsers.parse("a session file with these lines, where line {number:d} is padded to {size:d} bytes with its LF:"))
def given_padded_line(workdir: Path, session_file: SessionFile, number: int, size: int, docstring: str) -> None:
    lines = _lines(docstring)
    lines[number - 1] = _padded(lines[number - 1], size)
    _write_session(workdir, session_file, "".join(line + "\n" for line in lines).encode("utf-8"))


@given(parsers.re(r'a session file with these lines, where "(?P<placeholder>[^"]+)" is the JSON text (?P<text>.+):$'))
def given_json_text(workdir: Path, session_file: SessionFile, docstring: str, placeholder: str, text: str) -> None:
    lines = [line.replace(f'"{placeholder}"', text) for line in _lines(docstring)]
    _write_session(workdir, session_file, "".join(line + "\n" for line in lines).encode("utf-8"))
