"""Where the packaged suite data lives: features, schemas and fixtures.

Installed wheels carry them under ``conformance/_suite``; a source checkout has them at the
repository root. ``RECALL_REBASE_SUITE`` overrides both (the JSON-Schema-Test-Suite workflow).
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

SUITE_ENV = "RECALL_REBASE_SUITE"


class SuiteNotFound(Exception):
    """No suite where one was looked for (``RECALL_REBASE_SUITE`` names a folder without
    ``features/``): the command says so in one line."""

    code = "suite-not-found"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@cache
def suite_root() -> Path:
    """The folder holding ``features/``, ``schemas/``, ``fixtures/`` and ``docs/``."""
    override = os.environ.get(SUITE_ENV)
    if override:
        if not (Path(override) / "features").is_dir():
            raise SuiteNotFound(f"{SUITE_ENV}={override} holds no features/ folder: point it at a suite "
                                "(a checkout, or a copy with features/, schemas/, fixtures/ and docs/), or unset it")
        return Path(override).resolve()
    packaged = Path(__file__).resolve().parent / "_suite"
    if (packaged / "features").is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "features").is_dir():
        return checkout
    raise SuiteNotFound("the recall-rebase suite data (features/, schemas/, fixtures/) was not found: reinstall")


def features_dir() -> Path:
    return suite_root() / "features"


def schemas_dir() -> Path:
    return suite_root() / "schemas"


def docs_dir() -> Path:
    """The normative text (``docs/spec/``) and the project's pages the features cite."""
    return suite_root() / "docs"


def fixtures_dir() -> Path:
    return suite_root() / "fixtures"


@cache
def fixture_manifest() -> dict[str, dict[str, Any]]:
    """``fixtures/MANIFEST.json`` keyed by fixture id."""
    data = json.loads((fixtures_dir() / "MANIFEST.json").read_text(encoding="utf-8"))
    return {item["id"]: item for item in data["fixtures"]}


def fixture_path(fixture_id: str) -> Path:
    """The packaged file of a fixture named in a feature (steps never use raw paths)."""
    try:
        entry = fixture_manifest()[fixture_id]
    except KeyError:
        raise KeyError(f"unknown fixture id {fixture_id!r} (not in fixtures/MANIFEST.json)") from None
    return fixtures_dir() / str(entry["path"])
