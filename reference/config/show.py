"""The text of ``/context config show``: files, warnings and every catalog path.

Each path shows its active and default value as JSON, cut to fit a column; widths count UTF-16
units as JavaScript's ``padEnd`` does.
"""

from __future__ import annotations

from typing import Any

from reference.config.catalog import CATALOG
from reference.config.defaults import SCHEMA_ID
from reference.config.dotted_paths import get_path
from reference.config.layering import LoadedConfig
from reference.primitives.jsonbytes import UNDEFINED, JsonObject, js_stringify
from reference.primitives.textunits import slice_utf16, utf16_length


def describe_value(value: Any) -> str:
    """A show cell: JSON, cut to 25 UTF-16 units plus ``…`` when longer than 26."""
    if value is UNDEFINED:
        return "unset"
    text = js_stringify(value)
    return slice_utf16(text, 25) + "…" if utf16_length(text) > 26 else text


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - utf16_length(text))


def _header(loaded: LoadedConfig) -> list[str]:
    global_file, project_file = loaded.file("global"), loaded.file("project")
    return [
        f"DS4 Context Configuration ({SCHEMA_ID})",
        "",
        f"{_pad('Enabled:', 27)}{'yes' if loaded.config.get('enabled') is True else 'no'}",
        f"{_pad('Global file:', 27)}{global_file.path}{' (loaded)' if global_file.loaded else ''}",
        f"{_pad('Project file:', 27)}{project_file.path or 'unavailable'}{' (loaded)' if project_file.loaded else ''}",
        f"{_pad('Configuration warnings:', 27)}{len(loaded.warnings)}",
        *(f"  - {warning}" for warning in loaded.warnings),
        "",
    ]


def _catalog_rows(config: JsonObject) -> list[str]:
    lines: list[str] = []
    section = ""
    for item in CATALOG:
        head = item.path.split(".")[0]
        if head != section:
            section = head
            lines.append(f"[{section}]")
        hints = (["|".join(item.values)] if item.values else []) + [item.kind] + (["optional"] if item.optional else [])
        active = describe_value(get_path(config, item.path))
        fallback = describe_value(item.default)
        lines.append(f"{_pad(item.path, 48)}  {_pad(active, 28)}  {_pad(fallback, 28)}  {' '.join(hints)}")
    return lines


_FOOTER = (
    "",
    "Set:   /context config set <path> <value> [--global]",
    "Unset: /context config unset <path> [--global]",
    "Quote JSON values, e.g. /context config set privacy.localProviders '[\"ollama\",\"lmstudio\"]'",
    "Saved changes apply when the next Pi session starts; this session keeps its configuration.",
)


def render_show(loaded: LoadedConfig) -> str:
    """The text of ``/context config show`` for one loaded configuration."""
    return "\n".join([*_header(loaded), *_catalog_rows(loaded.config), *_FOOTER])


def show_json(loaded: LoadedConfig) -> JsonObject:
    """``config.show``'s result (and ``config show --json``'s): the configuration, its files and text."""
    return {"schema": SCHEMA_ID, "config": loaded.config, "warnings": list(loaded.warnings),
            "files": [item.to_json() for item in loaded.files], "text": render_show(loaded)}


#: One sentence for a newcomer: what the "DS4" of the names is (docs/spec/contract.md, title).
DS4_MEANING = ("DS4 is the name of the Pi context extension (ds4-context-engine) whose history recall and "
               "session rebase this tool implements; its files and entries are named ds4-*.")
#: The labels of the catalog rows' columns, at the widths of :func:`_catalog_rows`.
COLUMN_LABELS = f"{_pad('path', 48)}  {_pad('active value', 28)}  {_pad('default value', 28)}  values and kind"
_SHELL_FOOTER = (
    "From a shell: recall-rebase config set <path> <value> [--global]",
    "              recall-rebase config unset <path> [--global]",
    "              (quote JSON for the shell: recall-rebase config set privacy.localProviders "
    "'[\"ollama\",\"lmstudio\"]')",
)


def for_shell(text: str) -> str:
    """``recall-rebase config show``'s text: the text of ``/context config show`` with what a
    person at a shell needs besides: what DS4 is, the columns' labels and the command-line forms.
    The in-Pi text (and ``--json``'s ``text``) stays as the contract has it."""
    lines = text.split("\n")
    first_row = next((number for number, line in enumerate(lines) if line.startswith("[")), len(lines))
    return "\n".join([*lines[:1], DS4_MEANING, *lines[1:first_row], COLUMN_LABELS, *lines[first_row:],
                      *_SHELL_FOOTER])
