"""The reference implementation behind the adapter protocol: one handler per operation.

The same table serves the in-process adapter and ``recall-rebase host --stdio`` (:func:`serve_stdio`,
the line transport).  Results pass
through JavaScript JSON semantics (``undefined`` dropped, NaN as ``null``) so both transports
return identical values.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from typing import Any, Final

from reference import __version__
from reference.config.commands import op_config_set, op_config_show, op_config_unset
from reference.pi.exact.inspection import describe_node
from reference.pi.exact.reader import iter_records, open_session_file
from reference.pi.exact.session import load_session
from reference.pi.host.facts import op_host_facts
from reference.pi.leaf import DEFAULT_LEAF
from reference.pi.session_inspect import inspect_report
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonParseError, js_parse, js_stringify
from reference.primitives.params import bool_param, safe_integer_param, string_param, unusable_path
from reference.primitives.platform_ops.paths import canonical_path, session_dir_name
from reference.primitives.textunits import chars_v1_tokens, slice_utf16, utf8_length, utf16_length
from reference.privacy.egress import context_event, op_egress_sanitize, provider_payload

JsonObject = dict[str, Any]
Handler = Callable[[Mapping[str, Any]], JsonObject]

IMPLEMENTATION: Final = {"name": "recall-rebase-reference", "version": __version__, "language": "python"}
RECORDS_LIMIT: Final = 100_000
#: The audit mapping the toolkit ships for the reference's index (the hello's ``auditMapping``).
AUDIT_MAPPING: Final = "reference"
#: What ``session.records`` says of each record, in this order (then ``id`` and ``type`` when strings).
RECORD_FIELDS: Final = ("line", "start", "end", "sha256", "kind", "terminated", "crlf")


def op_session_inspect(params: Mapping[str, Any]) -> JsonObject:
    path = string_param(params, "path")
    leaf = params.get("leaf", DEFAULT_LEAF)
    return inspect_report(path, leaf, values=True)  # the CLI's path: the session model, else the exact one


def op_session_node(params: Mapping[str, Any]) -> JsonObject:
    return describe_node(string_param(params, "path"), string_param(params, "id"))


def op_session_records(params: Mapping[str, Any]) -> JsonObject:
    """Every physical record with locator, raw SHA-256 and kind (for small files)."""
    path = string_param(params, "path")
    load_session(path)  # the same refusals as inspect for bad input
    records: list[JsonObject] = []
    with open_session_file(path) as stream:
        for record in iter_records(stream):
            if len(records) >= RECORDS_LIMIT:
                raise ContractViolation(Code.TOO_MANY_RECORDS, f"more than {RECORDS_LIMIT} records")
            item: JsonObject = {name: getattr(record, name) for name in RECORD_FIELDS}
            item["kind"] = str(record.kind)  # in its place: a key set again keeps its order
            if isinstance(record.id, str):
                item["id"] = record.id
            if isinstance(record.type, str):
                item["type"] = record.type
            records.append(item)
    return {"records": records}


def op_json_canonicalize(params: Mapping[str, Any]) -> JsonObject:
    """``JSON.stringify(JSON.parse(text))``: the serializer seen through a portable request."""
    try:
        value = js_parse(string_param(params, "text"))
    except JsonParseError as exc:
        raise ContractViolation(Code.INVALID_JSON, str(exc)) from None
    return {"text": js_stringify(value)}


def op_text_measure(params: Mapping[str, Any]) -> JsonObject:
    text = string_param(params, "text")
    return {"utf16Length": utf16_length(text), "utf8Length": utf8_length(text), "tokens": chars_v1_tokens(text)}


def op_text_slice(params: Mapping[str, Any]) -> JsonObject:
    units = safe_integer_param(params, "maxUnits")  # 2.0 is 2: JSON (and JavaScript) have one number type
    return {"text": slice_utf16(string_param(params, "text"), units)}


def op_path_canonical(params: Mapping[str, Any]) -> JsonObject:
    return {"path": canonical_path(string_param(params, "path"))}


def op_path_session_dir_name(params: Mapping[str, Any]) -> JsonObject:
    return {"name": session_dir_name(string_param(params, "cwd"))}


OPERATIONS: Final[dict[str, Handler]] = {
    "session.inspect": op_session_inspect,
    "session.records": op_session_records,
    "session.node": op_session_node,
    "json.canonicalize": op_json_canonicalize,
    "text.measure": op_text_measure,
    "text.slice": op_text_slice,
    "path.canonical": op_path_canonical,
    "path.sessionDirName": op_path_session_dir_name,
    "host.facts": lambda params: op_host_facts(dict(params)),
    "config.show": op_config_show,
    "config.set": op_config_set,
    "config.unset": op_config_unset,
    "egress.sanitize": op_egress_sanitize,
}


def as_json_value(value: Any) -> Any:
    """A result as it looks after crossing a JSON boundary with JavaScript semantics."""
    return json.loads(js_stringify(value))


#: The rebase operations, each by the method of the host's rebase state that answers it.
REBASE_METHODS: Final = {"rebase.open": "open", "rebase.setFacts": "set_facts", "rebase.run": "run",
                         "rebase.crash": "crash", "rebase.beforeCompact": "before_compact"}
#: Operations that need the process's history host (its references and clock live between calls).
STATEFUL_OPERATIONS: Final = (
    "history.open",
    "history.recall",
    "history.read",
    "history.status",
    "history.setLeaf",
    "history.setProvider",
    "history.setAborted",
    "history.restart",
    "history.contextEvent",
    "history.providerRequest",
    "clock.set",
    "clock.advance",
    *REBASE_METHODS,
)


#: The parameters that name files or folders, per operation (the host facts' ``env`` and ``argv`` too).
PATH_PARAMS: Final = {
    "session.inspect": ("path",), "session.records": ("path",), "session.node": ("path",),
    "path.canonical": ("path",), "path.sessionDirName": ("cwd",),
    "host.facts": ("home", "cwd"), "config.show": ("home", "cwd"), "config.set": ("home", "cwd"),
    "config.unset": ("home", "cwd"),
    "history.open": ("home", "cwd", "sessionFile", "indexPath"),
    "rebase.open": ("home", "cwd", "sessionFile", "indexPath"),
}


def check_paths(op: str, params: Mapping[str, Any]) -> None:
    """``invalid-path`` for a path parameter, an ``env`` value or an ``argv`` word with a NUL or a
    lone surrogate: no file can have that name (Node would throw or open another name)."""
    keys = PATH_PARAMS.get(op, ())
    env = params.get("env") if keys else None
    argv = params.get("argv") if keys else None
    named = [(key, params.get(key)) for key in keys]
    named += [(f"env.{key}", value) for key, value in env.items()] if isinstance(env, dict) else []
    named += [(f"argv[{i}]", value) for i, value in enumerate(argv)] if isinstance(argv, list) else []
    for name, value in named:
        if isinstance(value, str) and (why := unusable_path(value)):
            raise ContractViolation(Code.INVALID_PATH, f"parameter {name!r} {why}")


class ReferenceAdapter:
    """The in-process adapter: the reference is one implementation among others.

    One instance is one host process: ``recall-rebase host --stdio`` serves exactly one.
    """

    def __init__(self) -> None:
        self._history: Any = None
        self._rebase: Any = None

    def _history_state(self) -> Any:
        if self._history is None:
            from reference.recall.host import HistoryHostState

            self._history = HistoryHostState()
        return self._history

    def _rebase_state(self) -> Any:
        if self._rebase is None:
            from reference.rebase.adapter_state import RebaseHostState

            self._rebase = RebaseHostState(clock=self._history_state().clock)
        return self._rebase

    def dispatch(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        """Stateless operations from the table, stateful ones on this host's history and rebase
        state (one clock for both)."""
        check_paths(op, params)
        if op not in STATEFUL_OPERATIONS:
            handler = OPERATIONS.get(op)
            if handler is None:
                raise ContractViolation(Code.UNKNOWN_OPERATION, f"operation {op!r} is not implemented")
            return dict(as_json_value(handler(params)))
        if op in REBASE_METHODS:
            return dict(as_json_value(getattr(self._rebase_state(), REBASE_METHODS[op])(params)))
        state = self._history_state()
        if op == "history.open":
            from reference.recall.host import HistoryOpening

            service = state.open(HistoryOpening.from_params(params))
            return {"sessionId": service.host.session_id, "indexPath": service.index_path,
                    "provider": service.host.provider}
        if op == "clock.set":
            return {"nowMs": state.set_clock(safe_integer_param(params, "nowMs"))}
        if op == "clock.advance":
            return {"nowMs": state.advance_clock(safe_integer_param(params, "ms"))}
        if op == "history.setAborted":
            aborted = bool_param(params, "aborted")  # refused before "history.open must come first"
            state.require().host.aborted = aborted
            return {}
        service = state.require()
        host = service.host
        if op in ("history.recall", "history.read", "history.status"):
            arguments = params["arguments"]  # an object: checked at the edge
            return dict(as_json_value(service.call(op.removeprefix("history."), arguments).as_json()))
        if op == "history.contextEvent":  # the egress sanitizer runs first (§6.15)
            messages = context_event(params.get("messages"), provider=host.provider, config=host.config)
            return dict(as_json_value({"messages": messages}))
        if op == "history.providerRequest":
            payload = provider_payload(params.get("payload"), provider=host.provider, config=host.config)
            return dict(as_json_value({"payload": payload}))
        if op == "history.setLeaf":
            host.leaf = params.get("leaf", DEFAULT_LEAF)
        elif op == "history.setProvider":
            host.provider, host.provider_at_leaf = params.get("provider"), False
        else:  # history.restart: the same host facts, a new process, so every ref is forgotten
            state.restart()
        return {}

    def start(self) -> Any:
        from conformance.stdio import handshake_info

        return handshake_info(hello())  # the hello ``host --stdio`` sends, as the runner reads it

    def stop(self) -> None:
        return None

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        from conformance.protocol import ContractError
        from conformance.request_checks import Refusal, check_params

        sent = as_json_value(dict(params))
        try:
            check_params(op, sent)  # as host --stdio checks it: both transports refuse alike
            return self.dispatch(op, sent)
        except Refusal as refusal:
            raise ContractError(refusal.code, refusal.message) from None
        except ContractViolation as exc:
            raise ContractError(exc.code, exc.message) from None


def hello() -> JsonObject:
    """The handshake of the reference: its name, protocol version, operations, audit mapping and
    platform (``sys.platform`` as the hello names it, posix families)."""
    from conformance.platforms import platform_of
    from conformance.protocol import PROTOCOL_VERSION

    return {"implementation": IMPLEMENTATION, "protocolVersion": PROTOCOL_VERSION,
            "operations": [*OPERATIONS, *STATEFUL_OPERATIONS], "auditMapping": AUDIT_MAPPING,
            "platform": platform_of().value}


def serve_stdio() -> int:
    """Serve the adapter protocol on stdin/stdout for one host process (``recall-rebase host --stdio``)."""
    from conformance.stdio import serve

    implementation = ReferenceAdapter()  # one host process: its references live as long as it does
    # Reconfigure so a crash in the middle of a line never leaves half a message behind.
    sys.stdout.reconfigure(line_buffering=True, encoding="utf-8")  # type: ignore[union-attr]
    # Bytes that are not UTF-8 reach the server as lone surrogates, refused as invalid-request.
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")  # type: ignore[union-attr]
    return serve(implementation.dispatch, hello(), ContractViolation, encode=js_stringify)
