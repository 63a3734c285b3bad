"""A port that misbehaves on cue: ``recall-rebase host --stdio`` behind a proxy.

    python faulty_port.py --fault KIND --state DIR [--op OP] [--nth N] -- CMD ARGS...

The proxy starts ``CMD`` (the reference's adapter server), passes protocol lines both ways and,
for the faults that strike a request, misbehaves once: on the ``N``-th request for operation
``OP`` of the whole run (a marker file in ``DIR`` says the fault has fired, so the fresh port the
harness starts afterwards behaves). The start faults strike every start. Each proxy appends its
own pid and its child's to ``DIR/pids`` so a test can check that none is left. Every fault first
writes one ``faulty-port:`` line on stderr, which the harness must show in its report.

Kinds: ``hang`` (never answers, ignores SIGTERM, and leaves a process that holds none of the
port's pipes: only a kill of the whole group ends it), ``crash`` (exits at once), ``stray`` (one
non-protocol stdout line before the answer), ``errored`` (answers ``errored`` instead),
``bad-result`` (the port's answer, with the first field of its result of a wrong JSON type: off
the schema, in sync), ``crash-for-good`` (crashes, then every later start exits at once), ``bad-hello``,
``wrong-version``, ``exit-at-once``, ``slow-start`` (sleeps before the handshake).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

REQUEST_FAULTS = ("hang", "crash", "stray", "errored", "bad-result", "crash-for-good")
START_FAULTS = ("bad-hello", "wrong-version", "exit-at-once", "slow-start")
FIRED = "fired"
PIDS = "pids"
FOREVER = 3600.0


def say(text: str) -> None:
    sys.stderr.write(f"faulty-port: {text}\n")
    sys.stderr.flush()


def write(stream: IO[str], line: str) -> None:
    stream.write(line if line.endswith("\n") else line + "\n")
    stream.flush()


def wrong_type(value: Any) -> Any:
    """A value of another JSON type than ``value``'s."""
    if isinstance(value, str):
        return len(value)
    if value is None or isinstance(value, (list, dict)):
        return 0
    return str(value)


def bad_result(answer: str) -> str:
    """The port's own answer, with the first field of its ``ok`` result of a wrong type."""
    response = json.loads(answer)
    result = response.get("ok")
    if isinstance(result, dict) and result:
        first = next(iter(result))
        result[first] = wrong_type(result[first])
    return json.dumps(response)


def claim(state: Path) -> bool:
    """Whether this proxy is the one to fire: the marker is created atomically, so of the ports
    of a parallel run (``-j N``: one per worker) exactly one fires."""
    try:
        os.close(os.open(state / FIRED, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def fire(kind: str, state: Path, what: str, seq: Any) -> str | None:
    """Misbehave as ``kind`` on this request (once: the marker file); an answer that replaces the port's."""
    (state / FIRED).write_text(what, encoding="utf-8")
    if kind == "hang":
        say(f"hanging on {what}")
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # only a SIGKILL ends this
        remember_pid(state, linger().pid)
        time.sleep(FOREVER)
    elif kind in ("crash", "crash-for-good"):
        say(f"crashing on {what}")
        os._exit(70)
    elif kind == "stray":
        say(f"a stray stdout line on {what}")
        write(sys.stdout, "this is not a protocol line")
    elif kind == "errored":
        say(f"answering errored on {what}")
        return json.dumps({"seq": seq, "errored": True, "context": {"message": "KeyError: 'faulty'"}})
    return None


def linger() -> subprocess.Popen[bytes]:
    """A process that holds no pipe of the port and ignores SIGTERM: only a kill of the group ends it."""
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def start_fault(kind: str, message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """The handshake answer a start fault gives instead of ``answer``."""
    if kind == "bad-hello":
        say("answering the handshake with a hello that is not one")
        return {"seq": message.get("seq"), "ok": {"implementation": "faulty", "operations": 3}}
    if kind == "wrong-version":
        say("answering the handshake with protocol version 2")
        return {**answer, "ok": {**answer["ok"], "protocolVersion": 2}}
    return answer


def relay(child: subprocess.Popen[str], line: str) -> str:
    assert child.stdin is not None and child.stdout is not None
    write(child.stdin, line)
    return child.stdout.readline()


def serve(args: argparse.Namespace, child: subprocess.Popen[str]) -> int:
    state, count = Path(args.state), 0
    for line in sys.stdin:
        message = json.loads(line)
        cmd, what = message.get("cmd"), f"request {message.get('seq')} ({message.get('op') or message.get('cmd')})"
        if cmd == "start" and args.fault == "slow-start":
            say("starting slowly")
            time.sleep(FOREVER)
        replaced = None
        if cmd == "request" and message.get("op") == args.op and args.fault in REQUEST_FAULTS:
            count += 1
            if count == args.nth and claim(state):
                replaced = fire(args.fault, state, what, message.get("seq"))
                if args.fault == "bad-result":
                    say(f"answering {what} with a result of a wrong type")
                    replaced = bad_result(relay(child, line))
        answer = replaced or relay(child, line)
        if cmd == "start":
            answer = json.dumps(start_fault(args.fault, message, json.loads(answer)))
        write(sys.stdout, answer)
        if cmd == "stop":
            break
    return 0


def remember_pid(state: Path, pid: int) -> None:
    with (state / PIDS).open("a", encoding="utf-8") as pids:
        pids.write(f"{pid}\n")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", required=True, choices=REQUEST_FAULTS + START_FAULTS)
    parser.add_argument("--state", required=True)
    parser.add_argument("--op", default="text.measure")
    parser.add_argument("--nth", type=int, default=1)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    state = Path(args.state)
    remember_pid(state, os.getpid())
    if args.fault == "exit-at-once" or (args.fault == "crash-for-good" and (state / FIRED).exists()):
        say("exiting at once")
        return 3
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    remember_pid(state, child.pid)
    try:
        return serve(args, child)
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
