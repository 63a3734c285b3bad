"""A parsed feature file (the ``gherkin`` parser's document): its scenarios, those under a ``Rule`` too.

The one reader of that shape for the suite check and its listing (:mod:`conformance.check`) and
for the report's row locations (:mod:`conformance.locations`).
"""

from __future__ import annotations

from typing import Any


def scenarios_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every scenario and scenario outline of the document, in the order the file has them."""
    feature = document.get("feature") or {}
    found = []
    for child in feature.get("children", []):
        if "scenario" in child:
            found.append(child["scenario"])
        elif "rule" in child:
            found.extend(c["scenario"] for c in child["rule"].get("children", []) if "scenario" in c)
    return found
