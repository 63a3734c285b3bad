"""The pin and memory snapshot a rebase carries (contract §6.14; decisions D3).

It reproduces what the upstream memory manager lists for the session: it replays the session's
``ds4-context-pin-v1`` / ``ds4-context-memory-v1`` mutations the way the upstream SQLite
projection materializes them, then applies the carry rules of §6.14.  Nothing is ever clipped:
too many carried items are refused here, before any journal write (D8).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference.pi.exact.entries import is_pi_entry
from reference.primitives.jsonbytes import UNDEFINED
from reference.primitives.jsvalues import (
    date_time_ms,
    get,
    is_number,
    strict_equal,
    truthy,
)
from reference.privacy.policy import is_level

PIN_TYPE: Final = "ds4-context-pin-v1"
MEMORY_TYPE: Final = "ds4-context-memory-v1"
MAX_PINS: Final = 1_000
MAX_MEMORIES: Final = 1_000


@dataclass(frozen=True)
class MemorySnapshot:
    """The frozen items a checkpoint carries, in the order the upstream manager lists them."""

    pins: tuple[dict[str, Any], ...] = ()
    memories: tuple[dict[str, Any], ...] = ()


@dataclass
class _Mutation:
    payload: dict[str, Any]
    created_at: float | int
    order: int
    entry_id: str
    parent_id: str | None


@dataclass
class _Memory:
    item: dict[str, Any]
    source_ids: set[str] = field(default_factory=set)


def _is_record(value: Any) -> bool:
    return isinstance(value, dict)


def _optional(value: Mapping[str, Any], key: str, check: Callable[[Any], bool]) -> bool:
    """An absent key is ``undefined`` upstream and passes; a present one (even ``null``) is checked."""
    return key not in value or check(value[key])


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _valid_base(value: Mapping[str, Any]) -> bool:
    mutation_id = value.get("mutationId")
    created: Any = value.get("createdAt")
    return (
        strict_equal(value.get("schemaVersion"), 1)
        and isinstance(mutation_id, str) and mutation_id != ""
        and is_number(created) and math.isfinite(created)
    )


def _valid_new_memory(value: Any) -> bool:
    if not _is_record(value):
        return False
    ids = value.get("sourceEntryIds")
    return (
        isinstance(value.get("id"), str)
        and value.get("scope") in ("session", "project")
        and isinstance(value.get("claim"), str)
        and is_number(value.get("createdAt"))
        and isinstance(ids, list) and all(isinstance(i, str) for i in ids)
        and _optional(value, "projectPath", _is_str)
        and _optional(value, "key", _is_str)
        and _optional(value, "classification", is_level)
    )


def _valid_new_pin(value: Any) -> bool:
    if not _is_record(value):
        return False
    return (
        isinstance(value.get("id"), str)
        and value.get("scope") in ("session", "branch", "project")
        and isinstance(value.get("content"), str)
        and is_number(value.get("createdAt"))
        and all(_optional(value, key, _is_str) for key in ("projectPath", "branchLeafId", "sourceEntryId", "sourceFile"))
        and _optional(value, "classification", is_level)
    )


def _parse_mutation(value: Any, *, pin: bool) -> dict[str, Any] | None:
    """``parsePinMutation`` / ``parseMemoryMutation``: the payload if well formed, else None."""
    if not _is_record(value) or not _valid_base(value):
        return None
    valid_item = _valid_new_pin if pin else _valid_new_memory
    operation = value.get("operation")
    if operation == "add" and valid_item(value.get("item")):
        return dict(value)
    if operation == "supersede" and isinstance(value.get("previousId"), str) and valid_item(value.get("item")):
        return dict(value)
    if operation == "status":
        target = value.get("pinId" if pin else "memoryId")
        statuses = ("deleted",) if pin else ("invalid", "expired")
        if isinstance(target, str) and value.get("status") in statuses and _optional(value, "reason", _is_str):
            return dict(value)
    return None


def _mutations(entries: Sequence[Any], custom_type: str) -> list[_Mutation]:
    """One kind of mutation in file order, timestamped by their Pi entry (duplicates ignored)."""
    found: list[_Mutation] = []
    seen: set[str] = set()
    for order, entry in enumerate(e for e in entries if is_pi_entry(e)):
        if entry["type"] != "custom" or entry.get("customType") != custom_type:
            continue
        payload = _parse_mutation(entry.get("data"), pin=custom_type == PIN_TYPE)
        if payload is None or payload["mutationId"] in seen:
            continue
        seen.add(payload["mutationId"])
        parsed = date_time_ms(entry["timestamp"])
        created = payload["createdAt"] if isinstance(parsed, float) and math.isnan(parsed) else parsed
        payload["createdAt"] = created
        if payload["operation"] != "status":
            payload["item"] = {**payload["item"], "createdAt": created}
        parent = entry.get("parentId")
        found.append(_Mutation(payload, created, order, entry["id"], parent if truthy(parent) else None))
    # The projection replays rows by time, then by their place in the file.
    found.sort(key=lambda m: (m.created_at, m.order))
    return found


def _provenance(session_id: str, session_file: str, mutation: _Mutation, source_ids: list[str]) -> dict[str, Any]:
    provenance: dict[str, Any] = {
        "sourceSessionId": session_id,
        "sourceSessionFile": session_file,
        "mutationEntryId": mutation.entry_id,
    }
    if mutation.parent_id:
        provenance["sourceBranchEntryId"] = mutation.parent_id
    provenance["sourceEntryIds"] = source_ids
    if mutation.payload["operation"] == "supersede":
        provenance["supersedes"] = mutation.payload["previousId"]
    provenance["contradicts"] = []
    return provenance


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _copy_truthy(target: dict[str, Any], source: Mapping[str, Any], *keys: str) -> None:
    for key in keys:
        if truthy(source.get(key, UNDEFINED)):
            target[key] = source[key]


def _materialize_pins(mutations: list[_Mutation], session_id: str, session_file: str) -> dict[str, dict[str, Any]]:
    pins: dict[str, dict[str, Any]] = {}
    for mutation in mutations:  # additions first, as the projection's first pass
        payload = mutation.payload
        if payload["operation"] == "status":
            continue
        value = payload["item"]
        # Project items are never carried; pin ids are random UUIDs, so dropping them changes
        # nothing else (the projection would only use them to detect an id collision).
        if value["scope"] == "project" or value["id"] in pins:
            continue
        if value["scope"] == "branch" and not truthy(value.get("branchLeafId", UNDEFINED)):
            continue
        source_entry = value.get("sourceEntryId", mutation.entry_id)
        item: dict[str, Any] = {"id": value["id"], "scope": value["scope"], "sessionId": session_id}
        _copy_truthy(item, value, "projectPath", "branchLeafId", "classification")
        item.update(content=value["content"], status="active", createdAt=value["createdAt"],
                    updatedAt=payload["createdAt"], sourceEntryId=source_entry)
        _copy_truthy(item, value, "sourceFile")
        item["provenance"] = _provenance(session_id, session_file, mutation, _unique([source_entry, mutation.entry_id]))
        pins[item["id"]] = item
    for mutation in mutations:  # then status changes and supersessions
        payload = mutation.payload
        if payload["operation"] == "status":
            pin = pins.get(payload["pinId"])
            if pin is not None:
                pin.update(status=payload["status"], updatedAt=payload["createdAt"])
        elif payload["operation"] == "supersede":
            _supersede(pins, payload, mutation, session_id)
    return pins


def _supersede(items: Mapping[str, dict[str, Any]], payload: Mapping[str, Any], mutation: _Mutation,
               session_id: str) -> None:
    previous = items.get(payload["previousId"])
    replacement = items.get(payload["item"]["id"])
    if previous is None or replacement is None:
        return
    provenance = replacement["provenance"]
    if provenance["sourceSessionId"] != session_id or provenance["mutationEntryId"] != mutation.entry_id:
        return
    if previous["scope"] != replacement["scope"]:
        return
    previous.update(status="superseded", supersededBy=replacement["id"], updatedAt=payload["createdAt"])


def _materialize_memories(mutations: list[_Mutation], session_id: str, session_file: str) -> dict[str, _Memory]:
    memories: dict[str, _Memory] = {}
    for mutation in mutations:
        payload = mutation.payload
        if payload["operation"] == "status":
            continue
        value = payload["item"]
        if value["scope"] == "project" or value["id"] in memories:
            continue
        source_ids = _unique([mutation.entry_id, *value["sourceEntryIds"]])
        item: dict[str, Any] = {"id": value["id"], "scope": value["scope"], "sessionId": session_id}
        _copy_truthy(item, value, "projectPath", "key", "classification")
        item.update(claim=value["claim"], status="active", createdAt=value["createdAt"],
                    updatedAt=payload["createdAt"], originSessionId=session_id, sourceEntryIds=source_ids)
        item["provenance"] = _provenance(session_id, session_file, mutation, list(source_ids))
        memories[item["id"]] = _Memory(item, {mutation.entry_id, *value["sourceEntryIds"]})
    for mutation in mutations:
        payload = mutation.payload
        if payload["operation"] == "status":
            memory = memories.get(payload["memoryId"])
            if memory is not None:
                memory.item.update(status=payload["status"], updatedAt=payload["createdAt"])
        elif payload["operation"] == "supersede":
            _supersede({k: m.item for k, m in memories.items()}, payload, mutation, session_id)
    # One active memory per key: a later one is invalidated and both name each other.
    first_by_key: dict[tuple[str, str, str, str], str] = {}
    for memory in memories.values():
        item = memory.item
        if not truthy(item.get("key", UNDEFINED)) or item["status"] != "active":
            continue
        key = (item["scope"], item.get("sessionId", ""), item.get("projectPath", ""), item["key"])
        first = first_by_key.setdefault(key, item["id"])
        if first == item["id"]:
            continue
        item["status"] = "invalid"
        item["provenance"]["contradicts"] = _unique([*item["provenance"]["contradicts"], first])
        kept = memories[first].item["provenance"]
        kept["contradicts"] = _unique([*kept["contradicts"], item["id"]])
    return memories


def _id_order(item: Mapping[str, Any]) -> bytes:
    """SQLite's BINARY collation: UTF-8 byte order."""
    return str(item["id"]).encode("utf-8", "surrogatepass")


def _merge(inherited: Iterable[Mapping[str, Any]], native: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``mergeInherited``: active inherited items first; a native item with the same id replaces
    it in place, other native items follow."""
    merged: dict[Any, dict[str, Any]] = {}
    for item in inherited:
        if get(item, "status") == "active":
            merged[get(item, "id")] = dict(item)
    for item in native:
        merged[item["id"]] = item
    return list(merged.values())


def overlay_inherited(items: Sequence[Mapping[str, Any]], branch: Sequence[Any], *, pins: bool) -> list[dict[str, Any]]:
    """§6.14 overlay: the continuation's own mutations on its active branch applied to copies of
    the items it inherited (status: deleted, invalid or expired; supersede: superseded).  Only
    the continuation's view changes; the mutation time is its Pi entry's timestamp."""
    copies = {get(item, "id"): copy.deepcopy(dict(item)) for item in items if isinstance(item, Mapping)}
    target_key = "pinId" if pins else "memoryId"
    for mutation in _mutations(branch, PIN_TYPE if pins else MEMORY_TYPE):
        payload = mutation.payload
        if payload["operation"] == "status":
            item = copies.get(payload[target_key])
            if item is not None:
                item.update(status=payload["status"], updatedAt=mutation.created_at)
                if "reason" in payload:
                    item["statusReason"] = payload["reason"]
        elif payload["operation"] == "supersede":
            item = copies.get(payload["previousId"])
            if item is not None:
                item.update(status="superseded", supersededBy=payload["item"]["id"], updatedAt=mutation.created_at)
    return list(copies.values())


def snapshot_memory(
    entries: Sequence[Any],
    *,
    session_id: str,
    session_file: str,
    branch_ids: Collection[str],
    inherited_pins: Sequence[Mapping[str, Any]] = (),
    inherited_memories: Sequence[Mapping[str, Any]] = (),
) -> MemorySnapshot:
    """The active pins and memories a rebase of this session carries, frozen whole.

    ``entries`` are the session's entries in file order: all of them, for upstream parity (a
    session-scope item added on another branch is still the session's), or only the branch.
    ``session_file`` is the path recorded as ``provenance.sourceSessionFile``.  ``branch_ids``
    are the ids of the captured branch.  ``inherited_*`` are the items this session itself
    inherited from its nearest verified checkpoint, with its own overlay already applied.

    Carry rules: never ``project`` scope; a ``branch`` pin only when its ``branchLeafId`` is on
    the branch or it belongs to another session (it was inherited).
    """
    pin_mutations = _mutations(entries, PIN_TYPE)
    memory_mutations = _mutations(entries, MEMORY_TYPE)
    pins = _materialize_pins(pin_mutations, session_id, session_file)
    memories = _materialize_memories(memory_mutations, session_id, session_file)

    # What the SQLite projection drops on the way back: entry ids that are not entries.
    times: dict[str, float | int | None] = {}
    for entry in entries:
        if is_pi_entry(entry) and entry["id"] not in times:
            parsed = date_time_ms(entry["timestamp"])
            times[entry["id"]] = None if isinstance(parsed, float) and math.isnan(parsed) else parsed

    def entry_order(entry_id: str) -> tuple[int, float | int, bytes]:
        created = times[entry_id]
        return (0, 0, entry_id.encode("utf-8", "surrogatepass")) if created is None else (
            1, created, entry_id.encode("utf-8", "surrogatepass"))

    native_pins = []
    for pin in pins.values():
        if pin["status"] != "active":
            continue
        if pin["sourceEntryId"] not in times:
            pin = {k: v for k, v in pin.items() if k != "sourceEntryId"}
        native_pins.append(pin)
    native_pins.sort(key=lambda item: (item["createdAt"], _id_order(item)))

    native_memories = []
    for memory in memories.values():
        item = memory.item
        if item["status"] != "active":
            continue
        available = sorted((i for i in memory.source_ids if i in times), key=entry_order)
        native_memories.append({**item, "sourceEntryIds": available})
    native_memories.sort(key=_id_order)
    native_memories.sort(key=lambda item: item["createdAt"], reverse=True)

    carried_pins = [
        pin for pin in _merge(inherited_pins, native_pins)
        if get(pin, "scope") != "project"
        and (get(pin, "scope") != "branch" or get(pin, "sessionId") != session_id
             or get(pin, "branchLeafId") in branch_ids)
    ]
    carried_memories = [m for m in _merge(inherited_memories, native_memories) if get(m, "scope") != "project"]
    return MemorySnapshot(tuple(carried_pins), tuple(carried_memories))

