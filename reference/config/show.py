"""The text of ``/context config show``: files, warnings and every catalog path.

Each path shows its active and default value as JSON, cut to fit a column; widths count UTF-16
units as JavaScript's ``padEnd`` does.
"""

from __future__ import annotations

from typing import Any

from reference.config.catalog import CATALOG
from reference.config.defaults import DEFAULT_CONFIG, SCHEMA_ID
from reference.config.dotted_paths import get_path
from reference.config.layering import LoadedConfig
from reference.primitives.jsonbytes import UNDEFINED, js_stringify
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


def _catalog_rows(config: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    section = ""
    for item in CATALOG:
        head = item.path.split(".")[0]
        if head != section:
            section = head
            lines.append(f"[{section}]")
        hints = (["|".join(item.values)] if item.values else []) + [item.kind] + (["optional"] if item.optional else [])
        active = describe_value(get_path(config, item.path))
        fallback = describe_value(get_path(DEFAULT_CONFIG, item.path))
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
