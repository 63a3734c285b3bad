"""One ``ds4-context.json`` on disk: read as Node reads it, and rewritten whole for an edit.

Reading follows Node's ``readFileSync(path, "utf-8")`` (invalid UTF-8 becomes U+FFFD).  As
today, a path that exists is opened whatever it is: a directory fails with its ``OSError``
(reported, not raised).  Writing is ``JSON.stringify(content, null, 2)`` plus a newline,
installed by an atomic rename that keeps the file's mode.  A new file is owner-only (0600) and
every folder created for it 0700 (docs/privacy.md, owner-only files): the file says which
providers may see what.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, cast

from reference.config.errors import ConfigError
from reference.config.json_text import parse_json
from reference.pi.host.files import read_text
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject, js_stringify_pretty
from reference.primitives.platform_ops.owner_only import ensure_private_dir, replace_keeping_mode


def read_saved_object(path: str) -> JsonObject:
    """The saved file as an object for an edit; an absent file is empty, a broken one an error."""
    if not os.path.exists(path):
        return {}
    try:
        text = read_text(path)
    except OSError as exc:
        raise ContractViolation(Code.CONFIG_IO_ERROR, f"Cannot read configuration file {path}: {exc.strerror or exc}") from None
    try:
        parsed = parse_json(text)
    except ConfigError:
        raise ContractViolation(Code.CONFIG_FILE_MALFORMED, f"Configuration file is malformed JSON: {path}") from None
    if not isinstance(parsed, dict):
        raise ContractViolation(Code.CONFIG_FILE_MALFORMED, f"Configuration file must contain a JSON object: {path}")
    return cast(JsonObject, parsed)


def write_saved_object(path: str, content: Mapping[str, Any]) -> None:
    """``JSON.stringify(content, null, 2)`` plus a newline, installed by an atomic rename; a new
    file 0600 and its new folders 0700, a file that exists keeps its mode."""
    data = (js_stringify_pretty(content) + "\n").encode("utf-8", "surrogatepass")
    directory = os.path.dirname(path) or "."
    try:
        ensure_private_dir(directory)
        replace_keeping_mode(path, data, directory)
    except OSError as exc:
        raise ContractViolation(Code.CONFIG_IO_ERROR, f"Cannot write configuration file {path}: {exc.strerror or exc}") from None
