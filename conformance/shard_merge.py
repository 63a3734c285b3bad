"""``recall-rebase conformance merge``: the reports of ``conformance run --shard K/N`` as one run's.

Each shard's report says which shard it is (its header's ``shard``: index, count, selection). The
merge refuses, with one line, what does not add up to one run: a report that is no shard, shards
of different implementations, suite or contract versions, selections or counts, a shard given twice
or missing, a row in a shard it does not hash to (:class:`conformance.shards.MachineShard`). What
it writes is :func:`conformance.reports.merge_reports` of them, the header without ``shard``: the
rows and statuses of one unsharded run with the same selection.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from conformance import reports
from conformance.commandline import OneLineError
from conformance.shards import MachineShard

#: The code of shard reports that do not add up to one run.
SHARDS_MISMATCH: Final = "shards-mismatch"


class ShardsMismatch(OneLineError):
    """Valid reports that are not the shards of one run."""

    code = SHARDS_MISMATCH


@dataclass(frozen=True)
class ShardReport:
    """One shard's report, where it was read from, and which shard its header says it is."""

    path: Path
    report: reports.Report
    shard: MachineShard
    selection: str

    @classmethod
    def read(cls, path: Path) -> ShardReport:
        report = reports.read_report(path)
        stated = report.header.get("shard")
        if stated is None:
            raise ShardsMismatch(f"{path} is not the report of a shard (its header has no 'shard': "
                                 "run with --shard K/N)")
        return cls(path, report, MachineShard(stated["index"], stated["count"]), stated["selection"])


def _same(shards: Sequence[ShardReport], what: str, value: Any) -> None:
    """Every shard's ``value(shard)`` is the first one's, else :class:`ShardsMismatch` naming both."""
    first = shards[0]
    for other in shards[1:]:
        if value(other) != value(first):
            raise ShardsMismatch(f"{other.path} and {first.path} are of different {what}: "
                                 f"{value(other)!r} and {value(first)!r}")


def _implementation(shard: ShardReport) -> tuple[str, ...]:
    impl = shard.report.implementation
    return impl["name"], impl["version"], impl["language"]


def check_shards(shards: Sequence[ShardReport]) -> None:
    """:class:`ShardsMismatch` unless ``shards`` are shards 1 to N of one run, each once."""
    if not shards:
        raise ShardsMismatch("no report to merge")
    ran = [shard for shard in shards if shard.report.results]  # an empty shard may never have met its port
    if ran:
        _same(ran, "implementations", _implementation)
    _same(shards, "suite versions", lambda s: s.report.header["suite_version"])
    _same(shards, "contract versions", lambda s: s.report.header.get("contract_version"))
    _same(shards, "selections", lambda s: s.selection)
    _same(shards, "expectations", lambda s: json.dumps(s.report.header.get("expectations")))
    _same(shards, "shard counts", lambda s: s.shard.count)
    seen: dict[int, Path] = {}
    for shard in shards:
        if shard.shard.index in seen:
            raise ShardsMismatch(f"{shard.path} and {seen[shard.shard.index]} are both shard {shard.shard}")
        seen[shard.shard.index] = shard.path
        stray = next((row["id"] for row in shard.report.results if not shard.shard.holds(row["id"])), None)
        if stray is not None:
            raise ShardsMismatch(f"{shard.path} reports the row {stray}, which is not of shard {shard.shard}")
    count = shards[0].shard.count
    missing = [str(index) for index in range(1, count + 1) if index not in seen]
    if missing:
        raise ShardsMismatch(f"shard {', '.join(f'{index}/{count}' for index in missing)} is missing: "
                             f"{len(shards)} of {count} shards given")


def merge_shards(paths: Sequence[Path]) -> reports.Report:
    """One run's report from its shards' (:class:`reports.ReportError` or :class:`ShardsMismatch`)."""
    shards = [ShardReport.read(path) for path in paths]
    check_shards(shards)
    ordered = sorted(shards, key=lambda shard: shard.shard.index)
    merged = reports.merge_reports([shard.report for shard in ordered])
    header = {key: value for key, value in merged.header.items() if key != "shard"}
    ran = next((shard.report for shard in ordered if shard.report.results), None)
    if ran is not None:  # the implementation a shard met, not an empty shard's "unknown"
        header["implementation"] = ran.header["implementation"]
    header["started"] = min(shard.report.header["started"] for shard in shards)
    return reports.Report(header, merged.results, merged.summary)


def run_merge(paths: Sequence[str], output: str, *, as_json: bool) -> int:
    """``conformance merge``: write the merged report to ``output``; one coded line and exit 2 when
    a report cannot be read, the shards do not add up, or ``output`` cannot be written."""

    from conformance.commandline import fail
    from conformance.outputs import OUTPUT_UNWRITABLE, REPORT, unwritable

    if (problem := unwritable(output, REPORT)) is not None:
        return fail(OUTPUT_UNWRITABLE, problem, as_json=as_json)
    try:
        merged = merge_shards([Path(path) for path in paths])
    except (reports.ReportError, ShardsMismatch) as error:
        return fail(error.code, error.message, as_json=as_json)
    try:
        reports.write_report(Path(output), merged)
    except OSError as exc:
        return fail(OUTPUT_UNWRITABLE, f"cannot write the report {output}: {exc.strerror or exc}", as_json=as_json)
    summary = merged.summary
    if as_json:
        print(json.dumps({"report": output, "shards": len(paths), "implementation": merged.implementation,
                          "summary": summary}))
    else:
        counts = ", ".join(f"{n} {status}" for status, n in summary["counts"].items())
        print(f"merged {len(paths)} shards of {merged.label} into {output}: {summary['total']} rows ({counts})")
    return 0
