"""Run one command of the GitHub Action (``action.yml``) with words taken from its JSON inputs.

    python tools/action_command.py recall-rebase conformance smoke --stdio -- '{CONFORMANCE_PORT}'

Each argument written exactly ``{NAME}`` (``NAME``: capitals, digits, ``_``) is replaced by the
words of the JSON array of strings in the environment variable ``NAME``: the action passes its
``port`` input as ``CONFORMANCE_PORT`` and its ``run-arguments`` as ``CONFORMANCE_RUN_ARGUMENTS``.
So a port command reaches ``argv`` word for word, whatever its spaces, quotes or ``$``: no shell
splits or expands it. An empty variable is no words; anything else that is not a JSON array of
strings is one line, ``recall-rebase action: usage: ...``, and exit 2, before anything runs.
Otherwise the exit code is the command's. The script runs in the action's own checkout, beside
whichever toolkit version the action installed, so it uses the standard library only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Final

PLACEHOLDER: Final = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
PREFIX: Final = "CONFORMANCE_"
EXIT_BAD_INPUT: Final = 2


class BadInput(Exception):
    """An input that is not a JSON array of strings."""


def input_name(variable: str) -> str:
    """The action's input behind an environment variable: ``CONFORMANCE_RUN_ARGUMENTS`` is ``run-arguments``."""
    return variable.removeprefix(PREFIX).lower().replace("_", "-")


def words_of(variable: str, environ: Mapping[str, str]) -> list[str]:
    """The words of the JSON array in ``environ[variable]`` (none when it is unset or blank)."""
    text = environ.get(variable, "")
    if not text.strip():
        return []
    problem = f"the input {input_name(variable)} ({variable}) must be a JSON array of strings, e.g. " \
              '["node", "port.mjs"]'
    try:
        words = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadInput(f"{problem}: it is not JSON ({error.msg} at character {error.pos})") from None
    if not isinstance(words, list) or not all(isinstance(word, str) for word in words):
        raise BadInput(f"{problem}: it is JSON of another shape")
    if any("\0" in word for word in words):
        raise BadInput(f"{problem}: a word holds a NUL character")
    return words


def command_line(template: Sequence[str], environ: Mapping[str, str]) -> list[str]:
    """``template`` with each ``{NAME}`` argument replaced by the words of ``NAME``."""
    argv: list[str] = []
    for word in template:
        spliced = PLACEHOLDER.fullmatch(word)
        argv += words_of(spliced.group(1), environ) if spliced else [word]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    template = list(sys.argv[1:] if argv is None else argv)
    try:
        if not template:
            raise BadInput("no command given (tools/action_command.py COMMAND [ARG|{NAME}]...)")
        command = command_line(template, os.environ)
    except BadInput as error:
        print(f"recall-rebase action: usage: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return subprocess.run(command, check=False).returncode
    except OSError as error:
        print(f"recall-rebase action: usage: cannot run {command[0]}: {error.strerror or error}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
