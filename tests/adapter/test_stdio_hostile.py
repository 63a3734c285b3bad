"""Issue 12, the ``--stdio`` server: one test per hostile line of the issue's "Why".

Each asserts the code of the refusal, that no output has a traceback (nor an ``errored``
answer), and that the good request sent after it is still served. Most run the in-process
server (``conformance.stdio.serve`` over StringIO); the byte-level ones run a real
``recall-rebase host --stdio``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testkit.stdio_lines import GOOD, GOOD_ANSWER, START, real_host, refusal, request, serve_lines

from conformance import schemas
from conformance.request_checks import MAX_LINE_CHARS, start_problem
from reference.adapter.operations import ReferenceAdapter

STEP = '{"seq":2,"cmd":"request","op":"text.measure","params":{"text":"a"}}'

MALFORMED = {
    "not JSON": "{bad",
    "an array": "[]",
    "null": "null",
    "a number": "5",
    "a string": '"start"',
    "a BOM": "\ufeff" + STEP,
    "a NUL after the value": STEP + "\x00",
    "a NUL inside": STEP[:10] + "\x00" + STEP[10:],
    "trailing garbage": STEP + " xx",
    "two values": STEP + STEP,
    "deep nesting": "[" * 100_000 + "]" * 100_000,
    "deep nesting in an object": '{"seq":2,"cmd":"request","op":"text.measure","params":' + '{"a":' * 5000 + "1" + "}" * 5001,
    "a 5,000-digit seq": '{"seq":' + "9" * 5000 + ',"cmd":"stop"}',
    "NaN": '{"seq":2,"cmd":"request","op":"text.measure","params":{"text":NaN}}',
    "a lone surrogate from bytes that are not UTF-8": STEP.replace('"a"', '"\udcff"'),
    "no cmd": '{"seq":2}',
    "cmd not a string": '{"seq":2,"cmd":5}',
    "no params": '{"seq":2,"cmd":"request","op":"text.measure"}',
    "an unknown key": '{"seq":2,"cmd":"request","op":"text.measure","params":{"text":"a"},"x":1}',
    "seq zero": '{"seq":0,"cmd":"request","op":"text.measure","params":{"text":"a"}}',
    "seq 2^53": '{"seq":9007199254740992,"cmd":"request","op":"text.measure","params":{"text":"a"}}',
    "seq a string": '{"seq":"2","cmd":"request","op":"text.measure","params":{"text":"a"}}',
    "op not a string": '{"seq":2,"cmd":"request","op":5,"params":{}}',
}


@pytest.mark.parametrize("line", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_line_is_invalid_request(line: str) -> None:
    _, code = refusal(line)
    assert code == "invalid-request"


def test_a_refused_line_answers_with_its_seq_when_it_has_a_usable_one() -> None:
    assert refusal('{"seq":7,"cmd":"request","op":"text.measure"}') == (7, "invalid-request")
    assert refusal('{"seq":"7","cmd":"request","op":"text.measure","params":{}}') == (None, "invalid-request")


PARAMS: dict[str, tuple[str, Any]] = {
    "params a list": ("text.measure", []),
    "params a string": ("text.measure", "x"),
    "params null": ("text.measure", None),
    "clock.set nowMs null": ("clock.set", {"nowMs": None}),
    "clock.set nowMs true": ("clock.set", {"nowMs": True}),
    "clock.set nowMs a string": ("clock.set", {"nowMs": "5"}),
    "clock.set nowMs negative": ("clock.set", {"nowMs": -1}),
    "clock.set nowMs 2^53": ("clock.set", {"nowMs": 2**53}),
    "clock.advance ms a string": ("clock.advance", {"ms": "5"}),
    "clock.advance ms 1.5": ("clock.advance", {"ms": 1.5}),
    "clock.advance ms 10**400": ("clock.advance", {"ms": 10**400}),
    "clock.advance without ms": ("clock.advance", {}),
    "history.open sessionFile 5": ("history.open", {"home": "/h", "cwd": "/p", "env": {}, "argv": [],
                                                    "sessionFile": 5}),
    "history.setAborted a string": ("history.setAborted", {"aborted": "yes"}),
    "history.setAborted without aborted": ("history.setAborted", {}),
    "recall arguments a list": ("history.recall", {"arguments": []}),
    "read arguments a string": ("history.read", {"arguments": "hist_0"}),
    "status arguments null": ("history.status", {"arguments": None}),
    "session.inspect path a number": ("session.inspect", {"path": 5}),
    "text.slice maxUnits 1.5": ("text.slice", {"text": "a", "maxUnits": 1.5}),
    "text.slice maxUnits -1": ("text.slice", {"text": "a", "maxUnits": -1}),
    "text.slice without maxUnits": ("text.slice", {"text": "a"}),
    "config.show env a list": ("config.show", {"home": "/h", "cwd": "/p", "env": ["A"], "argv": []}),
    "config.unset argv of numbers": ("config.unset", {"home": "/h", "cwd": "/p", "env": {}, "argv": [1],
                                                      "path": "enabled", "global": False}),
    "config.set global a string": ("config.set", {"home": "/h", "cwd": "/p", "env": {}, "argv": [],
                                                  "path": "enabled", "value": "true", "global": "yes"}),
}


@pytest.mark.parametrize(("op", "params"), PARAMS.values(), ids=PARAMS.keys())
def test_a_parameter_of_the_wrong_type_is_invalid_params(op: str, params: Any) -> None:
    assert refusal(request(2, op, params)) == (2, "invalid-params")


@pytest.mark.parametrize("units", [0, 2, 3])
def test_an_integral_number_written_with_a_fraction_is_that_integer(units: int) -> None:
    """JSON has one number type: ``2.0`` is ``2`` (JavaScript's ``Number.isInteger(2.0)``), so a
    port's ``"maxUnits": 2.0`` is answered as ``2``, over stdio as in process."""
    line = '{"seq":2,"cmd":"request","op":"text.slice","params":{"text":"ab\\ud83d\\ude00c","maxUnits":%s}}'
    written, plain = serve_lines(line % f"{units}.0"), serve_lines(line % units)
    assert written == plain and "ok" in plain[0], plain


def test_the_clock_never_passes_2_to_the_53() -> None:
    """``clock.advance 10**400`` made the clock null; a sum past 2^53-1 is refused too."""
    near = 2**53 - 10
    answers = serve_lines(request(2, "clock.set", {"nowMs": near}), request(3, "clock.advance", {"ms": 10**400}),
                          request(4, "clock.advance", {"ms": 20}), request(5, "clock.advance", {"ms": 9}))
    assert answers[0] == {"seq": 2, "ok": {"nowMs": near}}
    assert [a["error"]["code"] for a in answers[1:3]] == ["invalid-params", "invalid-params"]
    assert answers[3] == {"seq": 5, "ok": {"nowMs": near + 9}}


def test_a_json_integer_written_1_0_is_an_integer_as_in_javascript() -> None:
    assert serve_lines('{"seq":2,"cmd":"request","op":"clock.set","params":{"nowMs":5.0}}') == [
        {"seq": 2, "ok": {"nowMs": 5}}]


@pytest.fixture
def history_params(tmp_path: Path) -> dict[str, Any]:
    home, project = tmp_path / "home", tmp_path / "proj"
    (home / ".pi" / "agent").mkdir(parents=True)
    project.mkdir()
    session = tmp_path / "s.jsonl"
    lines = [{"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(project)},
             {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
              "message": {"role": "user", "content": "hello there", "timestamp": 1767225601000}}]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return {"home": str(home), "cwd": str(project), "env": {}, "argv": [], "sessionFile": str(session),
            "indexPath": str(tmp_path / "index.sqlite")}


def _recall_codes(*lines: str) -> list[Any]:
    return [a.get("ok", {}).get("warnings") if "ok" in a else a["error"]["code"] for a in serve_lines(*lines)]


def test_set_aborted_yes_is_refused_and_does_not_arm_the_abort(history_params: dict[str, Any]) -> None:
    recall = request(4, "history.recall", {"arguments": {"query": "hello"}})
    codes = _recall_codes(request(2, "history.open", history_params),
                          request(3, "history.setAborted", {"aborted": "yes"}), recall,
                          request(5, "history.setAborted", {"aborted": True}), recall.replace('"seq": 4', '"seq": 6'))
    assert codes[1] == "invalid-params"
    assert codes[2] != ["aborted"]  # the refused "yes" armed nothing
    assert codes[4] == ["aborted"]  # and a real true does


def test_non_object_tool_arguments_are_refused_and_the_host_keeps_its_references(
        history_params: dict[str, Any]) -> None:
    adapter = ReferenceAdapter()
    opened = serve_lines(request(2, "history.open", history_params),
                         request(3, "history.recall", {"arguments": {"query": "hello"}}), adapter=adapter)
    ref = opened[1]["ok"]["hits"][0]["sourceRef"]
    answers = serve_lines(request(4, "history.read", {"arguments": []}), request(5, "history.recall", {"arguments": 5}),
                          request(6, "history.read", {"arguments": {"sourceRef": ref}}), adapter=adapter)
    assert [a["error"]["code"] for a in answers[:2]] == ["invalid-params", "invalid-params"]
    assert answers[2]["ok"]["status"] == "complete"


BAD_PATHS = {
    "session.inspect NUL": ("session.inspect", {"path": "/tmp/a\x00b"}),
    "session.inspect lone surrogate": ("session.inspect", {"path": "/tmp/a\ud800b"}),
    "session.records NUL": ("session.records", {"path": "/tmp/a\x00b"}),
    "session.node lone surrogate": ("session.node", {"path": "/tmp/\udfff", "id": "x"}),
    "path.canonical NUL": ("path.canonical", {"path": "a\x00"}),
    "path.canonical lone surrogate": ("path.canonical", {"path": "/\ud800"}),
    "path.sessionDirName lone surrogate": ("path.sessionDirName", {"cwd": "/\ud800"}),
    "host.facts home NUL": ("host.facts", {"home": "/h\x00", "cwd": "/p", "env": {}, "argv": []}),
    "host.facts env NUL": ("host.facts", {"home": "/h", "cwd": "/p", "env": {"PI_CODING_AGENT_DIR": "/a\x00"},
                                          "argv": []}),
    "config.show cwd lone surrogate": ("config.show", {"home": "/h", "cwd": "/p\udc80", "env": {}, "argv": []}),
    "history.open sessionFile NUL": ("history.open", {"home": "/h", "cwd": "/p", "env": {}, "argv": [],
                                                      "sessionFile": "/s\x00"}),
    "history.open indexPath lone surrogate": ("history.open", {"home": "/h", "cwd": "/p", "env": {}, "argv": [],
                                                               "indexPath": "/i\ud800"}),
    "rebase.open sessionFile NUL": ("rebase.open", {"home": "/h", "cwd": "/p", "env": {}, "argv": [],
                                                    "sessionFile": "/s\x00"}),
}


@pytest.mark.parametrize(("op", "params"), BAD_PATHS.values(), ids=BAD_PATHS.keys())
def test_a_path_with_a_nul_or_a_lone_surrogate_is_invalid_path(op: str, params: Any) -> None:
    assert refusal(request(2, op, params)) == (2, "invalid-path")


def test_a_request_before_start_is_refused_and_start_still_works() -> None:
    answers = serve_lines(STEP, START, started=False)
    assert answers == [{"seq": 2, "error": {"code": "not-started",
                                            "message": "no request is served before a successful start"}},
                       {"seq": 1, "ok": answers[1]["ok"]}]


def test_a_start_with_another_version_does_not_start() -> None:
    lines = ['{"seq":1,"cmd":"start","protocolVersion":2}', STEP]
    codes = [a["error"]["code"] for a in serve_lines(*lines, START, started=False)[:2]]
    assert codes == ["unsupported-protocol-version", "not-started"]


def test_unknown_commands_and_operations_keep_their_codes() -> None:
    assert refusal('{"seq":2,"cmd":"restart"}') == (2, "unknown-command")
    assert refusal(request(2, "no.such", {})) == (2, "unknown-operation")


@pytest.mark.parametrize("message", [
    {"seq": 1, "cmd": "start", "protocolVersion": 1}, {"seq": 1, "cmd": "start"},
    {"seq": 0, "cmd": "start", "protocolVersion": 1}, {"seq": True, "cmd": "start", "protocolVersion": 1},
    {"seq": 1, "cmd": "start", "protocolVersion": True}, {"seq": 1, "cmd": "start", "protocolVersion": 1.0},
    {"seq": 1, "cmd": "start", "protocolVersion": 1, "x": 0}, {"seq": 2**53, "cmd": "start", "protocolVersion": 1},
])
def test_the_start_line_check_agrees_with_the_schema(message: dict[str, Any]) -> None:
    """The handshake is checked by hand (no jsonschema import before the hello): the same verdict."""
    by_schema = schemas.errors(message, "adapter/v1/message.schema.json#/$defs/startRequest")
    assert (start_problem(message) is None) == (not by_schema)


def test_a_line_one_past_the_bound_is_too_large_and_the_bound_itself_is_not() -> None:
    text = '{"seq":2,"cmd":"request","op":"text.measure","params":{"text":"'
    at_bound = text + "x" * (MAX_LINE_CHARS - len(text) - 3) + '"}}'
    assert len(at_bound) == MAX_LINE_CHARS
    assert serve_lines(at_bound)[0]["ok"]["utf16Length"] == MAX_LINE_CHARS - len(text) - 3
    assert refusal(at_bound[:-3] + 'x"}}') == (None, "request-too-large")


# A real host --stdio: bytes as a port would get them, and the 50 MB line.

def test_a_real_host_refuses_raw_bytes_and_goes_on(tmp_path: Path) -> None:
    lines = [b"\xef\xbb\xbf" + STEP.encode(), STEP.encode() + b"\x00", b"\xff\xfe{}", STEP.encode() + b" trailing",
             b"{bad", b"[]", b"null", b"5"]
    data = b"".join(line + b"\n" for line in [START.encode(), *lines, GOOD.encode()])
    answers, _ = real_host(data, cwd=tmp_path)
    assert [a["error"]["code"] for a in answers[1:-1]] == ["invalid-request"] * len(lines)
    assert answers[-1] == GOOD_ANSWER


def _peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_real_host_skips_a_50_mb_line_without_holding_it(tmp_path: Path) -> None:
    import os
    import subprocess

    from testkit.stdio_lines import HOST, REPO_ROOT, answers

    process = subprocess.Popen(HOST, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(START.encode() + b"\n")
    process.stdin.flush()
    process.stdout.readline()
    before = _peak_kib(process.pid)
    big = b'{"seq":2,"cmd":"request","op":"text.measure","params":{"text":"' + b"x" * 50_000_000 + b'"}}\n'
    process.stdin.write(big + GOOD.encode() + b"\n")
    process.stdin.flush()
    got = answers(process.stdout.readline().decode() + process.stdout.readline().decode())
    grown_mib = (_peak_kib(process.pid) - before) / 1024
    process.stdin.write(b'{"seq":100,"cmd":"stop"}\n')
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    assert got[0]["error"]["code"] == "request-too-large" and got[1] == GOOD_ANSWER
    assert b"Traceback" not in (process.stderr.read() if process.stderr else b"")
    assert grown_mib < 40, f"the host grew by {grown_mib:.0f} MiB reading a 50 MB line"


def test_the_in_process_start_is_the_hello_a_real_host_sends(tmp_path: Path) -> None:
    from conformance.stdio import handshake_info

    answers, _ = real_host((START + "\n").encode(), cwd=tmp_path)
    assert handshake_info(answers[0]["ok"]) == ReferenceAdapter().start()


def test_session_records_say_each_record_in_the_schema_order() -> None:
    from testkit.paths import REPO_ROOT

    path = str(REPO_ROOT / "fixtures" / "valid" / "linear.jsonl")
    records = ReferenceAdapter().request("session.records", {"path": path})["records"]
    assert list(records[0]) == ["line", "start", "end", "sha256", "kind", "terminated", "crlf", "id", "type"]
    assert list(records[1]) == list(records[0])
    assert records[0]["kind"] == "header" and type(records[0]["kind"]) is str
    assert [record["line"] for record in records] == list(range(1, len(records) + 1))
