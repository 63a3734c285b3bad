"""Run the catalogue of port bugs (``conformance/mutants/*.toml``) against the conformance suite.

    python tools/mutants.py run [--only IDS] [--sample N] [-j N]   # killed K/N, printed last
    python tools/mutants.py check                                  # every entry applies, once

Each entry is a small patch to the reference, applied by content: its ``find`` text must occur
exactly once under ``reference/`` (so moving a file does not break it); the patched tree is a copy,
never the checkout.  The suite then runs against the copy (``PYTHONPATH`` puts it first):
first the scenarios the entry names in ``kills``, and when none of them fails, the whole suite.
A mutant is killed when a scenario fails; it survives when the whole suite passes; it is stale
when its text is no longer found (or found twice), never silently dropped.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
CATALOGUE: Final = ROOT / "conformance" / "mutants"


class Verdict(Enum):
    """What the suite made of one mutant."""

    KILLED = "killed"  # a scenario it names failed
    KILLED_ELSEWHERE = "killed-elsewhere"  # only a scenario it does not name failed
    SURVIVED = "survived"  # the whole suite passed
    STALE = "stale"  # its text is not found exactly once: the entry needs updating


@dataclass(frozen=True)
class Mutant:
    """One plausible port bug: the text it replaces, where the contract forbids it, who kills it."""

    id: str
    area: str
    section: str
    bug: str
    kills: tuple[str, ...]
    find: str
    replace: str
    source: str  # the catalogue file it comes from


def load(folder: Path = CATALOGUE) -> list[Mutant]:
    """Every entry of every catalogue file, in file and entry order."""
    mutants: list[Mutant] = []
    for path in sorted(folder.glob("*.toml")):
        for entry in tomllib.loads(path.read_text(encoding="utf-8")).get("mutant", []):
            mutants.append(Mutant(id=entry["id"], area=entry["area"], section=entry["section"],
                                  bug=entry["bug"], kills=tuple(entry["kills"]), find=entry["find"],
                                  replace=entry["replace"], source=path.name))
    return mutants


def locate(mutant: Mutant, tree: Path) -> list[Path]:
    """The files under ``tree/reference`` holding the entry's text, with one path per occurrence."""
    found: list[Path] = []
    for path in sorted((tree / "reference").rglob("*.py")):
        found.extend([path] * path.read_text(encoding="utf-8").count(mutant.find))
    return found


def apply(mutant: Mutant, tree: Path) -> bool:
    """Patch ``tree`` in place; False (nothing written) when the text is not found exactly once."""
    found = locate(mutant, tree)
    if len(found) != 1:
        return False
    text = found[0].read_text(encoding="utf-8")
    found[0].write_text(text.replace(mutant.find, mutant.replace, 1), encoding="utf-8")
    return True


def _suite(tree: Path, selection: Sequence[str]) -> bool:
    """True when the suite passes against the reference in ``tree``; ``selection``: extra run args."""
    # The patched reference first, then this checkout's own conformance package and features
    # (not whatever checkout the venv's editable install points at).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT)]), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "conformance", "run", "--no-progress", "-x", *selection]
    done = subprocess.run(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          check=False)
    return done.returncode == 0


def judge(mutant: Mutant, *, full_suite: bool = True) -> Verdict:
    """Apply the mutant to a copy of ``reference/`` and run the suite against it."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        tree = Path(scratch)
        shutil.copytree(ROOT / "reference", tree / "reference",
                        ignore=shutil.ignore_patterns("__pycache__"))
        if not apply(mutant, tree):
            return Verdict.STALE
        if not _suite(tree, ["--id", ",".join(mutant.kills)]):
            return Verdict.KILLED
        if full_suite and not _suite(tree, []):
            return Verdict.KILLED_ELSEWHERE
        return Verdict.SURVIVED


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/mutants.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="judge the catalogue's entries; killed K/N printed last")
    run.add_argument("--only", default="", help="only these entry ids, comma-separated")
    commands.add_parser("check", help="every entry's text is found exactly once")
    args = parser.parse_args(argv)
    mutants = load()
    if args.command == "check":
        stale = [mutant for mutant in mutants if len(locate(mutant, ROOT)) != 1]
        for mutant in stale:
            print(f"STALE {mutant.id} ({mutant.source}): its text is found {len(locate(mutant, ROOT))} times")
        print(f"{len(mutants) - len(stale)}/{len(mutants)} entries apply")
        return 1 if stale else 0
    wanted = {part for part in args.only.split(",") if part}
    chosen = [mutant for mutant in mutants if not wanted or mutant.id in wanted]
    verdicts = {mutant.id: judge(mutant) for mutant in chosen}
    for mutant in chosen:
        verdict = verdicts[mutant.id]
        if verdict is not Verdict.KILLED:
            print(f"{verdict.value.upper():17} {mutant.id}: {mutant.bug} (expected: {', '.join(mutant.kills)})")
    killed = sum(verdict in (Verdict.KILLED, Verdict.KILLED_ELSEWHERE) for verdict in verdicts.values())
    print(f"killed {killed}/{len(chosen)}")
    return 0 if killed == len(chosen) else 1


if __name__ == "__main__":
    raise SystemExit(main())
