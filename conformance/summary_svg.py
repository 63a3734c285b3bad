"""The SVG badge form of a :class:`conformance.summary.Summary` (``summary --format svg``).

One flat badge, as shields.io draws them: the label ``recall-rebase`` on grey, a value on green
when the run was conformant and on red otherwise. For one report the value is its passed rows of
all its rows, ``163/1063 pass`` (``, interrupted`` after it when the run was stopped, which is red
too). For several reports, whose pass counts do not add up to anything (different ports, or
shards that ``conformance merge`` should join first), it is how many of them are conformant,
``2/3 conformant``, green only when all are.

Written by hand rather than with a badge library: anybadge numbers each badge's mask from a
counter kept on its class, so one process drawing the same badge twice writes different bytes
(every form here is a pure function of the summary), and neither it nor pybadges (last released
2023) pins the text to its box. Here each text is measured with Verdana's advance widths and drawn
at exactly that length (``textLength``, ``lengthAdjust``), so no font a viewer substitutes can
make it overflow; the box is that length plus a margin on each side.
"""

from __future__ import annotations

import math
from html import escape
from typing import Final

from conformance.summary import Summary

LABEL: Final = "recall-rebase"
GREEN: Final = "#4c1"
RED: Final = "#e05d44"
GREY: Final = "#555"
FONT_SIZE: Final = 11
#: The space on each side of a text, in pixels.
MARGIN: Final = 6
#: How a badge begins: ``summary --output`` replaces an existing file only if it begins so.
HEAD: Final = f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{LABEL}: '
#: Verdana's advance widths in ems, per character; any other character counts as one em.
_EMS: Final = {
    **dict.fromkeys(" ", 0.352), **dict.fromkeys("!", 0.394), **dict.fromkeys("'", 0.269),
    **dict.fromkeys("\"", 0.459), **dict.fromkeys("#+<=>^~", 0.818), **dict.fromkeys("$*_`0123456789", 0.636),
    **dict.fromkeys("%", 1.076), **dict.fromkeys("&", 0.727), **dict.fromkeys("()-/:;[\\]|", 0.454),
    **dict.fromkeys(",.", 0.364), **dict.fromkeys("?", 0.545), **dict.fromkeys("@", 1.0),
    **dict.fromkeys("{}", 0.635), **dict.fromkeys("AVXZ", 0.685), **dict.fromkeys("BKS", 0.693),
    **dict.fromkeys("CR", 0.698), **dict.fromkeys("DGOQ", 0.787), **dict.fromkeys("EF", 0.632),
    **dict.fromkeys("HNU", 0.751), **dict.fromkeys("IJ", 0.455), **dict.fromkeys("L", 0.557),
    **dict.fromkeys("M", 0.843), **dict.fromkeys("PTY", 0.616), **dict.fromkeys("W", 0.989),
    **dict.fromkeys("abdgpq", 0.623), **dict.fromkeys("ce", 0.596), **dict.fromkeys("fjrt", 0.427),
    **dict.fromkeys("hnu", 0.633), **dict.fromkeys("il", 0.274), **dict.fromkeys("kvxy", 0.592),
    **dict.fromkeys("m", 0.973), **dict.fromkeys("o", 0.607), **dict.fromkeys("sz", 0.525),
    **dict.fromkeys("w", 0.818),
}


def text_width(text: str) -> float:
    """How wide ``text`` is at :data:`FONT_SIZE` pixels, to a tenth of a pixel, rounded up."""
    return math.ceil(sum(_EMS.get(char, 1.0) for char in text) * FONT_SIZE * 10) / 10


def verdict_of(summary: Summary) -> tuple[str, bool]:
    """The badge's value and whether it is green (see the module's docstring)."""
    columns = summary.columns
    if len(columns) == 1:
        report_summary = columns[0].report.summary
        cell = summary.total[0]
        stopped = "interrupted" in report_summary
        value = f"{cell.passed}/{cell.total} pass" + (", interrupted" if stopped else "")
        return value, bool(report_summary["conformant"]) and not stopped
    good = sum(1 for column in columns if column.report.summary["conformant"] and
               "interrupted" not in column.report.summary)
    return f"{good}/{len(columns)} conformant", good == len(columns)


def _number(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def badge_text(summary: Summary, *, value: str | None = None) -> str:
    """The badge; ``value`` replaces the summary's (tests measure long values with it)."""
    said, green = verdict_of(summary)
    parts = [(LABEL, GREY), (value if value is not None else said, GREEN if green else RED)]
    boxes, texts, left = [], [], 0.0
    for text, fill in parts:
        length = text_width(text)
        width = math.ceil(length + 2 * MARGIN)
        middle = _number(left + width / 2)
        boxes.append(f'<rect x="{_number(left)}" width="{width}" height="20" fill="{fill}"/>')
        for y, shadow in (("15", ' fill="#010101" fill-opacity=".3"'), ("14", "")):
            texts.append(f'<text x="{middle}" y="{y}"{shadow} textLength="{_number(length)}" '
                         f'lengthAdjust="spacingAndGlyphs">{escape(text)}</text>')
        left += width
    total = _number(left)
    title = escape(f"{LABEL}: {parts[1][0]}")
    return "\n".join([
        f'{HEAD}{escape(parts[1][0])}" width="{total}" height="20">', f"<title>{title}</title>",
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
        '<stop offset="1" stop-opacity=".1"/></linearGradient>',
        f'<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>',
        '<g clip-path="url(#r)">', *boxes, f'<rect width="{total}" height="20" fill="url(#s)"/>', "</g>",
        f'<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
        f'font-size="{FONT_SIZE}">', *texts, "</g>", "</svg>",
    ]) + "\n"
