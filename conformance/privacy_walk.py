"""The labelled privacy corpus walked over every output path of an implementation (issue 11).

The corpus (``fixtures/privacy/session.jsonl`` and ``labels.json``) holds fake secrets, each alone
in an entry with a unique term, and near-misses that are not secrets.  A secret *leaks* when 8 or
more consecutive characters of its sensitive part (:func:`windows`) appear in any output of a
path (:func:`envelope_text`: the JSON text and every string of the output).  A near-miss is a
*false positive* of a path when that path does not show it as the rule of the path says
(recall: a ``normal`` hit on its entry; read: its text whole; rebase and egress: its text whole
in what goes to the provider).

This module talks to the implementation only through the adapter protocol.  It owns the corpus,
the rules and the history and egress walks; :mod:`conformance.privacy_rebase` walks rebase and
:mod:`conformance.privacy_command` prints the numbers (``recall-rebase conformance privacy``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ahocorasick_rs import AhoCorasick, MatchKind

from conformance.privacy_corpus import CorpusLabels, LabelledItem, NearMiss, PrivacyCorpus
from conformance.protocol import Adapter, ContractError, JsonObject
from conformance.suite import fixtures_dir
from conformance.world import HistoryProject

#: A run of a secret this long in an output is a leak: 8 characters, or 12 when all are hex digits.
#: Both are about 48 bits (8 characters of base64, 12 hex digits); 8 hex digits are 32, and a
#: port's 32-hex operation ids meet one of the corpus's 897 hex windows by chance about once in
#: 550 runs (tests/conformance/test_privacy_leak_windows.py).
WINDOW: Final = 8
HEX_WINDOW: Final = 12
_HEX: Final = frozenset("0123456789abcdefABCDEF")
FP_LIMIT: Final = 0.02
#: The two providers every path is walked for: one remote, one local (contract §2.10 defaults).
PROVIDERS: Final = {"remote": "openai", "local": "ollama"}
HISTORY_RESULT: Final = "ds4-history-result-v1"
HANDOFF_TYPE: Final = "ds4-rebase-handoff-v1"
HANDOFF_OPEN: Final = "[DS4 REBASE HANDOFF \u2014 QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]"
HANDOFF_CLOSE: Final = "[END DS4 REBASE HANDOFF]"
_PIECES: Final = re.compile(r'\\[nrt"\\/]|\s|\\')

#: How a walk calls a history tool: the operation and its arguments, the envelope back.
ToolCall = Callable[[str, dict[str, Any]], JsonObject]


def line_of(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def corpus_session(cwd: Path) -> bytes:
    """The corpus session, its header's ``cwd`` set to the project folder, every other byte kept."""
    data = (fixtures_dir() / "privacy" / "session.jsonl").read_bytes()
    header, rest = data.split(b"\n", 1)
    value = json.loads(header)
    value["cwd"] = str(cwd)
    return line_of(value).encode("utf-8") + b"\n" + rest


def windows(sensitive: str) -> Iterator[str]:
    """Every run of ``WINDOW`` characters of a sensitive part, within its pieces (split at
    whitespace and JSON escapes, which an output may write differently).  A window of hex digits
    alone is ``HEX_WINDOW`` long; a run of 8 to 11 hex digits is one window, whole."""
    for piece in _PIECES.split(sensitive):
        for start in range(len(piece) - WINDOW + 1):
            run = next((n for n, c in enumerate(piece[start : start + HEX_WINDOW]) if c not in _HEX), None)
            if run is not None and run < WINDOW:
                yield piece[start : start + WINDOW]
            elif run is None and start + HEX_WINDOW <= len(piece):
                yield piece[start : start + HEX_WINDOW]
            elif start == 0 or piece[start - 1] not in _HEX:  # a hex run shorter than 12: whole
                yield piece[start : start + (run or len(piece) - start)]


def strings_of(value: Any, *, keys: bool = True) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if keys:
                yield key
            yield from strings_of(item, keys=keys)
    elif isinstance(value, list):
        for item in value:
            yield from strings_of(item, keys=keys)


def envelope_text(result: Any) -> str:
    """What a leak is looked for in: the output's JSON text and its strings."""
    return line_of(result) + "\n" + "\n".join(strings_of(result))


def leaked(outputs: Iterable[str], labels: CorpusLabels) -> list[str]:
    """The ids of the secrets of which some window appears in one of the outputs: one
    Aho-Corasick pass over each output for every window of every secret at once (overlapping
    matches, so a window inside another is found too), in time linear in the outputs' length.
    The oracle, every substring of each output looked up, is ``tests/conformance/test_privacy_leak_windows.py``'s."""
    owners: dict[str, list[str]] = {}
    for secret in labels.secrets:
        for gram in windows(secret.sensitive):
            owners.setdefault(gram, []).append(secret.id)
    grams = list(owners)
    if not grams:
        return []
    automaton = AhoCorasick(grams, matchkind=MatchKind.Standard)
    found: set[str] = set()
    for text in outputs:
        for pattern, _start, _end in automaton.find_matches_as_indexes(text, overlapping=True):
            found.update(owners[grams[pattern]])
    return [secret.id for secret in labels.secrets if secret.id in found]


@dataclass
class Tally:
    """One output path for one provider: the outputs it gave and the near-misses it flagged."""

    path: str
    provider: str
    outputs: list[str] = field(default_factory=list)
    #: None: this path shows no near-miss text, so it has no false-positive rule.
    flagged: set[str] | None = None

    def add(self, value: Any) -> None:
        self.outputs.append(envelope_text(value))

    def flag(self, item_id: str) -> None:
        if self.flagged is None:
            self.flagged = set()
        self.flagged.add(item_id)

    def judged(self) -> None:
        """This path has a false-positive rule (none may be flagged yet)."""
        if self.flagged is None:
            self.flagged = set()


def row(tally: Tally, labels: CorpusLabels) -> JsonObject:
    """The numbers of one path: outputs walked, secrets leaked, near-miss false positives."""
    secrets, near = labels.secrets, labels.near_misses
    leaks = leaked(tally.outputs, labels)
    flagged = None if tally.flagged is None else sorted(tally.flagged)
    ok = not leaks and (flagged is None or len(flagged) <= FP_LIMIT * len(near))
    family = {secret.id: secret.family for secret in secrets}
    near_family = {item.id: item.family for item in near}
    return {"path": tally.path, "provider": tally.provider, "outputs": len(tally.outputs),
            "leaked": leaks, "secrets": len(secrets), "falsePositives": flagged, "nearMisses": len(near), "ok": ok,
            "leakedByFamily": count_by(family[secret_id] for secret_id in leaks),
            "falsePositivesByFamily": None if flagged is None else count_by(near_family[item] for item in flagged)}


def count_by(names: Iterable[str]) -> dict[str, int]:
    """How many times each name occurs, names in sorted order."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def answer(adapter: Adapter, op: str, params: dict[str, Any]) -> JsonObject:
    """A request whose contract error is an output too (its message may not leak either)."""
    try:
        return adapter.request(op, params)
    except ContractError as exc:
        return {"error": {"code": exc.code, "message": exc.message}}


def open_history(adapter: Adapter, project: HistoryProject, session: Path, provider: str) -> JsonObject:
    params = {**project.host_params(), "sessionFile": str(session), "indexPath": str(project.index_path),
              "provider": provider}
    return answer(adapter, "history.open", params)


def tool_caller(adapter: Adapter) -> ToolCall:
    return lambda op, arguments: answer(adapter, op, {"arguments": arguments})


@dataclass
class CorpusRun:
    """Per labelled item: its recall envelope and its reads."""

    recalls: dict[str, JsonObject] = field(default_factory=dict)
    reads: dict[str, list[JsonObject]] = field(default_factory=dict)

    def hits_of(self, item: LabelledItem) -> list[JsonObject]:
        return [hit for hit in self.recalls[item.id].get("hits") or [] if hit.get("entryId") == item.entry_id]

    def recall_flagged(self, item: LabelledItem) -> bool:
        """A near-miss's recall is a false positive when its entry is not a ``normal`` hit."""
        hits = self.hits_of(item)
        return not hits or any(hit.get("classification") != "normal" for hit in hits)

    def read_flagged(self, item: NearMiss) -> bool:
        """A near-miss's read is a false positive when its text is not shown whole."""
        reads = self.reads[item.id]
        return not reads or any(item.whole not in str(read.get("text", "")) for read in reads)

    def flagged(self, item: NearMiss) -> bool:
        return self.recall_flagged(item) or self.read_flagged(item)


def recall_and_read(call: ToolCall, run: CorpusRun, items: Iterable[LabelledItem]) -> None:
    """Recall each labelled item by its term (summaries included) and read every hit."""
    for item in items:
        recall = call("history.recall", {"query": f"`{item.term}`", "includeSummaries": True})
        run.recalls[item.id] = recall
        run.reads[item.id] = [call("history.read", {"sourceRef": hit["sourceRef"]})
                                 for hit in recall.get("hits") or [] if isinstance(hit, dict) and "sourceRef" in hit]


def walk_history(adapter: Adapter, project: HistoryProject, session: Path, provider: str,
                 labels: CorpusLabels) -> list[Tally]:
    """recall, read and status (the status after the index is built) over every labelled item."""
    recall, read, status = Tally("recall", provider), Tally("read", provider), Tally("status", provider)
    recall.add(open_history(adapter, project, session, provider))
    run = CorpusRun()
    call = tool_caller(adapter)
    recall_and_read(call, run, (*labels.secrets, *labels.near_misses))
    for item_id, envelope in run.recalls.items():
        recall.add(envelope)
        for result in run.reads[item_id]:
            read.add(result)
    status.add(call("history.status", {}))
    recall.judged()
    read.judged()
    for item in labels.near_misses:
        if run.recall_flagged(item):
            recall.flag(item.id)
        if run.read_flagged(item):
            read.flag(item.id)
    return [recall, read, status]


def entry_text(entry: dict[str, Any]) -> str:
    """The text an entry carries (message, summary or content), its values joined by lines."""
    part = {key: entry[key] for key in ("message", "summary", "content") if key in entry}
    return "\n".join(strings_of(part, keys=False))


def egress_payload(text: str) -> list[JsonObject]:
    """``text`` in the two places egress re-checks (§6.15): a ``normal`` recall hit's excerpt in a
    history tool result, and a rebase handoff string at ``normal``."""
    result = line_of({"schema": HISTORY_RESULT, "quotedData": True, "status": "complete", "coverage": "complete",
                      "warnings": [], "hits": [{"classification": "normal", "excerpt": text}]})
    handoff = f"[ds4:normal]{HANDOFF_OPEN}\n{text}\n{HANDOFF_CLOSE}[/ds4:normal]"
    return [{"role": "toolResult", "toolName": "context_history_recall", "toolCallId": "privacy-walk",
             "content": [{"type": "text", "text": result}]},
            {"role": "custom", "customType": HANDOFF_TYPE, "content": handoff, "display": False}]


def _shown_whole(output: Any, whole: str) -> bool:
    """A near-miss is whole in an egress output when both its excerpt and its handoff keep it."""
    try:
        text = output[0]["content"][0]["text"] if isinstance(output[0]["content"], list) else output[0]["content"]
        excerpt = json.loads(text)["hits"][0]["excerpt"]
        return whole in excerpt and whole in output[1]["content"]
    except (LookupError, TypeError, ValueError):
        return False


def walk_egress(adapter: Adapter, provider: str, corpus: PrivacyCorpus) -> Tally:
    """Every corpus entry's text out through ``egress.sanitize`` to the provider."""
    tally = Tally("egress", provider)
    tally.judged()
    near = {item.entry_id: item for item in corpus.labels.near_misses}
    for entry in corpus.records[1:]:
        response = answer(adapter, "egress.sanitize", {"payload": egress_payload(entry_text(entry)),
                                                       "provider": provider})
        tally.add(response)
        item = near.get(entry.get("id", ""))
        if item is not None and not _shown_whole(response.get("payload"), item.whole):
            tally.flag(item.id)
    return tally
