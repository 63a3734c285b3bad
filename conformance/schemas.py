"""One local registry of every JSON Schema shipped with the suite (no network, formats checked).

Every schema carries an ``$id`` under ``https://recall-rebase.invalid/schemas/`` that mirrors its
path, and cross-file ``$ref``s are relative, so the registry resolves them all locally.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from conformance.suite import schemas_dir

BASE_URI: Final = "https://recall-rebase.invalid/schemas/"
FORMAT_CHECKER: Final = Draft202012Validator.FORMAT_CHECKER


def schema_files() -> list[Path]:
    return sorted(schemas_dir().rglob("*.json"))


def expected_id(path: Path) -> str:
    return BASE_URI + path.relative_to(schemas_dir()).as_posix()


@cache
def registry() -> Registry[Any]:
    resources = []
    for path in schema_files():
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents.get("$id", expected_id(path)), Resource.from_contents(
            contents, default_specification=DRAFT202012)))
    return Registry().with_resources(resources).crawl()


def validator(ref: str) -> Draft202012Validator:
    """A validator for a schema or a fragment of one, e.g. ``adapter/v1/message.schema.json`` or
    ``adapter/v1/operations.schema.json#/$defs/session.inspect/properties/result``."""
    uri = ref if ref.startswith("https://") else BASE_URI + ref
    return Draft202012Validator({"$ref": uri}, registry=registry(), format_checker=FORMAT_CHECKER)


def errors(instance: Any, ref: str) -> list[ValidationError]:
    return sorted(validator(ref).iter_errors(instance), key=lambda e: list(e.absolute_path))


def describe(error: ValidationError) -> str:
    return f"{error.json_path}: {error.message}"


def iter_refs(node: Any) -> Iterator[str]:
    """Every ``$ref`` value inside a schema document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from iter_refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from iter_refs(item)


def date_time_format_is_checked() -> bool:
    """``format: date-time`` is only enforced when an RFC 3339 validator is installed."""
    return not FORMAT_CHECKER.conforms("2025-13-45T99:00:00Z", "date-time")
