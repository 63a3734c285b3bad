"""What one audit reads: the session files of some folders, their journals, and an index.

Everything here is only ever opened for reading. A session folder is Pi's folder of one
project's sessions (``<agent dir>/sessions/--<cwd>--/``): its ``*.jsonl`` files are the canonical
side, and its ``.ds4-rebase/operations/*.json`` files are the rebase journals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.audit.journals import operations_dir
from conformance.commandline import OneLineError

SESSION_SUFFIX: Final = ".jsonl"
#: The code of an audit input that cannot be read (``schemas/codes/v1``, ``commandLine``).
AUDIT_INPUT: Final = "audit-input"


class InputError(OneLineError):
    """An input that cannot be audited: one line for the user."""

    code = AUDIT_INPUT


@dataclass(frozen=True)
class AuditInputs:
    """The files of one audit, in a stable order."""

    session_files: tuple[Path, ...]
    journal_dirs: tuple[Path, ...]
    index: Path
    session_dirs: tuple[Path, ...] = ()

    @classmethod
    def of(cls, session_dirs: Sequence[Path], index: Path) -> AuditInputs:
        """The inputs of these session folders and this index; a folder or index that is not there is an error."""
        files: list[Path] = []
        journals: list[Path] = []
        for folder in session_dirs:
            if not folder.is_dir():
                raise InputError(f"{folder}: not a folder of session files")
            files += sorted(p for p in folder.iterdir() if p.suffix == SESSION_SUFFIX and p.is_file())
            if operations_dir(folder).is_dir():
                journals.append(operations_dir(folder))
        if not index.is_file():
            raise InputError(f"{index}: no index file there")
        return cls(tuple(files), tuple(journals), index, tuple(session_dirs))
