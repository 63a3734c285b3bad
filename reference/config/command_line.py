"""The typed command line ``/context config [show|set|unset] ...`` of a running host.

Words split like a shell's (quotes group, a backslash escapes); ``--global`` is the only
option.  ``show`` shows what that host loaded at start, not what is on disk now.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from reference.config.edits import set_value, unset_value
from reference.config.layering import ConfigTargets, LoadedConfig
from reference.config.show import render_show
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import JS_WHITESPACE, trim

_SET_USAGE: Final = "Usage: /context config set <path> <value> [--global]"
_UNSET_USAGE: Final = "Usage: /context config unset <path> [--global]"
_CONFIG_USAGE: Final = "Usage: /context config [show|set|unset] (show is the default)"


def split_tokens(text: str) -> list[str]:
    """Shell-like words: quotes group, a backslash takes the next character literally."""
    tokens: list[str] = []
    current, quote, escaped = "", "", False
    for char in trim(text):
        if escaped:
            current, escaped = current + char, False
        elif char == "\\":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
            else:
                current += char
        elif char in "\"'":
            quote = char
        elif char in JS_WHITESPACE:
            if current:
                tokens.append(current)
            current = ""
        else:
            current += char
    if escaped:
        current += "\\"
    if quote:
        raise ContractViolation(Code.CONFIG_USAGE, "Unterminated quote in /context arguments")
    if current:
        tokens.append(current)
    return tokens


def split_options(tokens: Iterable[str]) -> tuple[list[str], bool]:
    """Positionals and the ``--global`` flag; any other ``--option`` is refused by name."""
    positionals: list[str] = []
    names: list[str] = []
    rest = list(tokens)
    for index, token in enumerate(rest):
        if token == "--":
            positionals += rest[index + 1:]
            break
        if token.startswith("--"):
            names.append(token[2:].split("=", 1)[0].lower())
        else:
            positionals.append(token)
    unknown = [name for name in dict.fromkeys(names) if name != "global"]
    if unknown:
        raise ContractViolation(Code.CONFIG_UNKNOWN_OPTION, f"Unknown option(s): {', '.join(f'--{name}' for name in unknown)}")
    return positionals, "global" in names


def run_config_command(args: str, *, loaded: LoadedConfig, targets: ConfigTargets) -> str:
    """``/context config <args>`` in a running host: ``show`` shows what that host loaded."""
    words = trim(args).split(None, 1) if trim(args) else []
    command = words[0].lower() if words else "show"
    rest = words[1] if len(words) > 1 else ""
    if command == "show":
        return render_show(loaded)
    if command not in ("set", "unset"):
        raise ContractViolation(Code.CONFIG_USAGE, _CONFIG_USAGE)
    positionals, global_target = split_options(split_tokens(rest))
    if command == "set":
        if len(positionals) < 2:
            raise ContractViolation(Code.CONFIG_USAGE, _SET_USAGE)
        return set_value(positionals[0], " ".join(positionals[1:]), global_target=global_target,
                         targets=targets).message
    if len(positionals) != 1:
        raise ContractViolation(Code.CONFIG_USAGE, _UNSET_USAGE)
    return unset_value(positionals[0], global_target=global_target, targets=targets).message
