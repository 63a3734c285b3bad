"""The ``/context config [show|set|unset]`` commands: typed in a running host, or sent as the
adapter operations ``config.show``, ``config.set`` and ``config.unset`` (JSON in, JSON out).

Typed words split like a shell's (quotes group, a backslash escapes); ``--global`` is the only
option.  The typed ``show`` shows what that host loaded at start, not what is on disk now.  An
operation's request carries the host's facts (home, cwd, env, argv); ``reference.pi.host.facts``
resolves them to the two files and the project's trust exactly as a Pi start there would.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from reference.config.edits import set_value, unset_value
from reference.config.layering import LoadedConfig, load_host_config
from reference.config.show import render_show, show_json
from reference.pi.host.facts import HostFacts, resolve_host
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject
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


def run_config_command(args: str, *, loaded: LoadedConfig, host: HostFacts) -> str:
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
                         host=host).message
    if len(positionals) != 1:
        raise ContractViolation(Code.CONFIG_USAGE, _UNSET_USAGE)
    return unset_value(positionals[0], global_target=global_target, host=host).message


def _request_host(params: Mapping[str, Any]) -> HostFacts:
    """The files and trust of the host facts a request carries (home, cwd, env, argv), resolved
    with ``reference.pi.host.facts``; their types are checked at the edge (``schemas/adapter/v1``)."""
    return resolve_host(home=params["home"], cwd=params["cwd"], env=dict(params["env"]), argv=tuple(params["argv"]))


def op_config_show(params: Mapping[str, Any]) -> JsonObject:
    """``config.show``: the configuration a host started with these facts would load."""
    return show_json(load_host_config(_request_host(params)))


def _edit_params(params: Mapping[str, Any]) -> tuple[str, bool]:
    """``path`` and whether the global file is meant; the schema checks all but ``options``."""
    options = params.get("options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) and o.startswith("--") for o in options):
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'options' must be a list of --option words")
    _, flagged = split_options(options)
    return params["path"], params["global"] or flagged


def op_config_set(params: Mapping[str, Any]) -> JsonObject:
    """``config.set``: params add ``path``, ``value`` (as typed), ``global`` and optional ``options``."""
    path, global_target = _edit_params(params)
    return set_value(path, params["value"], global_target=global_target, host=_request_host(params)).to_json()


def op_config_unset(params: Mapping[str, Any]) -> JsonObject:
    """``config.unset``: params add ``path``, ``global`` and optional ``options``."""
    path, global_target = _edit_params(params)
    return unset_value(path, global_target=global_target, host=_request_host(params)).to_json()
