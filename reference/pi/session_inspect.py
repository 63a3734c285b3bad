"""``session inspect``: one session read the way Pi 0.84.3 reads it, for the CLI and the adapter alike.

The object :func:`reference.pi.exact.inspection.describe_session` builds (the oracle), from the
session model (:func:`reference.pi.model.session.scan_source`, with Pi's tree over it:
:func:`reference.pi.model.tree.pi_tree`) instead of a record per line: the path, the context's
layout, the settings and the tool exchanges come from the compact table, and only the entries
whose values the answer shows are read again (a compaction's ``firstKeptEntryId``, the last
model and thinking-level entries, a branch summary's text).  The context messages themselves are
written as JSON text (:mod:`reference.pi.context_messages`): a message whose bytes are already what
``JSON.stringify`` writes is copied, any other entry goes through the JavaScript-faithful parser
and writer, as the exact path does.  A file the model cannot prove
Pi's reading of (a line that is not a Pi entry, a later header, a legacy or odd header, any
refusal) is read by the exact path (:func:`reference.pi.exact.inspection.inspect_session`).
"""

from __future__ import annotations

import gc
import os
from array import array
from collections.abc import Iterator, Sequence
from typing import IO, Any, Final

import msgspec

from reference.pi.context_messages import MESSAGE_KINDS, context_texts, context_values
from reference.pi.exact.context import context_settings
from reference.pi.exact.inspection import diagnostics_json, inspect_session, inspected_leaf
from reference.pi.exact.reader import open_session_file
from reference.pi.exact.session import ReadDiagnostics, _legacy_version
from reference.pi.exact.toolexchange import ToolExchangeDiagnostics
from reference.pi.leaf import DEFAULT_LEAF
from reference.pi.model.blocks import NotOrdinary
from reference.pi.model.session import SourceScan, scan_source
from reference.pi.model.tree import PiTree, pi_tree
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import UNDEFINED, js_stringify_bytes, quote_string
from reference.primitives.jsvalues import get, truthy

NO_MESSAGE: Final = "a message entry has no message"


class ContextJson:
    """The context messages of a model report: their count, and their JSON texts when asked."""

    def __init__(self, count: int, texts: Sequence[bytes] | None) -> None:
        self.count = count
        self.texts = texts

    def __len__(self) -> int:
        return self.count


def inspect_report(path: str | os.PathLike[str], leaf: Any = DEFAULT_LEAF, *, messages: bool = True,
                   values: bool = False) -> dict[str, Any]:
    """``session inspect`` of ``path`` at ``leaf``: :func:`reference.pi.exact.inspection.inspect_session`'s
    object.  From the model its ``context`` is a :class:`ContextJson` (with the messages' JSON
    texts only when ``messages``), which :func:`report_json` writes; with ``values`` it is the
    list of messages itself (what the adapter answers)."""
    collecting = gc.isenabled()
    gc.disable()  # millions of acyclic objects: the collector's passes over them would only cost
    try:
        model = inspectable_model(path)
        if model is None:
            return inspect_session(path, leaf)
        return describe_model(model, leaf, messages=messages, values=values)
    finally:
        if collecting:
            gc.enable()


def inspectable_model(path: str | os.PathLike[str]) -> SourceScan | None:
    """The session model of ``path`` when it proves Pi's reading of the file: read by blocks,
    every entry line a Pi entry, no later header, a version 3 (or newer) header with a string
    ``cwd`` and ``timestamp``; else None (the exact path reads it, and words every refusal)."""
    try:
        model = scan_source(os.fspath(path), ordinary_only=True)
    except (NotOrdinary, ContractViolation):
        return None
    header = model.header
    if (not model.pi_entries or model.extra_headers or _legacy_version(header.get("version"))[0] is not None
            or any(not isinstance(header.get(name), str) for name in ("cwd", "timestamp"))):
        return None
    return model


def describe_model(model: SourceScan, leaf: Any = DEFAULT_LEAF, *, messages: bool = True,
                   values: bool = False) -> dict[str, Any]:
    """:func:`inspect_report` of a model :func:`inspectable_model` gave."""
    header, tree = model.header, pi_tree(model)
    leaf_id = inspected_leaf(leaf, model.last_id, lambda entry_id: tree.number(entry_id) is not None)
    result: dict[str, Any] = {
        "file": {"path": model.path, "size": model.size, "sha256": model.sha256},
        "version": header.get("version"),
        "sessionId": str(header["id"]),
        "cwd": header.get("cwd"),
        "parentSession": header.get("parentSession"),
        "entryCount": model.entry_count,
        "defaultLeafId": model.last_id,
        "leafId": leaf_id,
    }
    with open_session_file(model.path) as stream:
        truncated = _describe_context(tree, stream, leaf_id, result, messages, values)
    result["diagnostics"] = _diagnostics(tree, truncated)
    return result


def _describe_context(tree: PiTree, stream: IO[bytes], leaf_id: Any, result: dict[str, Any],
                      messages: bool, values: bool) -> bool:
    """As :func:`reference.pi.exact.inspection._describe_context`; whether the path walk was cut short."""
    model = tree.model
    exchanges = model.exchanges
    assert exchanges is not None  # a model read by blocks
    branch = tree.branch(leaf_id)
    session_path = branch if branch.path else tree.session_path(leaf_id)  # a known leaf: one walk
    path = session_path.path
    context = model.context_numbers(stream, path)
    walked = model.marks(path, branch.path)
    messageless = any(walked[number] for number in exchanges.messageless)
    texts = context_texts(model, context) if messages and not values and not messageless else None
    result["pathIds"] = model.ids.ids_of(branch.path)  # while a forked copy writes half the texts
    result["contextEntryIds"] = model.ids.ids_of(context)
    if messageless:
        result.update(context=None, settings=None, toolExchange=None, contextError=NO_MESSAGE)
    else:
        try:
            settings = _settings(model, stream, path).to_json()
            active = exchanges.issues(model.marks(context))
            historical = exchanges.issues(model.marks(branch.path)) - active
        except BaseException:
            if texts is not None:
                texts.abandon()
            raise
        if values:
            result["context"] = context_values(model, stream, context)
        elif texts is not None:
            written = texts.result()
            result["context"] = ContextJson(len(written), written)
        else:
            result["context"] = ContextJson(_message_count(model, stream, context), None)
        result["settings"] = settings
        result["toolExchange"] = ToolExchangeDiagnostics(len(active), len(historical)).to_json()
        result["contextError"] = None
    return session_path.missing_parent or session_path.cycle


def _settings(model: SourceScan, stream: IO[bytes], path: array[int]) -> Any:
    """``context_settings`` of the path from the only entries that decide it: the last
    thinking-level change and the last model change or assistant message."""
    types = model.types
    assistant = model.marks(model.assistants)
    thinking = naming = -1  # the positions of the last thinking-level and model-naming entries
    for position in range(len(path) - 1, -1, -1):
        number = path[position]
        kind = types[number]
        if thinking < 0 and kind == "thinking_level_change":
            thinking = position
        elif naming < 0 and (kind == "model_change" or assistant[number]):
            naming = position
        if thinking >= 0 and naming >= 0:
            break
    deciding = sorted(position for position in (thinking, naming) if position >= 0)
    return context_settings([model.decode(stream, path[position]) for position in deciding])


def _message_count(model: SourceScan, stream: IO[bytes], context: list[int]) -> int:
    """How many context messages the entries give, decoding only branch summaries."""
    types = model.types
    count = 0
    for number in context:
        kind = types[number]
        if kind in MESSAGE_KINDS:
            count += 1
        elif kind == "branch_summary":
            count += truthy(get(model.decode(stream, number), "summary"))
    return count


def _diagnostics(tree: PiTree, leaf_path_truncated: bool) -> dict[str, Any]:
    model = tree.model
    read = ReadDiagnostics(crlf_lines=model.crlf_lines, unterminated_tail=model.unterminated_tail)
    id_of = model.ids.id_of
    return diagnostics_json(None, _legacy_version(model.header.get("version"))[1], [], read, tree.duplicate_ids(),
                            ((id_of(number), problem) for number, problem in tree.broken_links()),
                            leaf_path_truncated)


def _ids_json(ids: list[Any]) -> bytes:
    if all(entry_id.__class__ is str for entry_id in ids):
        try:
            return msgspec.json.encode(ids)  # escapes strings as JSON.stringify does
        except UnicodeEncodeError:  # a lone surrogate: JSON.stringify escapes it
            pass
    return js_stringify_bytes(ids)


def report_json(report: dict[str, Any]) -> Iterator[bytes]:
    """The JSON text of an inspect object, as ``js_stringify(report) + "\\n"`` writes it, in
    pieces (a model report's context is its messages' texts between brackets)."""
    separator = b"{"
    for key, value in report.items():
        if value is UNDEFINED:
            continue
        yield separator + quote_string(key).encode() + b":"
        separator = b","
        if isinstance(value, ContextJson):
            if value.texts is None:
                raise ValueError("a context without its texts")
            yield b"["
            for index, text in enumerate(value.texts):
                if index:
                    yield b","
                yield text
            yield b"]"
        elif key in ("pathIds", "contextEntryIds") and isinstance(value, list):
            yield _ids_json(value)
        else:
            yield js_stringify_bytes(value)
    yield b"}\n" if separator == b"," else b"{}\n"
