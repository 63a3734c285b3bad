"""Secret detection: the candidates on the labelled corpus, throughput, and the 4 MiB record read.

    python bench/run.py privacy [--mb 8] [--repeat 3] [--only corpus|throughput|read] [--json]

1. corpus: every layer of ``reference.privacy.detection`` and, when installed, ``detect-secrets``
   1.5 with and without its entropy plugins, alone and with the contract floor; caught/total,
   near-miss false positives (``reference.privacy.corpus_check``);
2. throughput on real-shaped text (the searchable strings of a generated session with its fake
   secrets) of ``detection.redact`` against the contract's four patterns, in the same run;
3. ``HistoryService.read`` of a record just under the 4 MiB limit (the one bench/history.py
   builds) with the chosen detector and with the four patterns only (the sanitizer's ``redact``
   swapped for ``redact_secrets``), first read (nothing remembered) and again; against Pi's own
   open of the same session file in the same run (bench/pi_open.py: a cold ``node`` process and
   the open alone in a warm one), and what a user waits for in a fresh process: a cold
   ``recall-rebase host`` that searches for the record and reads it (index already built).
   Without Node or Pi it says the Pi baseline was not measured and how to install it.

Never an assertion: speed is reported, not tested.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
try:
    import reference  # noqa: F401
except ImportError:
    sys.path.append(str(HERE.parent))

import pi_open  # noqa: E402  (bench/ is on sys.path)

from reference.privacy import corpus_check  # noqa: E402
from reference.privacy import detection as secrets  # noqa: E402
from reference.privacy.redaction import redact_secrets  # noqa: E402

Detector = Callable[[str], tuple[str, int]]


def _detect_secrets(entropy: bool) -> Detector | None:
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import transient_settings
    except ImportError:
        return None
    plugins = [{"name": c.__name__} for c in get_mapping_from_secret_type_to_class().values()]
    if not entropy:
        plugins = [p for p in plugins if "Entropy" not in p["name"]]

    def run(text: str) -> tuple[str, int]:
        found: set[str] = set()
        count = 0
        with transient_settings({"plugins_used": plugins}):
            for line in text.split("\n"):
                for item in scan_line(line):
                    if item.secret_value:
                        found.add(item.secret_value)
                        count += 1
        for value in sorted(found, key=len, reverse=True):
            text = text.replace(value, "[X]")
        return text, count

    return run


def _then(first: Detector, second: Detector) -> Detector:
    def run(text: str) -> tuple[str, int]:
        text, a = first(text)
        text, b = second(text)
        return text, a + b

    return run


def corpus_scores() -> list[dict[str, Any]]:
    corpus = corpus_check.Corpus.load(HERE.parent / "fixtures" / "privacy")
    detectors: dict[str, Detector] = dict(corpus_check.DETECTORS)
    detectors["floor + betterleaks"] = _then(redact_secrets, secrets.engine_redact)
    for entropy in (False, True):
        ds = _detect_secrets(entropy)
        if ds is not None:
            name = "detect-secrets" + (" (entropy on)" if entropy else " (entropy off)")
            detectors[name] = ds
            detectors["floor + " + name] = _then(redact_secrets, ds)
    secrets.engine_redact("warm up")  # the engine loads its rules once
    scores = [corpus_check.score(corpus, name, det) for name, det in detectors.items()]
    for line in corpus_check.report(corpus, scores):
        print(line)
    near = len(corpus.labels["nearMisses"])
    return [{"name": s.name, "caught": s.caught, "total": s.total, "flagged": len(s.flagged),
             "near_misses": near, "families_whole": sum(1 for c, t in s.families.values() if c == t),
             "seconds": s.seconds} for s in scores]  # fmt: skip


def _real_texts(mb: float) -> list[str]:
    from reference.fixturegen.generator import generate
    from reference.fixturegen.options import GenOptions

    with tempfile.TemporaryDirectory() as tmp:
        [session] = generate(Path(tmp), GenOptions(seed=20261201, target_bytes=int(mb * 1e6)))
        lines = session.path.read_text(encoding="utf-8").split("\n")
    texts = []
    for line in lines:
        if line.strip():
            texts.append("\n".join(corpus_check._strings(json.loads(line))))
    return texts


def throughput(mb: float, repeat: int) -> dict[str, Any]:
    texts = _real_texts(mb)
    chars = sum(len(t) for t in texts)
    out: dict[str, Any] = {"texts": len(texts), "chars": chars}
    for name, det in (("four patterns", redact_secrets), ("house rules", secrets.house_redact),
                      ("betterleaks", secrets.engine_redact), ("chosen", secrets.redact)):  # fmt: skip
        best = min(_timed(lambda d=det: [d(t) for t in texts]) for _ in range(repeat))
        out[name] = {"seconds": best, "mchars_per_s": chars / best / 1e6}
        print(f"throughput {name}: {chars / best / 1e6:.2f} M chars/s ({len(texts)} entries, {chars / 1e6:.1f} M chars)")
    return out


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def _host_read(session: Path, index: Path, home: Path, query: str, cwd: str) -> dict[str, float] | str:
    """One fresh ``recall-rebase host`` process: start, search for the record, read it; the wall
    milliseconds to the search's answer and to the read's, or why it failed."""
    import reference

    env = {key: value for key, value in os.environ.items() if key != "PI_CODING_AGENT_DIR"}
    root = str(Path(reference.__file__).resolve().parent.parent)
    env.update(HOME=str(home), PYTHONPATH=os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p))
    command = [sys.executable, "-m", "reference.cli", "host", "--session", str(session), "--cwd", cwd,
               "--provider", "ollama", "--index", str(index)]  # fmt: skip
    started = time.perf_counter()
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, env=env) as host:  # fmt: skip
        if host.stdin is None or host.stdout is None:
            return "no pipes to the host"
        try:
            host.stdout.readline()  # the greeting
            host.stdin.write(f"/context history search {query}\n")
            host.stdin.flush()
            hits = json.loads(host.stdout.readline()).get("hits") or []
            search = time.perf_counter() - started
            if not hits:
                return "the search found nothing"
            host.stdin.write(f"/context history read {hits[0]['sourceRef']}\n")
            host.stdin.flush()
            read = json.loads(host.stdout.readline())
            total = time.perf_counter() - started
            host.stdin.write("/quit\n")
            host.stdin.flush()
        except (OSError, ValueError, KeyError) as exc:
            host.kill()
            return f"the host failed: {type(exc).__name__}"
    if read.get("status") not in ("complete", "partial"):
        return f"the read answered {read.get('status')!r}"
    return {"search_ms": search * 1000, "total_ms": total * 1000}


def host_read(session: Path, index: Path, home: Path, query: str, cwd: str, repeat: int) -> dict[str, Any]:
    _host_read(session, index, home, query, cwd)  # brings the index up to date with this host's view
    runs = [_host_read(session, index, home, query, cwd) for _ in range(repeat)]
    failed = [run for run in runs if isinstance(run, str)]
    if failed:
        return {"measured": False, "why": failed[0]}
    good = [run for run in runs if not isinstance(run, str)]
    return {"measured": True, "search_ms": statistics.median(r["search_ms"] for r in good),
            "total_ms": statistics.median(r["total_ms"] for r in good)}  # fmt: skip


def big_read(repeat: int) -> dict[str, Any]:
    from history import BIG_MARKER, PROJECT_CWD, _big_record_line  # bench/ is on sys.path

    from reference.config.defaults import default_config
    from reference.pi.leaf import DEFAULT_LEAF
    from reference.primitives.clock import SystemClock
    from reference.privacy import entry, sanitizer
    from reference.recall.service import HistoryHost, HistoryService

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "read.jsonl"
        header = {"type": "session", "version": 3, "id": "01972b5c-ee00-7000-8000-00000000b1g0",
                  "timestamp": "2026-01-01T00:00:00.000Z", "cwd": PROJECT_CWD}  # fmt: skip
        first = {"type": "message", "id": "first001", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
                 "message": {"role": "user", "content": "run the nightly build", "timestamp": 1767225601000}}  # fmt: skip
        body = "".join(json.dumps(v, separators=(",", ":")) + "\n" for v in (header, first)).encode()
        path.write_bytes(body + _big_record_line("first001", "2026-01-01T00:00:02.000Z", 1767225602000))
        host = HistoryHost(session_file=str(path), project_path=PROJECT_CWD, project_trusted=True,
                           config=default_config(), provider="ollama", leaf=DEFAULT_LEAF,
                           session_id=header["id"])  # fmt: skip
        service = HistoryService(host, index_path=str(Path(tmp) / "index.sqlite"), clock=SystemClock())
        found = service.recall({"query": f"`{BIG_MARKER}`", "scope": "current-session", "limit": 1}).as_json()
        ref = found["hits"][0]["sourceRef"]
        results: dict[str, Any] = {"record_bytes": path.stat().st_size - len(body)}
        chosen = sanitizer.redact
        for name, redact in (("four patterns", redact_secrets), ("chosen", chosen)):
            sanitizer.redact = redact  # type: ignore[assignment]
            saved = entry.extended_redact
            if redact is redact_secrets:
                entry.extended_redact = lambda text: (text, 0)  # type: ignore[assignment]

            def first_read() -> None:
                service.findings = entry.EntryFindings()
                service.read({"sourceRef": ref})

            first_read()
            results[name] = {
                "first_read_ms": statistics.median(_timed(first_read) for _ in range(repeat)) * 1000,
                "again_ms": statistics.median(_timed(lambda: service.read({"sourceRef": ref})) for _ in range(repeat)) * 1000,
            }
            entry.extended_redact = saved  # type: ignore[assignment]
            print(f"read of the {results['record_bytes']:,} byte record, {name}: first {results[name]['first_read_ms']:.0f} ms,"
                  f" again {results[name]['again_ms']:.0f} ms")  # fmt: skip
        sanitizer.redact = chosen  # type: ignore[assignment]
        service.close() if hasattr(service, "close") else None
        home = Path(tmp) / "home"
        home.mkdir(mode=0o700)
        results["host"] = host_read(path, Path(tmp) / "index.sqlite", home, f"`{BIG_MARKER}`", PROJECT_CWD, repeat)
        results["pi"] = pi_open.measure(path, repeat)
    _print_against_pi(results)
    return results


def _print_against_pi(results: dict[str, Any]) -> None:
    pi, host, ours = results["pi"], results["host"], results["chosen"]["first_read_ms"]
    if host["measured"]:
        print(f"a fresh recall-rebase host, search then read of that record: {host['total_ms']:.0f} ms"
              f" (the search's answer at {host['search_ms']:.0f} ms)")  # fmt: skip
    else:
        print(f"a fresh recall-rebase host was not measured: {host['why']}")
    if not pi["measured"]:
        print(f"Pi's own open of that session was not measured: {pi['why']}; {pi['install']}")
        return
    print(f"Pi {pi['pi']}'s own open of that session (SessionManager.open + buildSessionContext, a private copy):"
          f" cold process {pi['cold_ms']:.0f} ms (Node's start alone {pi['node_start_ms']:.0f} ms, Pi's import"
          f" {pi['cold_import_ms']:.0f} ms, the open {pi['cold_open_ms']:.0f} ms), warm {pi['warm_ms']:.1f} ms"
          f" (median of {pi['warm_runs']})")  # fmt: skip
    ratios = {"first_read_vs_pi_cold": ours / pi["cold_ms"], "first_read_vs_pi_warm": ours / pi["warm_ms"]}
    if host["measured"]:
        ratios["host_vs_pi_cold"] = host["total_ms"] / pi["cold_ms"]
    results["ratios"] = ratios
    line = f"our first read (chosen) {ours:.0f} ms = {ratios['first_read_vs_pi_cold']:.2f}x Pi's cold open,"
    line += f" {ratios['first_read_vs_pi_warm']:.1f}x Pi's warm open"
    if host["measured"]:
        line += f"; the fresh host {ratios['host_vs_pi_cold']:.2f}x Pi's cold open"
    print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/run.py privacy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--mb", type=float, default=8.0, help="size of the real-shaped session (MB)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", choices=("corpus", "throughput", "read"), action="append",
                        help="run only this part (repeatable; default: all three)")  # fmt: skip
    args = parser.parse_args(argv)
    parts = args.only or ["corpus", "throughput", "read"]
    report: dict[str, Any] = {}
    # With --json the readable lines go to stderr, so stdout is one JSON document for scripts.
    with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
        if "corpus" in parts:
            report["corpus"] = corpus_scores()
        if "throughput" in parts:
            report["throughput"] = throughput(args.mb, args.repeat)
        if "read" in parts:
            report["read"] = big_read(args.repeat)
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
