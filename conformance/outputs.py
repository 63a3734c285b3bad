"""The files a command writes (``--report``, ``--junitxml``, ``--cucumber-json``, a summary, an
audit report): checked before any work is done, never put over a file that is not an earlier one
of their kind, and written owner-only.

A path that cannot be written fails the run at once, with one line, rather than after the whole
suite has run. An existing file is replaced only when it is a regular file whose first bytes are
an earlier output of the same kind (:class:`OutputKind`): a session, an index, a journal, a
user's file, a symbolic link, a FIFO or a device named by mistake is refused and left as it was.
Then the check is a real open for appending (permissions, read-only file systems, a missing
parent that cannot be made are all caught); a file the check created is removed again.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

#: The code of a run's output path that cannot be written (``schemas/codes/v1``, ``commandLine``).
OUTPUT_UNWRITABLE: Final = "output-unwritable"
#: How much of an existing output file is read to see whether a command of ours wrote it.
_OWN_HEAD_BYTES: Final = 4096


@dataclass(frozen=True)
class OutputKind:
    """One kind of file a command writes: its name for the user, and how the first bytes of an
    earlier one are recognised (only such a file is ever replaced)."""

    what: str
    ours: Callable[[bytes], bool]


def _cucumber(head: bytes) -> bool:
    start = head.lstrip()
    return start.startswith(b"[") and (b'"keyword"' in start or start.rstrip() == b"[]")


#: The run's NDJSON report: its first line is the header (``conformance.reports``).
REPORT: Final = OutputKind("report", lambda head: head.startswith(b'{"type": "header"'))
#: The run's JUnit XML (``conformance.junit``).
JUNIT_XML: Final = OutputKind("JUnit XML", lambda head: head.startswith(b"<?xml")
                              and b'<testsuites name="recall-rebase conformance"' in head)
#: The run's Cucumber JSON: a list of features (pytest-bdd's or ``conformance.cucumber``'s merge).
CUCUMBER_JSON: Final = OutputKind("Cucumber JSON", _cucumber)


def foreign_output(path: str, what: str, ours: Callable[[bytes], bool]) -> str | None:
    """Why the command must not write its ``what`` at ``path`` (one line), or ``None``.

    A path that is not there may be written. One that is there is replaced only when it is a
    regular file (not a symlink, a folder, a FIFO or a device; a FIFO is never opened) whose first
    bytes ``ours`` recognises as an earlier ``what``: a session, an index, a journal or any file of
    the user's named by mistake is left as it was, byte for byte.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot write the {what} to {path}: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        return f"cannot write the {what} to {path}: it is a symbolic link (name the file itself)"
    if stat.S_ISDIR(info.st_mode):
        return f"cannot write the {what} to {path}: it is a folder"
    if not stat.S_ISREG(info.st_mode):
        return f"cannot write the {what} to {path}: it is not a regular file"
    try:
        with open(path, "rb") as handle:
            head = handle.read(_OWN_HEAD_BYTES)
    except OSError as exc:
        return f"cannot write the {what} to {path}: {exc.strerror or exc}"
    if not ours(head):
        return f"cannot write the {what} to {path}: that file is not a {what}, and is left as it was"
    return None


def unwritable(path: str, kind: OutputKind) -> str | None:
    """Why ``path`` cannot take a ``kind`` (one line), or ``None`` when it can."""
    what = kind.what
    if (problem := foreign_output(path, what, kind.ours)) is not None:
        return problem
    target = Path(path)
    existed = target.exists()
    try:
        with private_umask():  # a missing parent made here is owner-only, as the file will be
            target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot write the {what} to {path}: {exc.strerror or exc}"
    if not existed:
        target.unlink(missing_ok=True)
    return None


def first_unwritable(paths: dict[OutputKind, str | None]) -> str | None:
    """The first problem among ``{kind: path}`` (paths not given are skipped)."""
    for kind, path in paths.items():
        if path and (problem := unwritable(path, kind)) is not None:
            return problem
    return None


@contextmanager
def owner_only(path: Path) -> Iterator[IO[bytes]]:
    """``path`` opened for writing from scratch; a new file is created 0600 and a missing folder
    0700 (owner-only), so no other user can read what a port said; an existing file keeps its mode."""
    with private_umask():  # missing parents are made 0700
        path.parent.mkdir(parents=True, exist_ok=True)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
        yield handle


def write_owner_only(path: Path, text: str) -> None:
    """``text`` (UTF-8, as written) in the file at ``path`` (see :func:`owner_only`)."""
    with owner_only(path) as handle:
        handle.write(text.encode("utf-8"))


@contextmanager
def private_umask() -> Iterator[None]:
    """While it lasts, files another library creates (DuckDB's ``COPY``) are born owner-only."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)
