"""Steps on one tree node (``session.node``) and on the manifest facts of packaged fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_bdd import parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.common import id_list
from conformance.suite import fixture_manifest
from conformance.world import Response, SessionFile

# ------------------------------------------------------------------ then: tree node


@then(parsers.parse('its ancestors are "{ids}"'))
def then_ancestors(response: Response, ids: str) -> None:
    assert response.value()["ancestorIds"] == id_list(ids)


@then("it has no ancestors")
def then_no_ancestors(response: Response) -> None:
    assert response.value()["ancestorIds"] == []


@then(parsers.parse('its children are "{ids}"'))
def then_children(response: Response, ids: str) -> None:
    assert response.value()["childIds"] == id_list(ids)


@then(parsers.parse('its siblings are "{ids}"'))
def then_siblings(response: Response, ids: str) -> None:
    assert response.value()["siblingIds"] == id_list(ids)


@then(parsers.parse("it has {count:d} siblings"))
def then_sibling_count(response: Response, count: int) -> None:
    assert len(response.value()["siblingIds"]) == count


@then("its ancestry is reported as a cycle")
def then_cycle(response: Response) -> None:
    assert response.value()["cycle"] is True


@then(parsers.parse('its missing parent is "{parent}"'))
def then_missing_parent(response: Response, parent: str) -> None:
    node = response.value()
    assert node["missingParent"] == parent and node["isRoot"] is True, node


# ------------------------------------------------------------------ fixture facts


def _facts(session_file: SessionFile) -> dict[str, Any]:
    name = session_file.file.name
    for item in fixture_manifest().values():
        if Path(item["path"]).name == name:
            facts: dict[str, Any] = item["facts"]
            return facts
    raise AssertionError(f"{name} is not a packaged fixture")


@then("the session id, entry count and default leaf are those of the fixture's manifest facts")
def then_fixture_facts(response: Response, session_file: SessionFile) -> None:
    facts = _facts(session_file)
    report = response.value()
    assert report["sessionId"] == facts["sessionId"], (report["sessionId"], facts)
    assert report["entryCount"] == facts["entryCount"], (report["entryCount"], facts)
    assert report["defaultLeafId"] == facts["defaultLeafId"], (report["defaultLeafId"], facts)


@when(parsers.parse('the fixture\'s notable entry "{name}" is described'))
def when_notable_node(adapter: Adapter, response: Response, session_file: SessionFile, name: str) -> None:
    entry_id = _facts(session_file)["notable"][name]
    response.call(adapter, "session.node", {"path": str(session_file.file), "id": entry_id})


@then(parsers.parse("it has {count:d} children"))
def then_child_count(response: Response, count: int) -> None:
    node = response.value()
    assert len(node["childIds"]) == count, len(node["childIds"])
    assert node["childIds"], node
