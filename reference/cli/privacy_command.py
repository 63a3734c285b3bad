"""``recall-rebase fixtures privacy-corpus|privacy-check``: the labelled privacy corpus and its numbers.

Why: the corpus (``fixtures/privacy/``) is regenerated from its seed like the other fixtures,
and anyone can print what the secret detector catches on it (docs/privacy.md quotes the output).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reference.fixturegen.privacy_corpus import SEED, stale_files, write_corpus
from reference.primitives.codes import Code


def _packaged() -> Path:
    from conformance.suite import fixtures_dir

    return fixtures_dir() / "privacy"


def run_privacy(args: argparse.Namespace) -> int:
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
            print(f"recall-rebase: {Code.IO}: cannot write to {out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        return 0
    from reference.privacy.corpus_check import DETECTORS, Corpus, family_table, report, score

    folder: Path = args.corpus or _packaged()
    try:
        corpus = Corpus.load(folder)
    except (OSError, ValueError, KeyError) as exc:
        print(f"recall-rebase: {Code.IO}: cannot read the corpus in {folder}: {exc}", file=sys.stderr)
        return 2
    scores = [score(corpus, name, detector) for name, detector in DETECTORS.items()]
    for line in report(corpus, scores, verbose=args.verbose):
        print(line)
    if args.families:
        print("\n".join(family_table(corpus, scores)))
    chosen = scores[-1]
    return 0 if chosen.caught == chosen.total and len(chosen.flagged) <= 0.02 * len(corpus.labels["nearMisses"]) else 1
