"""A port that breaks the protocol on cue: ``python -I -S chaos_port.py SOCKET STATE``.

Standard library only, so it starts in milliseconds. It passes each stdin line to the reference
served in the test process (:mod:`chaos.reference_server`, over the Unix socket ``SOCKET``) and
gets back the reference's answer and a *kind*: what to do with it. ``clean`` writes the answer
as it is; every other kind breaks the protocol in one way of its own (:data:`KINDS`). It appends
its pid (and any process it starts) to ``STATE/pids`` so a test can check that none is left.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

#: A stdout line longer than the harness takes (conformance.portpipe.MAX_LINE_BYTES is 64 MiB).
FLOOD_BYTES = 65 * 1024 * 1024
BIG_LINE_CHARS = 24 * 1024 * 1024
HANG_SECONDS = 3600.0
PLACEHOLDER = "@@chaos@@"

#: kind -> (the port goes on after it, it spoils the next request of the same port process)
KINDS: dict[str, tuple[bool, bool]] = {
    "clean": (True, False),
    "delay": (True, False),             # the answer, late but within the request timeout
    "lone-surrogate-escape": (True, False),  # "\ud800" escaped in a string of the result
    "lone-surrogate-bytes": (True, False),   # ED A0 80 raw in a string of the result
    "not-utf8": (True, False),          # FF FE C0 raw in a string of the result
    "nan": (True, False),               # NaN as a value of the result
    "infinity": (True, False),          # -Infinity as a value of the result
    "big-line": (True, False),          # a 24 MiB string in the result (one valid line)
    "stderr-flood": (True, False),      # 8 MiB on stderr without a newline, then the answer
    "huge-int": (False, False),         # an integer of 5,000 digits (past Python's int max str digits)
    "deep": (False, False),             # nesting 100,000 deep
    "non-object": (False, False),       # a JSON array, not an object
    "wrong-seq": (False, False),        # the answer with another seq
    "stale": (False, False),            # the previous answer again instead of this one
    "stray": (False, False),            # a line of text before the answer
    "control": (False, False),          # raw control characters inside a JSON string
    "torn-newline": (False, False),     # half the answer, then a newline
    "torn-exit": (False, False),        # half the answer, then exit
    "torn-hang": (False, False),        # half the answer, then silence (the request times out)
    "close-stdout": (False, False),     # stdout closed, the process lives on
    "stdout-flood": (False, False),     # 65 MiB without a newline
    "lines-flood": (False, False),      # 200,000 garbage lines
    "crash": (False, False),            # exit before answering
    "hang": (False, False),             # never answers
    "linger": (False, False),           # a child that keeps the pipes open, then exit without answering
    "duplicate": (True, True),          # the answer twice (the second is an unasked line)
    "exit-after": (True, True),         # the answer, then exit
}


def remember(state: str, pid: int) -> None:
    with open(os.path.join(state, "pids"), "a", encoding="utf-8") as pids:
        pids.write(f"{pid}\n")


def linger(state: str) -> None:
    """A child holding this port's stdout and stderr, asleep."""
    child = subprocess.Popen([sys.executable, "-I", "-S", "-c", "import time; time.sleep(3600)"],
                             stdin=subprocess.DEVNULL)
    remember(state, child.pid)


def in_result(answer: bytes, raw: bytes) -> bytes:
    """The answer with ``raw`` (JSON text, or bytes that are not) as the value of its result's first
    field (a new field ``chaos`` when the result has none): a wrong answer, still in sync."""
    message = json.loads(answer)
    result = message.get("ok")
    if isinstance(result, dict) and result:
        result[next(iter(result))] = PLACEHOLDER
    else:
        message["ok"] = {"chaos": PLACEHOLDER}
    return json.dumps(message).encode().replace(json.dumps(PLACEHOLDER).encode(), raw, 1) + b"\n"


def act(kind: str, answer: bytes, previous: bytes, state: str) -> None:
    out = sys.stdout.buffer
    half = answer[: max(1, len(answer) // 2)]
    if kind == "delay":
        time.sleep(0.2)
    elif kind in ("lone-surrogate-escape", "lone-surrogate-bytes", "not-utf8", "nan", "infinity", "big-line"):
        raw = {"lone-surrogate-escape": b'"x\\ud800y"', "lone-surrogate-bytes": b'"x\xed\xa0\x80y"',
               "not-utf8": b'"x\xff\xfe\xc0y"', "nan": b"NaN", "infinity": b"-Infinity"}.get(kind)
        answer = in_result(answer, raw if raw is not None else b'"' + b"x" * BIG_LINE_CHARS + b'"')
    elif kind == "stderr-flood":
        sys.stderr.buffer.write(b"e" * (8 * 1024 * 1024))
        sys.stderr.buffer.flush()
    elif kind == "huge-int":
        answer = in_result(answer, b"9" * 5000)
    elif kind == "deep":
        answer = in_result(answer, b"[" * 100_000 + b"]" * 100_000)
    elif kind == "non-object":
        answer = b"[" + answer.rstrip(b"\n") + b"]\n"
    elif kind == "wrong-seq":
        message = json.loads(answer)
        answer = json.dumps({**message, "seq": (message.get("seq") or 0) + 7}).encode() + b"\n"
    elif kind == "stale":
        answer = previous or b'{"seq":0,"ok":{}}\n'
    elif kind == "stray":
        out.write(b"chaos: not a protocol line\n")
    elif kind == "control":
        answer = in_result(answer, b'"a\x01\x1b[2Jb\x00"')
    elif kind == "torn-newline":
        answer = half + b"\n"
    elif kind in ("torn-exit", "torn-hang"):
        out.write(half)
        out.flush()
        if kind == "torn-exit":
            os._exit(0)
        time.sleep(HANG_SECONDS)
    elif kind == "close-stdout":
        out.flush()
        os.close(1)
        time.sleep(HANG_SECONDS)
    elif kind == "stdout-flood":
        block = b"f" * (1024 * 1024)
        for _ in range(FLOOD_BYTES // len(block)):
            out.write(block)
        out.flush()
        time.sleep(HANG_SECONDS)
    elif kind == "lines-flood":
        out.write(b"flood\n" * 200_000)
    elif kind == "crash":
        os._exit(70)
    elif kind == "hang":
        time.sleep(HANG_SECONDS)
    elif kind == "linger":
        linger(state)
        os._exit(0)
    elif kind == "duplicate":
        out.write(answer)
    out.write(answer)
    out.flush()
    if kind == "exit-after":
        os._exit(0)


def main() -> int:
    path, state = sys.argv[1], sys.argv[2]
    remember(state, os.getpid())
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.connect(path)
    replies, requests = server.makefile("rb"), server.makefile("wb")
    previous = b""
    for line in sys.stdin.buffer:
        requests.write(line if line.endswith(b"\n") else line + b"\n")
        requests.flush()
        reply = json.loads(replies.readline())
        answer = reply["answer"].encode("utf-8") + b"\n"
        act(reply["kind"], answer, previous, state)
        previous = answer
        if reply.get("last"):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
