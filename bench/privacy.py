"""Secret detection: the candidates on the labelled corpus, throughput, and the 4 MiB record read.

    python bench/run.py privacy [--mb 8] [--repeat 3] [--json]

1. corpus: every layer of ``reference.privacy.detection`` and, when installed, ``detect-secrets``
   1.5 with and without its entropy plugins, alone and with the contract floor; caught/total,
   near-miss false positives (``reference.privacy.corpus_check``);
2. throughput on real-shaped text (the searchable strings of a generated session with its fake
   secrets) of ``detection.redact`` against the contract's four patterns, in the same run;
3. ``HistoryService.read`` of a record just under the 4 MiB limit (the one bench/history.py
   builds) with the chosen detector and with the four patterns only (the sanitizer's ``redact``
   swapped for ``redact_secrets``), first read (nothing remembered) and again.

Never an assertion: speed is reported, not tested.
"""

from __future__ import annotations

import argparse
import json
import statistics
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
    return [{"name": s.name, "caught": s.caught, "total": s.total, "flagged": len(s.flagged) + len(s.floor_flagged),
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


def big_read(repeat: int) -> dict[str, Any]:
    from history import BIG_MARKER, PROJECT_CWD, _big_record_line  # bench/ is on sys.path

    from reference.config.defaults import default_config
    from reference.pi.inspection import DEFAULT_LEAF
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
        found = service.recall({"query": f"`{BIG_MARKER}`", "scope": "current-session", "limit": 1})
        ref = found["hits"][0]["sourceRef"]
        results: dict[str, Any] = {"record_bytes": path.stat().st_size - len(body)}
        chosen = sanitizer.redact
        for name, redact in (("four patterns", redact_secrets), ("chosen", chosen)):
            sanitizer.redact = redact  # type: ignore[assignment]
            saved = entry.extended_redact
            if redact is redact_secrets:
                entry.extended_redact = lambda text: (text, 0)  # type: ignore[assignment]

            def first_read() -> None:
                entry.forget_entries()
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
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/run.py privacy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--mb", type=float, default=8.0, help="size of the real-shaped session (MB)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = {"corpus": corpus_scores(), "throughput": throughput(args.mb, args.repeat), "read": big_read(args.repeat)}
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
