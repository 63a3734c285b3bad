"""The pin and memory snapshot a rebase carries (contract §6.14; decisions D3).

It reproduces what the upstream memory manager lists for the session: it replays the session's
``ds4-context-pin-v1`` / ``ds4-context-memory-v1`` mutations the way the upstream SQLite
projection materializes them, then applies the carry rules of §6.14.  Nothing is ever clipped:
too many carried items are refused here, before any journal write (D8).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference.pi.exact.entries import is_pi_entry
from reference.primitives.jsonbytes import UNDEFINED, JsonObject
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

    pins: tuple[JsonObject, ...] = ()
    memories: tuple[JsonObject, ...] = ()


#: A session that carries nothing.
NOTHING_CARRIED: Final = MemorySnapshot()


@dataclass
class _Mutation:
    payload: JsonObject
    created_at: float | int
    order: int
    entry_id: str
    parent_id: str | None


def _optional(value: Mapping[str, Any], key: str, check: Callable[[Any], bool]) -> bool:
    """An absent key is ``undefined`` upstream and passes; a present one (even ``null``) is checked."""
    return key not in value or check(value[key])


def _valid_base(value: Mapping[str, Any]) -> bool:
    mutation_id = value.get("mutationId")
    created: Any = value.get("createdAt")
    return (
        strict_equal(value.get("schemaVersion"), 1)
        and isinstance(mutation_id, str) and mutation_id != ""
        and is_number(created) and math.isfinite(created)
    )


def _valid_item(value: Any, *, pin: bool) -> bool:
    """A new pin (``content``, scope session/branch/project) or memory (``claim`` and its
    ``sourceEntryIds``, scope session/project), as upstream's item guards check them."""
    if not isinstance(value, dict):
        return False
    ids = value.get("sourceEntryIds")
    optional = ("projectPath", "branchLeafId", "sourceEntryId", "sourceFile") if pin else ("projectPath", "key")
    return (
        isinstance(value.get("id"), str)
        and value.get("scope") in (("session", "branch", "project") if pin else ("session", "project"))
        and isinstance(value.get("content" if pin else "claim"), str)
        and is_number(value.get("createdAt"))
        and (pin or (isinstance(ids, list) and all(isinstance(i, str) for i in ids)))
        and all(_optional(value, key, lambda v: isinstance(v, str)) for key in optional)
        and _optional(value, "classification", is_level)
    )


def _parse_mutation(value: Any, *, pin: bool) -> JsonObject | None:
    """``parsePinMutation`` / ``parseMemoryMutation``: the payload if well formed, else None."""
    if not isinstance(value, dict) or not _valid_base(value):
        return None
    operation = value.get("operation")
    if operation == "add" and _valid_item(value.get("item"), pin=pin):
        return dict(value)
    if operation == "supersede" and isinstance(value.get("previousId"), str) and _valid_item(value.get("item"), pin=pin):
        return dict(value)
    if operation == "status":
        target = value.get("pinId" if pin else "memoryId")
        statuses = ("deleted",) if pin else ("invalid", "expired")
        if (isinstance(target, str) and value.get("status") in statuses
                and _optional(value, "reason", lambda v: isinstance(v, str))):
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


def _provenance(session_id: str, session_file: str, mutation: _Mutation, source_ids: list[str]) -> JsonObject:
    provenance: JsonObject = {
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


def _copy_truthy(target: JsonObject, source: Mapping[str, Any], *keys: str) -> None:
    for key in keys:
        if truthy(source.get(key, UNDEFINED)):
            target[key] = source[key]


def _additions(mutations: list[_Mutation], seen: Collection[str]) -> Iterator[tuple[_Mutation, JsonObject]]:
    """The projection's first pass: each added item, except project items (never carried) and ids
    already in ``seen`` (ids are random UUIDs: the projection only uses a repeat to detect a collision)."""
    for mutation in mutations:
        if mutation.payload["operation"] != "status":
            value = mutation.payload["item"]
            if value["scope"] != "project" and value["id"] not in seen:
                yield mutation, value


def _apply_changes(items: dict[str, JsonObject], mutations: list[_Mutation], session_id: str, target_key: str) -> None:
    """The projection's second pass: status changes and supersessions, in replay order."""
    for mutation in mutations:
        payload = mutation.payload
        if payload["operation"] == "status":
            item = items.get(payload[target_key])
            if item is not None:
                item.update(status=payload["status"], updatedAt=payload["createdAt"])
        elif payload["operation"] == "supersede":
            _supersede(items, payload, mutation, session_id)


def _materialize_pins(mutations: list[_Mutation], session_id: str, session_file: str) -> dict[str, JsonObject]:
    pins: dict[str, JsonObject] = {}
    for mutation, value in _additions(mutations, pins):
        if value["scope"] == "branch" and not truthy(value.get("branchLeafId", UNDEFINED)):
            continue
        source_entry = value.get("sourceEntryId", mutation.entry_id)
        item: JsonObject = {"id": value["id"], "scope": value["scope"], "sessionId": session_id}
        _copy_truthy(item, value, "projectPath", "branchLeafId", "classification")
        item.update(content=value["content"], status="active", createdAt=value["createdAt"],
                    updatedAt=mutation.payload["createdAt"], sourceEntryId=source_entry)
        _copy_truthy(item, value, "sourceFile")
        item["provenance"] = _provenance(session_id, session_file, mutation, _unique([source_entry, mutation.entry_id]))
        pins[item["id"]] = item
    _apply_changes(pins, mutations, session_id, "pinId")
    return pins


def _supersede(items: Mapping[str, JsonObject], payload: Mapping[str, Any], mutation: _Mutation,
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


def _materialize_memories(mutations: list[_Mutation], session_id: str,
                          session_file: str) -> tuple[dict[str, JsonObject], dict[str, set[str]]]:
    """The memories by id, and each one's source entry ids (the mutation's entry among them)."""
    memories: dict[str, JsonObject] = {}
    sources: dict[str, set[str]] = {}
    for mutation, value in _additions(mutations, memories):
        source_ids = _unique([mutation.entry_id, *value["sourceEntryIds"]])
        item: JsonObject = {"id": value["id"], "scope": value["scope"], "sessionId": session_id}
        _copy_truthy(item, value, "projectPath", "key", "classification")
        item.update(claim=value["claim"], status="active", createdAt=value["createdAt"],
                    updatedAt=mutation.payload["createdAt"], originSessionId=session_id, sourceEntryIds=source_ids)
        item["provenance"] = _provenance(session_id, session_file, mutation, list(source_ids))
        memories[item["id"]] = item
        sources[item["id"]] = set(source_ids)
    _apply_changes(memories, mutations, session_id, "memoryId")
    # One active memory per key: a later one is invalidated and both name each other.
    first_by_key: dict[tuple[str, str, str, str], str] = {}
    for item in memories.values():
        if not truthy(item.get("key", UNDEFINED)) or item["status"] != "active":
            continue
        key = (item["scope"], item.get("sessionId", ""), item.get("projectPath", ""), item["key"])
        first = first_by_key.setdefault(key, item["id"])
        if first == item["id"]:
            continue
        item["status"] = "invalid"
        item["provenance"]["contradicts"] = _unique([*item["provenance"]["contradicts"], first])
        kept = memories[first]["provenance"]
        kept["contradicts"] = _unique([*kept["contradicts"], item["id"]])
    return memories, sources


def _id_order(item: Mapping[str, Any]) -> bytes:
    """SQLite's BINARY collation: UTF-8 byte order."""
    return str(item["id"]).encode("utf-8", "surrogatepass")


def _merge(inherited: Iterable[Mapping[str, Any]], native: Iterable[JsonObject]) -> list[JsonObject]:
    """``mergeInherited``: active inherited items first; a native item with the same id replaces
    it in place, other native items follow."""
    merged: dict[Any, JsonObject] = {}
    for item in inherited:
        if get(item, "status") == "active":
            merged[get(item, "id")] = dict(item)
    for item in native:
        merged[item["id"]] = item
    return list(merged.values())


def overlay_inherited(items: Sequence[Mapping[str, Any]], branch: Sequence[Any], *, pins: bool) -> list[JsonObject]:
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
    entries: Sequence[Any], *, session_id: str, session_file: str, branch_ids: Collection[str],
    inherited: MemorySnapshot = NOTHING_CARRIED,
) -> MemorySnapshot:
    """The active pins and memories a rebase of this session carries, frozen whole.

    ``entries`` are the session's entries in file order: all of them, for upstream parity (a
    session-scope item added on another branch is still the session's), or only the branch.
    ``session_file`` is the path recorded as ``provenance.sourceSessionFile``.  ``branch_ids``
    are the ids of the captured branch.  ``inherited`` are the items this session itself
    inherited from its nearest verified checkpoint, with its own overlay already applied
    (:func:`overlay_inherited`).

    Carry rules: never ``project`` scope; a ``branch`` pin only when its ``branchLeafId`` is on
    the branch or it belongs to another session (it was inherited).
    """
    pin_mutations = _mutations(entries, PIN_TYPE)
    memory_mutations = _mutations(entries, MEMORY_TYPE)
    pins = _materialize_pins(pin_mutations, session_id, session_file)
    memories, sources = _materialize_memories(memory_mutations, session_id, session_file)

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
    for item in memories.values():
        if item["status"] != "active":
            continue
        available = sorted((i for i in sources[item["id"]] if i in times), key=entry_order)
        native_memories.append({**item, "sourceEntryIds": available})
    native_memories.sort(key=_id_order)
    native_memories.sort(key=lambda item: item["createdAt"], reverse=True)

    carried_pins = [
        pin for pin in _merge(inherited.pins, native_pins)
        if get(pin, "scope") != "project"
        and (get(pin, "scope") != "branch" or get(pin, "sessionId") != session_id
             or get(pin, "branchLeafId") in branch_ids)
    ]
    carried_memories = [m for m in _merge(inherited.memories, native_memories) if get(m, "scope") != "project"]
    return MemorySnapshot(tuple(carried_pins), tuple(carried_memories))

