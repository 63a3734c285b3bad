"""The files a run writes (``--report``, ``--junitxml``, …): checked before any scenario runs,
and written owner-only.

A path that cannot be written fails the run at once, with one line, rather than after the whole
suite has run. The check is a real open for appending (permissions, read-only file systems, a
folder in the way, a missing parent that cannot be made are all caught); a file the check
created is removed again, and an existing one is left as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Final

#: The code of a run's output path that cannot be written (``schemas/codes/v1``, ``commandLine``).
OUTPUT_UNWRITABLE: Final = "output-unwritable"


def unwritable(path: str, what: str) -> str | None:
    """Why ``path`` cannot take the run's ``what`` (one line), or ``None`` when it can."""
    target = Path(path)
    if target.is_dir():
        return f"cannot write the {what} to {path}: it is a folder"
    existed = target.exists()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot write the {what} to {path}: {exc.strerror or exc}"
    if not existed:
        target.unlink(missing_ok=True)
    return None


def first_unwritable(paths: dict[str, str | None]) -> str | None:
    """The first problem among ``{what: path}`` (paths not given are skipped)."""
    for what, path in paths.items():
        if path and (problem := unwritable(path, what)) is not None:
            return problem
    return None


@contextmanager
def owner_only(path: Path) -> Iterator[IO[bytes]]:
    """``path`` opened for writing from scratch; a new file is created 0600 (owner-only), so no
    other user can read what a port said, and an existing file keeps its mode."""
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
