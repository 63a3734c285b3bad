"""Adapter operations ``config.show``, ``config.set`` and ``config.unset``: JSON in, JSON out.

A request carries the host's facts (home, cwd, env, argv); ``reference.pi.host.facts`` resolves
them to the two files and the project's trust exactly as a Pi start there would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference.config.command_line import split_options
from reference.config.edits import set_value, unset_value
from reference.config.layering import ConfigTargets, load_targets
from reference.config.show import show_json
from reference.pi.host.facts import resolve_host
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject
from reference.primitives.params import string_param


def _request_targets(params: Mapping[str, Any]) -> ConfigTargets:
    """The files and trust of the host facts a request carries (home, cwd, env, argv), resolved
    with ``reference.pi.host.facts``."""
    home, cwd = string_param(params, "home"), string_param(params, "cwd")
    env, argv = params.get("env", {}), params.get("argv", [])
    if not isinstance(env, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'env' must map strings to strings")
    if not isinstance(argv, Sequence) or isinstance(argv, str) or not all(isinstance(a, str) for a in argv):
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'argv' must be a list of strings")
    return ConfigTargets.from_host(resolve_host(home=home, cwd=cwd, env=dict(env), argv=tuple(argv)))


def op_config_show(params: Mapping[str, Any]) -> JsonObject:
    """``config.show``: the configuration a host started with these facts would load."""
    return show_json(load_targets(_request_targets(params)))


def _edit_params(params: Mapping[str, Any]) -> tuple[str, bool]:
    path = string_param(params, "path")
    global_target = params.get("global", False)
    if not isinstance(global_target, bool):
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'global' must be a boolean")
    options = params.get("options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) and o.startswith("--") for o in options):
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'options' must be a list of --option words")
    _, flagged = split_options(options)
    return path, global_target or flagged


def op_config_set(params: Mapping[str, Any]) -> JsonObject:
    """``config.set``: params add ``path``, ``value`` (as typed), ``global`` and optional ``options``."""
    path, global_target = _edit_params(params)
    raw_value = string_param(params, "value")
    targets = _request_targets(params)
    return set_value(path, raw_value, global_target=global_target, targets=targets).to_json()


def op_config_unset(params: Mapping[str, Any]) -> JsonObject:
    """``config.unset``: params add ``path``, ``global`` and optional ``options``."""
    path, global_target = _edit_params(params)
    targets = _request_targets(params)
    return unset_value(path, global_target=global_target, targets=targets).to_json()
