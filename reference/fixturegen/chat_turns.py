"""Conversation turns without tools: chat, model and thinking changes, custom entries and
messages, labels and session names.

Why: these are the entry types besides tool traffic that Pi 0.84.3 writes (pi-session-model.md §2);
the legacy versions get only the ones they had.
"""

from __future__ import annotations

import re
from typing import Any

from reference.fixturegen.messages import MessageBuilder
from reference.fixturegen.vocabulary import ANSWERS, MODELS, PROMPTS, THINKING_LEVELS, fill


class ChatTurns(MessageBuilder):
    """Turns of plain conversation and session bookkeeping."""

    def turn_chat(self) -> None:
        self.user(fill(self.rng, self.rng.choice(PROMPTS)))
        content = [self.text(fill(self.rng, self.rng.choice(ANSWERS)))]
        if self.rng.random() < 0.4:
            content.insert(
                0, self.thinking(fill(self.rng, "The user asks about {func}; {file} is the place to look."))
            )
        self.assistant(content, "stop")

    def turn_custom(self) -> None:
        data: Any = {
            "version": 1,
            "base": None,
            "step": self.count,
            "note": "extension state, not in LLM context",
        }
        self.custom_entry("rebase-state", data if self.rng.random() < 0.8 else None)

    def turn_custom_message(self) -> None:
        r = self.rng
        if r.random() < 0.5:
            self.custom_message(
                "rebase-note",
                "Reminder injected by an extension: keep answers short.",
                True,
                {"source": "fixtures_gen"},
            )
        else:
            self.user(fill(self.rng, r.choice(PROMPTS)))
            blocks = [
                {"type": "text", "text": "Context from the previous session: the cache layer was refactored."}
            ]
            self.custom_message("rebase-context", blocks, False)
            self.assistant([self.text("Understood, continuing from there.")], "stop")

    def turn_model_switch(self) -> None:
        others = [m for m in MODELS if m != self.model]
        self.model = self.rng.choice(others)
        self.emit("model_change", {"provider": self.model.provider, "modelId": self.model.model})
        if self.rng.random() < 0.7:
            self.turn_thinking()

    def turn_thinking(self) -> None:
        self.emit("thinking_level_change", {"thinkingLevel": self.rng.choice(THINKING_LEVELS)})

    def turn_label(self) -> None:
        if not self.main_users:
            return
        if self.labels and self.rng.random() < 0.25:
            target = self.rng.choice(sorted(self.labels))
            del self.labels[target]
            self.emit("label", {"targetId": target})  # clears the label: the key is omitted
            return
        target = self.main[self.rng.choice(self.main_users)][0]
        name = self.rng.choice(("checkpoint", "good-state", "before-refactor", "todo", "bug-repro"))
        self.labels[target] = name
        self.emit("label", {"targetId": target, "label": name})

    def turn_session_info(self) -> None:
        raw = fill(
            self.rng,
            self.rng.choice(
                ("Refactor {func}\n(demo)", "  Cache work on {file}  ", "Fix {func}\r\nand tests")
            ),
        )
        name = re.sub(r"[\r\n]+", " ", raw).strip()  # what appendSessionInfo stores
        self.notable["session_info"] = self.emit("session_info", {"name": name})
