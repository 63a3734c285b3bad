"""``recall-rebase conformance privacy``: the privacy corpus walked over every output path, its numbers.

One row per output path (recall, read, status, rebase preview, run, recover and target context,
egress) and provider (remote ``openai``, local ``ollama``): the outputs walked, the corpus secrets
leaked and the near-miss false positives (where the path shows near-miss text), each also per
family (issue 29); then one line per secret family and per near-miss family: how many the corpus
holds and, per path and provider, how many leaked or were flagged.
The walk and its rules are :mod:`conformance.privacy_walk` and :mod:`conformance.privacy_rebase`.
The implementation is the in-process one of the ``recall_rebase.adapters`` entry points
(``reference`` by default, ``--adapter NAME`` or ``module:attr``), or any port with
``--stdio -- CMD ARGS...``, as ``conformance run`` picks it.  Exit 0: no leak, every row's false
positives at most 2% and every labelled item through a handoff; 1: not so (or the port failed);
2: bad input, one line.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from conformance.commandline import fail
from conformance.faults import PortStartFailed
from conformance.implementations import AdapterNotFound, adapter_class
from conformance.port_options import timeout_seconds
from conformance.privacy_corpus import CorpusLabels, load_corpus
from conformance.privacy_rebase import PATHS, walk_rebase
from conformance.privacy_walk import (
    FP_LIMIT,
    PROVIDERS,
    Tally,
    corpus_session,
    count_by,
    row,
    walk_egress,
    walk_history,
)
from conformance.protocol import Adapter, AdapterCrashed, ImplInfo, JsonObject
from conformance.stdio import DEFAULT_REQUEST_TIMEOUT, DEFAULT_START_TIMEOUT, SubprocessAdapter
from conformance.untrusted_text import first_line, for_terminal
from conformance.world import HistoryProject

ORDER: Final = ("recall", "read", "status", *PATHS, "egress")
EXIT_CLEAN: Final = 0
EXIT_LEAKS: Final = 1
PORT_FAILED: Final = "port-failed"


def in_process(name: str) -> Adapter:
    """The adapter an entry point name (or ``module:attr``) designates, never the reference by import."""
    return adapter_class(name)()


def _project(root: Path, case: str) -> tuple[HistoryProject, Path]:
    base = root / case
    project = HistoryProject(home=base / "home", agent=base / "home" / "agent", cwd=base / "project",
                             folder=base / "sessions", trusted=True)
    for folder in (project.home, project.agent, project.cwd, project.folder):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    session = project.folder / "current.jsonl"
    session.write_bytes(corpus_session(project.cwd))
    session.chmod(0o600)
    return project, session


def walk_all(adapter: Adapter, root: Path) -> JsonObject:
    """Every path for both providers; rows in :data:`ORDER`, then what passed through a handoff."""
    corpus = load_corpus()
    labels = corpus.labels
    rows: list[JsonObject] = []
    handoffs: JsonObject = {}
    for case, provider in PROVIDERS.items():
        project, session = _project(root, case)
        tallies: dict[str, Tally] = {t.path: t for t in walk_history(adapter, project, session, provider, labels)}
        secrets = walk_rebase(adapter, project, provider, corpus)
        near = walk_rebase(adapter, project, provider, corpus, near_misses_only=True)
        for path in PATHS:
            tally = secrets.tallies[path]
            tally.outputs += near.tallies[path].outputs
            tally.flagged = near.tallies[path].flagged
            tallies[path] = tally
        tallies["egress"] = walk_egress(adapter, provider, corpus)
        rows += [{**row(tallies[path], labels), "case": case} for path in ORDER]
        handoffs[case] = {"secrets": len(secrets.handed_off), "nearMisses": len(near.handed_off),
                          "parts": secrets.parts + near.parts,
                          "notHandedOff": [item.id for item in (*labels.secrets, *labels.near_misses)
                                           if item.id not in secrets.handed_off | near.handed_off]}
    return {"rows": rows, "handoffs": handoffs, "secrets": len(labels.secrets),
            "nearMisses": len(labels.near_misses), "families": len(labels.families),
            **by_family(rows, labels)}


def by_family(rows: list[JsonObject], labels: CorpusLabels) -> JsonObject:
    """Per secret family: its secrets and, per path and provider that leaked one, how many; per
    near-miss family: its near-misses and, per path and provider that flagged one, how many."""
    secrets = count_by(secret.family for secret in labels.secrets)
    near = count_by(item.family for item in labels.near_misses)

    def where(key: str, family: str) -> JsonObject:
        return {f"{r['path']} ({r['case']})": r[key][family] for r in rows if r[key] and family in r[key]}

    return {"secretFamilies": [{"family": f, "secrets": n, "leaked": where("leakedByFamily", f)}
                               for f, n in secrets.items()],
            "nearMissFamilies": [{"family": f, "nearMisses": n, "falsePositives": where("falsePositivesByFamily", f)}
                                 for f, n in near.items()]}


def verdict(walk: JsonObject) -> JsonObject:
    leaked = sorted({secret for r in walk["rows"] for secret in r["leaked"]})
    worst = max((len(r["falsePositives"]) for r in walk["rows"] if r["falsePositives"] is not None), default=0)
    unpassed = [case for case, h in walk["handoffs"].items()
                if h["secrets"] < walk["secrets"] or h["nearMisses"] < walk["nearMisses"]]
    clean = not leaked and worst <= FP_LIMIT * walk["nearMisses"] and not unpassed
    return {"clean": clean, "leaked": len(leaked), "worstFalsePositives": worst, "notThroughHandoff": unpassed}


def render(info: ImplInfo, walk: JsonObject, final: JsonObject) -> str:
    secrets, near = walk["secrets"], walk["nearMisses"]
    name = for_terminal(f"{info.name} {info.version} ({info.language})")
    lines = [f"{name} over fixtures/privacy: {secrets} secrets of "
             f"{walk['families']} families, {near} near-misses",
             f"{'path':<22} {'provider':<16} {'outputs':>7}  {'secrets leaked':>14}  {'near-miss false positives':>25}"]
    for r in walk["rows"]:
        fp = "-" if r["falsePositives"] is None else f"{len(r['falsePositives'])}/{near}"
        ids = ", ".join(r["leaked"][:6]) + (" ..." if len(r["leaked"]) > 6 else "")
        mark = "" if r["ok"] else "  <-- " + (f"leaked: {ids}" if r["leaked"] else "false positives")
        lines.append(f"{r['path']:<22} {r['case'] + ' (' + r['provider'] + ')':<16} {r['outputs']:>7}  "
                     f"{str(len(r['leaked'])) + '/' + str(secrets):>14}  {fp:>25}{mark}")
    lines.append(f"{'secret family':<34} {'secrets':>7}  leaked (path: count)")
    for item in walk["secretFamilies"]:
        lines.append(f"{for_terminal(item['family']):<34} {item['secrets']:>7}  {_paths(item['leaked'])}")
    lines.append(f"{'near-miss family':<34} {'near-misses':>11}  false positives (path: count)")
    for item in walk["nearMissFamilies"]:
        lines.append(f"{for_terminal(item['family']):<34} {item['nearMisses']:>11}  {_paths(item['falsePositives'])}")
    for case, h in walk["handoffs"].items():
        lines.append(f"through a target's handoff ({case}): {h['secrets']}/{secrets} secrets, "
                     f"{h['nearMisses']}/{near} near-misses, in {h['parts']} rebased parts")
    state = "CLEAN" if final["clean"] else "NOT CLEAN"
    lines.append(f"verdict: {state}: {final['leaked']}/{secrets} secrets leaked on some path, at most "
                 f"{final['worstFalsePositives']}/{near} near-miss false positives on a path (limit 2%)"
                 + (f", not every item through a handoff ({', '.join(final['notThroughHandoff'])})"
                    if final["notThroughHandoff"] else ""))
    return "\n".join(lines) + "\n"


def _paths(counts: JsonObject) -> str:
    return ", ".join(f"{path}: {count}" for path, count in counts.items()) or "0"


def run_privacy(*, stdio_command: Sequence[str] | None, adapter_name: str, as_json: bool,
                timeout: float | None, start_timeout: float | None) -> int:
    try:
        adapter = (SubprocessAdapter(list(stdio_command),
                                     request_timeout=timeout_seconds(timeout, DEFAULT_REQUEST_TIMEOUT),
                                     start_timeout=timeout_seconds(start_timeout, DEFAULT_START_TIMEOUT))
                   if stdio_command else in_process(adapter_name))
        info = adapter.start()
    except AdapterNotFound as exc:
        return fail("usage", str(exc))
    except PortStartFailed as exc:
        return fail(exc.code, exc.message)
    try:
        with tempfile.TemporaryDirectory(prefix="rr-privacy-") as root:
            walk = walk_all(adapter, Path(root))
    except AdapterCrashed as exc:
        print(f"recall-rebase: {PORT_FAILED}: the implementation failed during the walk: {first_line(str(exc))}",
              file=sys.stderr)
        return EXIT_LEAKS
    finally:
        adapter.stop()
    final = verdict(walk)
    if as_json:
        implementation: dict[str, Any] = {"name": info.name, "version": info.version, "language": info.language}
        sys.stdout.write(json.dumps({"implementation": implementation, **walk, "verdict": final},
                                    ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(render(info, walk, final))
    return EXIT_CLEAN if final["clean"] else EXIT_LEAKS
