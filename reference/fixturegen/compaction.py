"""Compactions: a summary entry that keeps the path from a chosen user message on (spec §1.7).

Why: context building, recall's archived/active split and rebase all start from the latest
compaction's ``firstKeptEntryId``; each compaction keeps later entries than the one before it.
"""

from __future__ import annotations

import bisect

from reference.fixturegen.chat_turns import ChatTurns
from reference.primitives.jsonbytes import JsonObject


class Compactions(ChatTurns):
    """Appends compaction entries on the main path."""

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
