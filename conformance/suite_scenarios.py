"""The suite's scenarios as values: each feature file parsed once, each scenario's id, tags, line
and the rows a report gives it (``ID``, or ``ID[case]`` per outline row).

Read by ``conformance check`` (:mod:`conformance.check`), ``list`` and the selection
(:mod:`conformance.selection`) and the clause coverage (:mod:`conformance.coverage`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gherkin.parser import Parser

from conformance.gherkin_documents import scenarios_of
from conformance.suite import features_dir

ID_PATTERN: Final = re.compile(r"^@id:([A-Z]+-[0-9]{3})$")


def parsed_features(folder: Path | None = None) -> list[tuple[Path, Any]]:
    """Every feature file of the suite (or under ``folder``) and its Gherkin document (parsing them
    all takes about 0.3 s)."""
    parser: Any = Parser()
    return [(path, parser.parse(path.read_text(encoding="utf-8")))
            for path in sorted((folder or features_dir()).rglob("*.feature"))]


@dataclass(frozen=True)
class SuiteScenario:
    """One scenario of the suite: its id, feature, title, file and Gherkin tags (the feature's too, no ``@``),
    the line it starts on and the rows a report gives it (its id, or ``ID[case]`` per outline row)."""

    id: str
    feature: str
    title: str
    file: str
    tags: tuple[str, ...]
    line: int = 0
    rows: tuple[str, ...] = ()


def _rows(ids: list[str], examples: Sequence[Any]) -> list[str]:
    """The rows a report gives a scenario: each id, or ``ID[case]`` for each row of its ``examples``."""
    cases = [row["cells"][0]["value"] for block in examples for row in block.get("tableBody", [])]
    return ids if not cases else [f"{i}[{case}]" for i in ids for case in cases]


def list_scenarios(features: Sequence[tuple[Path, Any]] | None = None, *, root: Path | None = None) -> list[SuiteScenario]:
    """Every scenario of the suite, in id order; ``features``: the parsed feature files when the
    caller has them already (:func:`parsed_features`), their paths relative to ``root`` (the suite's
    ``features/`` by default)."""
    items = []
    for path, document in parsed_features(root) if features is None else features:
        if not document.get("feature"):
            continue
        feature_tags = [t["name"].lstrip("@") for t in document["feature"].get("tags", [])]
        for scenario in scenarios_of(document):
            ids = [m.group(1) for t in scenario["tags"] if (m := ID_PATTERN.match(t["name"]))]
            items.append(SuiteScenario(
                id=ids[0] if ids else "",
                feature=document["feature"]["name"],
                title=scenario["name"],
                file=path.relative_to(root or features_dir()).as_posix(),
                tags=(*feature_tags, *(t["name"].lstrip("@") for t in scenario["tags"])),
                line=scenario["location"]["line"],
                rows=tuple(_rows(ids[:1], scenario.get("examples", []))),
            ))
    return sorted(items, key=lambda item: item.id)


def scenario_rows(features: Sequence[tuple[Path, Any]] | None = None) -> list[str]:
    """Every id a report can carry: each scenario's id, and ``ID[case]`` for each outline row."""
    rows: list[str] = []
    for _, document in parsed_features() if features is None else features:
        for scenario in scenarios_of(document):
            ids = [m.group(1) for t in scenario["tags"] if (m := ID_PATTERN.match(t["name"]))]
            rows.extend(_rows(ids, scenario.get("examples", [])))
    return sorted(rows)
