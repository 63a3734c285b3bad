"""Then steps for the REF, READ, STATUS and INDEX scenarios of the history tools.

A read is checked against the contract's line filling (§3.3 steps 8-12) computed from the
harness's own text, a status against being content-free (§4).  Expected values come from bytes
the harness wrote, never from the implementation.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pytest_bdd import parsers, then

from conformance.steps.common import js_json
from conformance.world import HistoryWorld

#: chars-v1 tokens of the serialized envelope plus this reserve is a result's cost (§3.3 step 10).
RESERVE_TOKENS = 96
#: Fields a hit has and a read's ``source`` has not (§2.9).
HIT_ONLY_FIELDS = ("excerpt", "matchReasons", "score", "truncated")
STATUS_KEYS = {"schema", "quotedData", "status", "coverage", "warnings", "effectiveScope", "indexedEntries"}


def _cost(envelope: dict[str, Any]) -> int:
    units = len(js_json(envelope).encode("utf-16-le")) // 2
    return math.ceil(units / 4) + RESERVE_TOKENS


# ------------------------------------------------------------------ then: results


@then(parsers.parse('the result is unavailable with one of the codes "{codes}"'))
def then_unavailable_one_of(history: HistoryWorld, codes: str) -> None:
    result = history.last
    assert set(result) == {"schema", "quotedData", "status", "coverage", "warnings"}, result
    assert result["status"] == "unavailable" and result["coverage"] == "unknown", result
    assert len(result["warnings"]) == 1 and result["warnings"][0] in codes.split(), result


@then("the result is unavailable with one code and no content")
def then_unavailable_any(history: HistoryWorld) -> None:
    result = history.last
    assert set(result) == {"schema", "quotedData", "status", "coverage", "warnings"}, result
    assert result["status"] == "unavailable" and result["coverage"] == "unknown", result
    assert len(result["warnings"]) == 1, result


@then(parsers.parse("the recalls so far returned {count:d} distinct references"))
def then_refs_count(history: HistoryWorld, count: int) -> None:
    assert len(history.refs_issued()) == count, len(history.refs_issued())


@then(parsers.parse("the last recall returned {count:d} hits"))
def then_hit_count(history: HistoryWorld, count: int) -> None:
    hits = history.recall["hits"]
    assert len(hits) == count, [h["entryId"] for h in hits]


@then("the read text is empty")
def then_read_empty(history: HistoryWorld) -> None:
    result = history.last
    assert result["status"] in ("complete", "partial") and result["text"] == "", result


@then(parsers.parse('the read text is lines {first:d} to {last:d} of the message "{entry_id}"'))
def then_read_lines(history: HistoryWorld, first: int, last: int, entry_id: str) -> None:
    result = history.last
    lines = history.messages[entry_id]
    assert result["status"] in ("complete", "partial"), result
    assert result["startLine"] == first, result
    assert result["text"] == "\n".join(lines[first - 1 : last]), result["text"][:200]


@then(parsers.parse('the read of "{entry_id}" holds the most lines that fit {budget:d} chars-v1 tokens'))
def then_read_greedy(history: HistoryWorld, entry_id: str, budget: int) -> None:
    """The filling of §3.3 step 10, judged on the provisional envelope the contract measures."""
    result = history.last
    lines = history.messages[entry_id]
    assert result["status"] == "partial" and result["truncated"] is True, result
    start, stop = result["startLine"], result["nextLine"]
    assert result["text"] == "\n".join(lines[start - 1 : stop - 1]), result["text"][:200]

    def provisional(last_line: int) -> dict[str, Any]:
        envelope = {key: result[key] for key in ("schema", "quotedData")}
        envelope.update(status="complete", coverage="complete", warnings=[], source=result["source"],
                        text="\n".join(lines[start - 1 : last_line]), startLine=start,
                        truncated=last_line < len(lines), nextLine=last_line + 1)
        return envelope

    assert _cost(provisional(stop - 1)) <= budget, "the lines returned do not fit the budget"
    assert _cost(provisional(stop)) > budget, "one more line would still have fitted the budget"


@then("the read source matches the first hit")
def then_source_matches(history: HistoryWorld) -> None:
    hit = dict(history.recall["hits"][0])
    for key in HIT_ONLY_FIELDS:
        hit.pop(key)
    source = history.last["source"]
    assert source == hit, (source, hit)
    assert list(source) == list(hit), "the source keeps the hit's key order"


@then("no result holds a raw session line")
def then_no_raw_lines(history: HistoryWorld) -> None:
    text = json.dumps(history.results, ensure_ascii=False)
    for path in history.sessions.values():
        for line in Path(path).read_bytes().splitlines():
            raw = line.decode("utf-8", "replace").strip()
            if raw:
                assert raw not in text and js_json(raw)[1:-1] not in text, f"a result holds the raw line {raw[:80]}"
    assert '{"type":' not in text and '\\"type\\":' not in text, "a result holds raw JSONL"


@then(parsers.parse('the read envelope\'s keys are "{keys}"'))
def then_read_keys(history: HistoryWorld, keys: str) -> None:
    """The top-level keys in the order the implementation serialized them (D1: upstream's bytes)."""
    assert list(history.last) == keys.split(), list(history.last)


@then("the read envelope's JSON ends with:")
def then_read_json_end(history: HistoryWorld, docstring: str) -> None:
    """The envelope as ``JSON.stringify`` writes it, in the key order it came in."""
    text = js_json(history.last)
    assert text.endswith(docstring.strip()), text[-200:]


@then(parsers.parse('the read source has relation "{relation}"'))
def then_read_relation(history: HistoryWorld, relation: str) -> None:
    assert history.last["source"]["relation"] == relation, history.last


@then(parsers.parse('the read source has kind "{kind}" and role "{role}"'))
def then_read_kind(history: HistoryWorld, kind: str, role: str) -> None:
    source = history.last["source"]
    assert source["kind"] == kind and source.get("role") == role, source


# ------------------------------------------------------------------ then: status


@then(parsers.parse('the status has coverage "{coverage}" and effective scope "{scope}"'))
def then_status_coverage(history: HistoryWorld, coverage: str, scope: str) -> None:
    result = history.last
    assert result["coverage"] == coverage and result["effectiveScope"] == scope, result


@then("the status is content-free")
def then_status_content_free(history: HistoryWorld) -> None:
    """Only schema, flags, enums, counters and codes: no text, ids, paths or queries (§4)."""
    result = history.last
    assert set(result) == STATUS_KEYS, result
    assert result["schema"] == "ds4-history-result-v1" and result["quotedData"] is True, result
    assert result["status"] in ("complete", "partial") and result["coverage"] in ("complete", "unknown"), result
    assert isinstance(result["indexedEntries"], int), result
    text = js_json(result)
    for name, path in history.sessions.items():
        assert str(path) not in text and Path(path).name not in text, "the status names a session file"
        if Path(path).is_file():
            assert history.session_id(name) not in text, "the status names a session id"
            for line in Path(path).read_bytes().splitlines():
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                entry_id = value.get("id") if isinstance(value, dict) else None
                if isinstance(entry_id, str) and len(entry_id) > 3:
                    assert f'"{entry_id}"' not in text, f"the status names the entry id {entry_id}"
    for result_before in history.results:
        for hit in result_before.get("hits") or []:
            assert hit["sourceRef"] not in text and hit["excerpt"] not in text


@then(parsers.parse("the status reports {count:d} indexed entries and is complete"))
def then_status_complete(history: HistoryWorld, count: int) -> None:
    result = history.last
    assert result["status"] == "complete" and result["coverage"] == "complete", result
    assert result["warnings"] == [] and result["indexedEntries"] == count, result


@then("the status says the index is not yet synchronized")
def then_status_unsynced(history: HistoryWorld) -> None:
    result = history.last
    assert result["status"] == "partial" and result["coverage"] == "unknown", result
    assert result["warnings"] == ["index-not-yet-synchronized"] and result["indexedEntries"] == 0, result
