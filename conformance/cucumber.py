"""``--cucumber-json PATH``: the run's Cucumber JSON, as pytest-bdd writes it.

The format is pytest-bdd's (``--cucumberjson``): a list of features, each with its ``uri`` and
its ``elements`` (one per scenario row that ran its steps, tagged ``@id:AREA-NNN``). ``-j 1``
has pytest-bdd write it in the run's scratch folder, and each worker of ``-j N`` its own;
:func:`write_merged` makes them one file, owner-only: features by ``uri`` (the first worker's copy of its
fields), their elements concatenated and ordered by line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from conformance.outputs import write_owner_only
from conformance.untrusted_text import for_json


def merge_features(documents: Iterable[Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One Cucumber JSON document of several: features by ``uri`` in order, elements by line."""
    features: dict[str, dict[str, Any]] = {}
    for document in documents:
        for feature in document:
            merged = features.setdefault(feature["uri"], {**feature, "elements": []})
            merged["elements"].extend(feature.get("elements", []))
    for feature in features.values():
        feature["elements"].sort(key=lambda element: element.get("line", 0))
    return [features[uri] for uri in sorted(features)]


def read_features(path: Path) -> list[dict[str, Any]]:
    """A worker's Cucumber JSON; none when it wrote none (it ran no row, or was killed first)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return document if isinstance(document, list) else []


def write_merged(paths: Iterable[Path], target: Path) -> None:
    """The merge of the workers' files at ``paths``, written to ``target``."""
    merged = merge_features(read_features(path) for path in paths)
    write_owner_only(target, for_json(merged))  # a step's error text may hold the port's lone surrogates
