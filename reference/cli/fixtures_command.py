"""``recall-rebase fixtures generate|list|privacy-corpus|privacy-check``: seeded Pi sessions from a
shell, the packaged index, and the labelled privacy corpus and its numbers.

Why: benchmarks, bug reports and ports need the same realistic sessions the suite uses, made
reproducibly and without Node; the privacy corpus (``fixtures/privacy/``) is regenerated from its
seed like the other fixtures, and anyone can print what the secret detector catches on it
(docs/privacy.md quotes the output). Bad input gives one line ``recall-rebase: <code>: <message>`` on
stderr and exit status 2, like the other sub-commands.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, Final

from reference.cli.output import fail, print_json
from reference.fixturegen.options import GeneratedSession, GenOptions
from reference.primitives.codes import Code

MB: Final = 1_000_000
_DEFAULTS: Final = GenOptions(seed=0)
#: The largest value of each count option (and of ``--target-mb``): far past any benchmark
#: (``bench/`` asks for 2,000,000 entries over 100 sessions, 1,000 MB), short of a typo's terabytes.
BOUNDS: Final = {"--sessions": 10_000, "--entries": 10_000_000, "--siblings": 100_000, "--compactions": 100_000,
                 "--branches": 100_000, "--malformed": 100_000, "--blank": 100_000}
MAX_TARGET_MB: Final = 100_000


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return value


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``fixtures generate`` and ``fixtures list`` on the main parser."""
    fixtures = subparsers.add_parser(
        "fixtures", help="generate seeded Pi sessions, or list the packaged fixtures"
    )
    commands = fixtures.add_subparsers(dest="fixtures_command", metavar="SUBCOMMAND", required=True)
    gen = commands.add_parser(
        "generate",
        help="write realistic Pi 0.84.3 session files; the same seed and options give the same bytes",
        description="Write seeded, realistic Pi v3 sessions (or damaged and legacy ones) named as Pi names them.",
    )
    gen.add_argument("--seed", type=int, required=True, help="PRNG seed")
    gen.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="directory to write into (created)"
    )
    gen.add_argument(
        "--sessions", type=_count, default=_DEFAULTS.sessions, metavar="N", help="session files to write (at most 10,000)"
    )
    gen.add_argument("--entries", type=_count, default=_DEFAULTS.entries, metavar="N",
                     help="approximate entries per session (0: header only; at most 10,000,000)")  # fmt: skip
    gen.add_argument("--siblings", type=_count, default=_DEFAULTS.siblings, metavar="N",
                     help="give one entry N children (at most 100,000)")  # fmt: skip
    gen.add_argument("--compactions", type=_count, default=_DEFAULTS.compactions, metavar="N",
                     help="compaction entries on the main path: a summary that keeps the path from a chosen "
                     "user message on, as Pi's /compact writes (at most 100,000)")
    gen.add_argument("--branches", type=_count, default=_DEFAULTS.branches, metavar="N", help="side branches")
    gen.add_argument("--crlf", action="store_true", help="end every line with CRLF")
    gen.add_argument("--torn-tail", action="store_true", help="end with a partial line and no LF")
    gen.add_argument(
        "--malformed", type=_count, default=0, metavar="N", help="add N lines JSON.parse rejects"
    )
    gen.add_argument("--blank", type=_count, default=0, metavar="N", help="add N blank lines")
    gen.add_argument("--legacy", type=int, choices=(1, 2), help="write a version 1 or 2 file instead (default: version 3)")
    gen.add_argument(
        "--no-secrets", dest="secrets", action="store_false", help="leave out the fake credentials"
    )
    gen.add_argument("--cwd", default=_DEFAULTS.cwd, help="cwd recorded in the header")
    gen.add_argument("--target-mb", type=float, metavar="N",
                     help="keep appending turns until each file reaches N MB (1 MB = 10^6 bytes; at most 100,000; "
                     "default: no size target)")  # fmt: skip
    gen.add_argument("--json", action="store_true", help="print a JSON list of the files")
    gen.set_defaults(handler=run)
    listing = commands.add_parser("list", help="the packaged fixtures/MANIFEST.json: id, valid, description")
    listing.add_argument("--json", action="store_true", help="print a JSON list")
    listing.set_defaults(handler=run)
    corpus = commands.add_parser(
        "privacy-corpus", help="write the labelled privacy corpus (fixtures/privacy/) from its seed, or --check it"
    )
    corpus.add_argument("--out", type=Path, metavar="DIR", help="directory to write into (default: the packaged one)")
    corpus.add_argument("--seed", type=int, default=None, help="PRNG seed (default: the committed corpus's)")
    corpus.add_argument("--check", action="store_true", help="exit 1 when the files differ from the generator")
    corpus.set_defaults(handler=run)
    check = commands.add_parser(
        "privacy-check", help="measure secret detection on the privacy corpus: caught per family, false positives"
    )
    check.add_argument("--corpus", type=Path, metavar="DIR", help="corpus directory (default: the packaged one)")
    check.add_argument("--verbose", action="store_true", help="list every missed secret and flagged near-miss")
    check.add_argument("--families", action="store_true", help="print caught/total per family as a Markdown table")
    check.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Dispatch ``fixtures`` sub-commands; returns the exit status."""
    if args.fixtures_command == "list":
        return _list(args)
    if args.fixtures_command in ("privacy-corpus", "privacy-check"):
        return _privacy(args)
    return _generate(args)


def _out_of_bounds(args: argparse.Namespace) -> str | None:
    """Why an option is past its bound (a typo must not fill a disk), or None."""
    for option, bound in BOUNDS.items():
        value = getattr(args, option.removeprefix("--").replace("-", "_"))
        if value > bound:
            return f"{option} {value} is past its bound of {bound:,}"
    if args.target_mb is not None:
        if not math.isfinite(args.target_mb) or args.target_mb <= 0:
            return f"--target-mb must be a positive number, not {args.target_mb}"
        if args.target_mb > MAX_TARGET_MB:
            return f"--target-mb {args.target_mb:g} is past its bound of {MAX_TARGET_MB:,}"
    return None


def _generate(args: argparse.Namespace) -> int:
    refusal = _out_of_bounds(args)
    if refusal is not None:
        return fail(Code.BAD_OPTION, refusal)
    target: int | None = None
    if args.target_mb is not None:
        target = max(1, int(args.target_mb * MB))
    try:
        options = GenOptions(
            seed=args.seed, sessions=args.sessions, entries=args.entries, siblings=args.siblings,
            compactions=args.compactions, branches=args.branches, crlf=args.crlf, torn_tail=args.torn_tail,
            malformed=args.malformed, blank=args.blank, legacy=args.legacy, secrets=args.secrets, cwd=args.cwd,
            target_bytes=target,
        )  # fmt: skip
    except ValueError as exc:
        return fail(Code.BAD_OPTION, str(exc))

    def progress(path: Path, written: int) -> None:
        print(f"fixtures: {path.name}: {written / MB:.0f} of {(target or 0) / MB:.0f} MB", file=sys.stderr)

    from reference.fixturegen.generator import (
        generate,  # imported when used: every command's start-up pays the rest
    )

    try:
        sessions = generate(args.out, options, progress if target else None)
    except OSError as exc:
        return fail(Code.IO, f"cannot write to {args.out}: {exc.strerror or exc}")
    if args.json:
        print_json([_describe(s) for s in sessions])
        return 0
    for s in sessions:
        size = s.path.stat().st_size
        print(f"{s.path}\n  session {s.session_id}  {s.entry_count} entries  leaf {s.leaf_id}  {size} bytes")
        if s.notable:
            print("  notable " + ", ".join(f"{k}={v}" for k, v in s.notable.items()))
    return 0


def _describe(session: GeneratedSession) -> dict[str, Any]:
    return {
        "path": str(session.path),
        "sessionId": session.session_id,
        "entryCount": session.entry_count,
        "leafId": session.leaf_id,
        "bytes": session.path.stat().st_size,
        "notable": session.notable,
    }


def _list(args: argparse.Namespace) -> int:
    from conformance.suite import fixture_manifest

    try:
        items = list(fixture_manifest().values())
    except (OSError, ValueError) as exc:
        return fail(Code.NO_MANIFEST, f"fixtures/MANIFEST.json cannot be read: {exc}")
    if args.json:
        rows = [{k: item.get(k) for k in ("id", "path", "valid", "description")} for item in items]
        print_json(rows)
        return 0
    width = max((len(item["id"]) for item in items), default=0)
    for item in items:
        verdict = "valid  " if item["valid"] else "invalid"
        print(f"{item['id']:<{width}}  {verdict}  {item['description']}")
    return 0


def _packaged() -> Path:
    from conformance.suite import fixtures_dir

    return fixtures_dir() / "privacy"


def _privacy(args: argparse.Namespace) -> int:
    from reference.fixturegen.privacy_corpus import SEED, stale_files, write_corpus

    if args.fixtures_command == "privacy-corpus":
        out: Path = args.out or _packaged()
        seed = SEED if args.seed is None else args.seed
        try:
            if args.check:
                stale = stale_files(out, seed)
                for name in stale:
                    print(f"stale: {out / name}", file=sys.stderr)
                return 1 if stale else 0
            for path in write_corpus(out, seed):
                print(path)
        except OSError as exc:
            return fail(Code.IO, f"cannot write to {out}: {exc.strerror or exc}")
        return 0
    from reference.privacy.corpus_check import DETECTORS, Corpus, family_table, report, score

    folder: Path = args.corpus or _packaged()
    try:
        corpus = Corpus.load(folder)
    except (OSError, ValueError, KeyError) as exc:
        return fail(Code.IO, f"cannot read the corpus in {folder}: {exc}")
    scores = [score(corpus, name, detector) for name, detector in DETECTORS.items()]
    for line in report(corpus, scores, verbose=args.verbose):
        print(line)
    if args.families:
        print("\n".join(family_table(corpus, scores)))
    chosen = scores[-1]
    return 0 if chosen.caught == chosen.total and len(chosen.flagged) <= 0.02 * len(corpus.labels["nearMisses"]) else 1
