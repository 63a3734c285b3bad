"""``python -m reference.fixturegen --refresh|--check FIXTURES_DIR``: the fixture refresh from a shell.

Why: the committed fixtures are regenerated (``--refresh``) or verified (``--check``, exit 1 when
stale) without the product CLI; see ``fixtures/README.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reference.fixturegen.refresh import refresh_fixtures

DESCRIPTION = "Seeded generator of realistic Pi 0.84.3 session files (pi-session-model.md §1-§5)."


def main(argv: list[str] | None = None) -> int:
    """Refresh or check the fixtures in the given directory; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m reference.fixturegen", description=DESCRIPTION)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--refresh", type=Path, metavar="FIXTURES_DIR", help="regenerate fixtures and facts in place"
    )
    group.add_argument(
        "--check", type=Path, metavar="FIXTURES_DIR", help="fail if fixtures or facts are stale"
    )
    args = parser.parse_args(argv)
    target: Path = args.refresh or args.check
    problems = refresh_fixtures(target, check=args.check is not None)
    if args.check is not None:
        for problem in problems:
            print(f"stale: {problem}", file=sys.stderr)
        return 1 if problems else 0
    for problem in problems:
        print(f"updated: {problem}")
    print(f"refreshed {target / 'MANIFEST.json'} ({len(problems)} change(s))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
