"""A new port: the files ``recall-rebase conformance new-port DIR --language python|node`` writes.

A runnable port that serves the adapter protocol and declares no operation yet (a stdlib-only
``port.py``, or a ``port.mjs`` of Node's standard library), an empty expectations manifest, a
README with the next steps and a CI workflow that runs ``smoke`` and the suite. The templates are
package data under ``conformance/port_templates/``, filled with the port's name (DIR's own name,
reduced to letters, digits, ``.``, ``_`` and ``-``).

Nothing that exists is written into, renamed or replaced: DIR is made (or is an empty folder),
each file is created exclusively, owner-only (0600, folders 0700: docs/promises.md), and a
failure part-way removes what this call made, and only that.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance import __version__
from conformance.commandline import OneLineError
from conformance.outputs import OUTPUT_UNWRITABLE, private_umask

TEMPLATES: Final = Path(__file__).resolve().parent / "port_templates"
MANIFEST: Final = "expectations.toml"
README: Final = "README.md"
WORKFLOW: Final = ".github/workflows/conformance.yml"
#: A port's name when DIR's name has none of the characters a name keeps.
DEFAULT_NAME: Final = "my-port"


class Language(enum.Enum):
    """The languages ``new-port`` writes a port in: the port's file, and how a person says it."""

    PYTHON = "python"
    NODE = "node"

    @property
    def port_file(self) -> str:
        return "port.py" if self is Language.PYTHON else "port.mjs"

    @property
    def spoken(self) -> str:
        return "Python" if self is Language.PYTHON else "JavaScript (Node)"

    @property
    def relative_command(self) -> str:
        """The port's start command inside its own folder (the README's and the workflow's)."""
        return f"python {self.port_file}" if self is Language.PYTHON else f"node {self.port_file}"

    def command(self, port: Path) -> tuple[str, ...]:
        """The argv that starts the port at ``port``: this Python, or the ``node`` on PATH."""
        if self is Language.PYTHON:
            return (sys.executable, str(port))
        return (shutil.which("node") or "node", str(port))


class ScaffoldRefused(OneLineError):
    """DIR cannot take a new port: it is there and not empty, is a file, its parent is missing, or
    it cannot be written. Nothing is left behind."""

    code = OUTPUT_UNWRITABLE


@dataclass(frozen=True)
class Scaffold:
    """What ``new-port`` wrote: the folder (absolute), the argv that starts the port, the files
    (relative to the folder, in the order written)."""

    folder: Path
    command: tuple[str, ...]
    files: tuple[str, ...]


def port_name(folder: Path) -> str:
    """The port's name: ``folder``'s own name, each run of other characters one ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", folder.name).strip("-.") or DEFAULT_NAME


def _contents(language: Language, name: str) -> dict[str, str]:
    """Each file to write (relative path -> text), in order."""
    fills = {"__PORT_NAME__": name, "__PORT_FILE__": language.port_file, "__LANGUAGE_NAME__": language.spoken,
             "__PORT_COMMAND__": language.relative_command, "__TOOLKIT_VERSION__": __version__}
    templates = {language.port_file: f"{language.port_file}.tmpl", MANIFEST: f"{MANIFEST}.tmpl",
                 README: f"{README}.tmpl", WORKFLOW: "conformance.yml.tmpl"}
    written: dict[str, str] = {}
    for relative, template in templates.items():
        text = (TEMPLATES / template).read_text(encoding="utf-8")
        for token, value in fills.items():
            text = text.replace(token, value)
        written[relative] = text
    return written


def _refuse_folder(folder: Path, shown: str) -> bool:
    """Raise when ``folder`` cannot take a new port; True when it is to be made, False when it is
    an empty folder already there."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        if not folder.parent.is_dir():
            raise ScaffoldRefused(f"cannot write a port in {shown}: its parent folder {folder.parent} "
                                  "does not exist") from None
        return True
    except OSError as exc:
        raise ScaffoldRefused(f"cannot write a port in {shown}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise ScaffoldRefused(f"cannot write a port in {shown}: it is a symbolic link (name a new folder)")
    if not stat.S_ISDIR(info.st_mode):
        raise ScaffoldRefused(f"cannot write a port in {shown}: it is a file, not a folder (name a new folder)")
    try:
        empty = not any(folder.iterdir())
    except OSError as exc:
        raise ScaffoldRefused(f"cannot write a port in {shown}: {exc.strerror or exc}") from None
    if not empty:
        raise ScaffoldRefused(f"cannot write a port in {shown}: it is a folder that is not empty, and is "
                              "left as it was (name a new or an empty folder)")
    return False


def _undo(made: list[Path]) -> None:
    """Remove what this call made, newest first (files, then the folders they were in)."""
    for path in reversed(made):
        with contextlib.suppress(OSError):
            path.rmdir() if path.is_dir() else path.unlink()


def new_port(directory: str, language: Language) -> Scaffold:
    """Write a new port of ``language`` in ``directory`` (made here, or an empty folder)."""
    folder = Path(os.path.abspath(directory))
    make = _refuse_folder(folder, directory)
    contents = _contents(language, port_name(folder))
    made: list[Path] = []
    try:
        with private_umask():
            if make:
                folder.mkdir(mode=0o700)
                made.append(folder)
            for relative, text in contents.items():
                path = folder / relative
                for parent in reversed(path.relative_to(folder).parents[:-1]):
                    if not (folder / parent).is_dir():
                        (folder / parent).mkdir(mode=0o700)
                        made.append(folder / parent)
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                made.append(path)
                with open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(text)
    except OSError as exc:
        _undo(made)
        raise ScaffoldRefused(f"cannot write a port in {directory}: {exc.strerror or exc}") from None
    return Scaffold(folder, language.command(folder / language.port_file), tuple(contents))
