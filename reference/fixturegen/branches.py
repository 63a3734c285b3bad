"""Branches: side excursions from an earlier turn end, branch summaries, second roots, siblings.

Why: a session file is a tree, not a list (pi-session-model.md §2); readers must follow the final
leaf's path and ignore the rest, which these shapes exercise: ``branch()``, ``branchWithSummary()``,
``resetLeaf()`` and many re-prompts from one parent.
"""

from __future__ import annotations

from reference.fixturegen.chat_turns import ChatTurns
from reference.fixturegen.tool_turns import ToolTurns
from reference.fixturegen.vocabulary import PROMPTS, fill
from reference.primitives.jsonbytes import JsonObject


class Branches(ToolTurns, ChatTurns):
    """Appends entries off the main path, then returns to it."""

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
