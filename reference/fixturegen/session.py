"""One whole session: the opening every session has, turns until the size budget, the scheduled
compactions and branches, the closing labels and name, and an optional torn tail.

Why: this is the order in which Pi's ``SessionManager`` would have appended a realistic session;
``run`` writes it and ``result`` reports the facts tests need (the leaf, the notable ids).  A
session file is a tree, not a list (pi-session-model.md §2): side excursions (``branch()``,
``branchWithSummary()``, ``resetLeaf()``) and many re-prompts from one parent leave the final
leaf's path for readers to follow, and context building, recall's archived/active split and
rebase all start from the latest compaction's ``firstKeptEntryId`` (spec §1.7), each compaction
keeping later entries than the one before it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from pathlib import Path

from reference.fixturegen.options import GeneratedSession
from reference.fixturegen.turns import Turns
from reference.fixturegen.vocabulary import B62, PROMPTS, fill, pick
from reference.primitives.jsonbytes import JsonObject, js_stringify
from reference.primitives.jsvalues import to_iso_string

#: A structural event: (progress at which it happens, order of scheduling, what, its number).
Event = tuple[float, int, str, int]


class SessionBuilder(Turns):
    """Builds one session, entry by entry, the way SessionManager appends them."""

    def compaction(self) -> None:
        candidates = self.main_users[bisect.bisect_right(self.main_users, self.first_kept_index) :]
        if len(candidates) < 2:
            self.turn_chat()
            candidates = self.main_users[bisect.bisect_right(self.main_users, self.first_kept_index) :]
        self.first_kept_index = self.rng.choice(candidates[len(candidates) // 2 :])
        kept = self.main[self.first_kept_index][0]
        n = len(self.compactions) + 1
        summary = (f"## Goal\nRefactor the cache layer (round {n}).\n\n## Progress\n### Done\n"
                   f"- [x] Read {len(self.files_read)} files\n- [x] Changed {len(self.files_changed)} files\n\n"
                   "## Next Steps\n1. Run the full test suite")  # fmt: skip
        tokens = self.rng.randint(30_000, 190_000)
        if self.legacy == 1:
            payload: JsonObject = {
                "summary": summary,
                "firstKeptEntryIndex": int(kept),
                "tokensBefore": tokens,
            }
        else:
            details = {"readFiles": sorted(self.files_read), "modifiedFiles": sorted(self.files_changed)}
            usage = self._usage(
                self.model, self.rng.randint(20_000, 60_000), self.rng.randint(300, 1500), 0, 0
            )
            payload = {"summary": summary, "firstKeptEntryId": kept, "tokensBefore": tokens, "details": details,
                       "usage": usage, "fromHook": False}  # fmt: skip
        key = self.emit("compaction", payload, "compaction")
        self.compactions.append(len(self.main) - 1)
        self.notable[f"compaction{n}"] = key
        self.notable[f"compaction{n}_first_kept"] = kept

    def branch_summary(self, parent: str, from_id: str) -> str:
        self.leaf = parent
        payload: JsonObject = {
            "fromId": from_id,
            "summary": "The user explored an alternative; it was abandoned.",
        }
        if self.rng.random() < 0.7:
            payload["details"] = {"readFiles": sorted(self.files_read)[:3], "modifiedFiles": []}
            payload["usage"] = self._usage(
                self.model, self.rng.randint(1000, 5000), self.rng.randint(50, 300), 0, 0
            )
            payload["fromHook"] = False
        else:
            payload["fromHook"] = True
        return self.emit("branch_summary", payload, "branch_summary")

    def excursion(self, n: int) -> None:
        """A side branch: plain ``branch()``, ``branchWithSummary()`` or a new root, then back."""
        main_leaf = self.leaf
        assert main_leaf is not None
        style = n % 3
        stops = (self.main[i][0] for i in self.main_stops[-200:])  # recent turn ends, as /tree users pick
        points = [k for k in stops if k not in (main_leaf, self.sibling_parent)]
        if style < 2 and not points:
            return
        self.on_main = False
        if style == 0:
            self.leaf = self.rng.choice(points)
        elif style == 1:
            self.notable.setdefault("branch_summary", self.branch_summary(self.rng.choice(points), main_leaf))
        else:
            self.leaf = None  # resetLeaf(): the next entry is a second root
        for _ in range(self.rng.randint(1, 3)):
            self.rng.choice(
                (self.turn_chat, self.turn_tool_single, self.turn_incomplete, self.turn_aborted)
            )()
        assert self.leaf is not None
        self.notable[f"branch{n + 1}_leaf"] = self.leaf
        self.on_main = True
        if self.rng.random() < 0.35:
            self.branch_summary(main_leaf, self.leaf)  # /tree back to the main leaf with "summarize"
        else:
            self.leaf = main_leaf

    def siblings(self, count: int) -> None:
        """``count`` children of one parent: re-prompts from the same point; the last one continues."""
        self.turn_chat()
        parent = self.leaf
        assert parent is not None
        self.sibling_parent = parent
        self.notable["sibling_parent"] = parent
        self.on_main = False
        for i in range(count - 1):
            self.leaf = parent
            self.user(f"Attempt {i + 1}: {fill(self.rng, self.rng.choice(PROMPTS))}", blocks=False)
            if i % 25 == 24:
                self.assistant([self.text(f"Answer to attempt {i + 1}.")], "stop")
        self.leaf = parent
        self.on_main = True
        self.turn_chat()

    def progress(self) -> float:
        if self.opts.target_bytes is not None:
            return self.out.bytes / self.opts.target_bytes
        return self.count / max(1, self.opts.entries)

    def fillers(self) -> tuple[list[Callable[[], None]], list[float]]:
        table: list[tuple[Callable[[], None], float, bool]] = [
            (self.turn_chat, 3.0, True),
            (self.turn_tool_single, 4.0, True),
            (self.turn_tool_parallel, 1.5, True),
            (self.turn_error_retry, 1.0, True),
            (self.turn_incomplete, 0.8, True),
            (self.turn_aborted, 0.6, True),
            (self.turn_model_switch, 0.4, True),
            (self.turn_thinking, 0.3, True),
            (self.turn_unicode, 0.3, True),
            (self.turn_secret, 0.3, self.opts.secrets),
            (self.turn_bash, 0.8, self.legacy != 1),
            (self.turn_custom_message, 0.6, self.legacy != 1),
            (self.turn_custom, 0.6, self.legacy is None),
            (self.turn_label, 0.3, self.legacy is None),
            (self.turn_session_info, 0.15, self.legacy is None),
        ]
        active = [(f, w) for f, w, ok in table if ok]
        return [f for f, _ in active], [w for _, w in active]

    def run(self) -> None:
        self.header()
        if self.opts.entries == 0 and self.opts.target_bytes is None:
            self._finish_torn()
            return
        self._opening()
        schedule = self._scheduled_turns()
        events = self._structure_events()
        turns, weights = self.fillers()
        while self.progress() < 1.0:
            if events and self.progress() >= events[0][0]:
                self._event(events.pop(0))
            elif schedule:
                schedule.pop(0)()
            else:
                self.rng.choices(turns, weights)[0]()
        for event in events:  # events the budget did not reach still happen
            self._event(event)
        self._tail()
        self._finish_torn()

    def _opening(self) -> None:
        """What every session starts with, even a small one: the term, Unicode, the secrets."""
        if self.legacy != 1:  # what createAgentSession() appends first for a new session
            self.emit("model_change", {"provider": self.model.provider, "modelId": self.model.model})
            self.emit("thinking_level_change", {"thinkingLevel": "medium"})
        self.turn_term()
        first = [self.turn_unicode] + ([self.turn_secret] if self.opts.secrets else [])
        if self.legacy == 2:
            first.append(self.turn_custom_message)  # v2's hookMessage role is what makes it v2
        self.rng.shuffle(first)
        for turn in first:  # always present, even in small sessions
            turn()

    def _scheduled_turns(self) -> list[Callable[[], None]]:
        """One turn of each kind, in a seeded order, before the weighted fillers take over."""
        rest: list[Callable[[], None]] = [self.turn_tool_single, self.turn_tool_parallel, self.turn_error_retry,
                                          self.turn_incomplete, self.turn_aborted, self.turn_model_switch]  # fmt: skip
        if self.legacy != 1:
            rest += [self.turn_bash, self.turn_custom_message]
        if self.legacy is None:
            rest += [self.turn_custom]
        self.rng.shuffle(rest)
        return rest

    def _structure_events(self) -> list[Event]:
        """Compactions at even steps of progress; branches and siblings (not in v1) at seeded ones."""
        r = self.rng
        linear = self.legacy == 1
        events: list[Event] = []
        for k in range(self.opts.compactions):
            events.append(((k + 1) / (self.opts.compactions + 1), len(events), "compaction", k))
        if not linear:
            for k in range(self.opts.branches):
                events.append((r.uniform(0.2, 0.9), len(events), "branch", k))
            if self.opts.siblings > 0:
                events.append((r.uniform(0.1, 0.5), len(events), "siblings", self.opts.siblings))
        events.sort()
        return events

    def _event(self, event: Event) -> None:
        _, _, what, n = event
        if what == "compaction":
            self.compaction()
        elif what == "branch":
            self.excursion(n)
        else:
            self.siblings(n)
        self.turn_chat()

    def _tail(self) -> None:
        if self.legacy is None:
            first_user = self.main[self.main_users[0]][0]
            self.labels[first_user] = "start"
            self.emit("label", {"targetId": first_user, "label": "start"})
            if self.compactions:
                target = self.main[self.compactions[0]][0]
                self.labels[target] = "after-first-compaction"
                self.emit("label", {"targetId": target, "label": "after-first-compaction"})
            self.turn_session_info()
        self.turn_chat()

    def _finish_torn(self) -> None:
        """Torn tail: a crash mid-append leaves a partial line with no LF after a toolUse."""
        if not self.opts.torn_tail:
            return
        call_id = "toolu_01" + pick(self.rng, B62, 22)
        if self.count:
            self.user("Run the full test suite.")
            call = self.tool_call("bash", {"command": "npm test"})
            call_id = call["id"]
            self.assistant([call], "toolUse")
        message = {"role": "toolResult", "toolCallId": call_id, "toolName": "bash"}
        ts = to_iso_string(self._tick())
        if self.legacy == 1:
            entry: JsonObject = {"type": "message", "timestamp": ts, "message": message}
        else:
            entry = {
                "type": "message",
                "id": self._new_id(),
                "parentId": self.leaf,
                "timestamp": ts,
                "message": message,
            }
        self.out.raw(js_stringify(entry)[: self.rng.randint(20, 60)], eol=False)

    def result(self, path: Path) -> GeneratedSession:
        if self.legacy != 1 and self.compactions:
            first_kept = self.main.index(
                (self.notable[f"compaction{len(self.compactions)}_first_kept"], "user")
            )
            for index, kind in self.incomplete:
                where = "archived" if index < first_kept else "active"
                self.notable.setdefault(f"incomplete_{kind}_{where}", self.main[index][0])
        if self.legacy != 1 and self.main:
            self.notable["main_leaf"] = self.main[-1][0]
        if self.legacy == 1:
            leaf: str | None = None
            self.notable = {k: v for k, v in self.notable.items() if k == "term"}
        else:
            leaf = self.leaf if self.count else None
        return GeneratedSession(path, self.session_id, self.count, leaf, dict(sorted(self.notable.items())))
