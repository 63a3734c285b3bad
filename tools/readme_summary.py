"""Write (or check) the README's summary table of the reference and the example Node port.

    python tools/readme_summary.py REFERENCE_REPORT NODE_REPORT          # rewrite the README block
    python tools/readme_summary.py REFERENCE_REPORT NODE_REPORT --check  # exit 1 if it is stale

The block between the two markers is ``recall-rebase conformance summary --format markdown`` of
the two reports; ``tests/examples/test_node_port.py`` runs both implementations and checks it, so
the table in the README is always what the suite says today.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from conformance.summary import summarize
from conformance.summary_render import render_markdown

README: Final = Path(__file__).resolve().parents[1] / "README.md"
BEGIN: Final = "<!-- conformance-summary:begin (tools/readme_summary.py) -->"
END: Final = "<!-- conformance-summary:end -->"


def summary_block(reference_report: Path, node_report: Path) -> str:
    """The Markdown summary of the two reports, between the markers."""
    table = render_markdown(summarize([str(reference_report), str(node_report)]))
    return f"{BEGIN}\n{table.rstrip()}\n{END}"


def readme_block(text: str) -> str:
    """The block the README has now (markers included)."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reference_report", type=Path)
    parser.add_argument("node_report", type=Path)
    parser.add_argument("--check", action="store_true", help="only say whether the README is up to date")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    fresh = summary_block(args.reference_report, args.node_report)
    if args.check:
        stale = readme_block(text) != fresh
        print("README summary: stale" if stale else "README summary: up to date")
        return 1 if stale else 0
    README.write_text(text.replace(readme_block(text), fresh), encoding="utf-8")
    print(f"{README}: summary table written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
