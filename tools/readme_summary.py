"""Write (or check) the numbers the docs state about the reference and the example Node port.

    python tools/readme_summary.py REFERENCE_REPORT NODE_REPORT          # rewrite every block
    python tools/readme_summary.py REFERENCE_REPORT NODE_REPORT --check  # exit 1 if one is stale
    python tools/readme_summary.py NODE_REPORT [--check]                 # the port's counts only

Each block sits between two markers, ``<!-- NAME:begin (tools/readme_summary.py) -->`` and
``<!-- NAME:end -->``: README.md's summary table (``recall-rebase conformance summary --format
markdown`` of the two reports), README.md's areas and rows of the port, and the table and counts
of ``examples/ports/node/README.md`` (``tools/port_counts.py``, from the port's report alone).
``tests/examples/test_node_port.py`` runs both implementations and checks them, so the docs say
what the suite says today.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from port_counts import port_readme_block, readme_sentence

from conformance.reports import ReportError, read_report
from conformance.summary import summarize
from conformance.summary_render import render_markdown

ROOT: Final = Path(__file__).resolve().parents[1]
README: Final = ROOT / "README.md"
PORT_README: Final = ROOT / "examples" / "ports" / "node" / "README.md"


@dataclass(frozen=True)
class Runs:
    """The reports the blocks are written from: the port's, and the reference's when given."""

    node_report: Path
    reference_report: Path | None = None


@dataclass(frozen=True)
class Block:
    """One generated stretch of a document: where, its marker name, and how to write it."""

    document: Path
    name: str
    render: Callable[[Runs], str]
    inline: bool = False
    needs_reference: bool = False

    @property
    def begin(self) -> str:
        return f"<!-- {self.name}:begin (tools/readme_summary.py) -->"

    @property
    def end(self) -> str:
        return f"<!-- {self.name}:end -->"

    def fresh(self, runs: Runs) -> str:
        body = self.render(runs).rstrip()
        return f"{self.begin}{body}{self.end}" if self.inline else f"{self.begin}\n{body}\n{self.end}"

    def current(self, text: str) -> str:
        """The block the document has now (markers included)."""
        start, end = text.index(self.begin), text.index(self.end) + len(self.end)
        return text[start:end]


def _summary_table(runs: Runs) -> str:
    return render_markdown(summarize([str(runs.reference_report), str(runs.node_report)]))


BLOCKS: Final = (
    Block(README, "conformance-summary", _summary_table, needs_reference=True),
    Block(README, "node-port-areas", lambda runs: readme_sentence(read_report(runs.node_report)), inline=True),
    Block(PORT_README, "node-port-counts", lambda runs: port_readme_block(read_report(runs.node_report))),
)


def stale_blocks(runs: Runs) -> list[tuple[Block, str]]:
    """The blocks these reports write that differ from the docs, each with its fresh text."""
    stale: list[tuple[Block, str]] = []
    for block in BLOCKS:
        if block.needs_reference and runs.reference_report is None:
            continue
        fresh = block.fresh(runs)
        if block.current(block.document.read_text(encoding="utf-8")) != fresh:
            stale.append((block, fresh))
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", type=Path, nargs="+", metavar="REPORT",
                        help="REFERENCE_REPORT NODE_REPORT, or NODE_REPORT alone for the port's counts")
    parser.add_argument("--check", action="store_true", help="only say whether the docs are up to date")
    args = parser.parse_args(argv)
    if len(args.reports) > 2:
        parser.error("give REFERENCE_REPORT NODE_REPORT, or NODE_REPORT alone")
    runs = Runs(args.reports[-1], args.reports[0] if len(args.reports) == 2 else None)
    try:
        stale = stale_blocks(runs)
    except (ReportError, OSError, ValueError) as exc:  # an unusable report, a document without its markers
        print(f"readme_summary: {exc}", file=sys.stderr)
        return 2
    for block, fresh in [] if args.check else stale:
        text = block.document.read_text(encoding="utf-8")
        block.document.write_text(text.replace(block.current(text), fresh), encoding="utf-8")
    names = ", ".join(f"{block.document.relative_to(ROOT).as_posix()} ({block.name})" for block, _ in stale)
    print(f"docs: {'stale' if args.check else 'rewritten'}: {names}" if stale else "docs: up to date")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
