"""One whole session: the opening every session has, turns until the size budget, the scheduled
compactions and branches, the closing labels and name, and an optional torn tail.

Why: this is the order in which Pi's ``SessionManager`` would have appended a realistic session;
``run`` writes it and ``result`` reports the facts tests need (the leaf, the notable ids).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reference.fixturegen.branches import Branches
from reference.fixturegen.compaction import Compactions
from reference.fixturegen.naming import iso
from reference.fixturegen.options import GeneratedSession
from reference.fixturegen.planted_turns import PlantedTurns
from reference.fixturegen.vocabulary import B62, pick
from reference.primitives.jsonbytes import JsonObject, js_stringify

#: A structural event: (progress at which it happens, order of scheduling, what, its number).
Event = tuple[float, int, str, int]


class SessionBuilder(Compactions, Branches, PlantedTurns):
    """Builds one session, entry by entry, the way SessionManager appends them."""

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
        ts = iso(self._tick())
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
