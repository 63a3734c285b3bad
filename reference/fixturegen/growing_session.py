"""A session as it is written: its clock, its entry ids, its leaf and the path of the final leaf.

Why: every entry is appended under the current leaf the way ``SessionManager._appendEntry`` does it
(pi-session-model.md §2), with Pi's key orders; the builders of messages, turns, compactions and
branches all append through ``emit`` and read the state kept here.
"""

from __future__ import annotations

import random
from typing import Any

from reference.fixturegen.damage import LineDamage
from reference.fixturegen.line_writer import LineWriter
from reference.fixturegen.naming import iso
from reference.fixturegen.options import GenOptions
from reference.fixturegen.vocabulary import MODELS, TERM_WORDS
from reference.primitives.jsonbytes import js_stringify


class GrowingSession:
    """One session's state, and the header and entries appended under the current leaf."""

    def __init__(
        self, rng: random.Random, opts: GenOptions, out: LineWriter, start_ms: int, session_id: str
    ) -> None:
        self.rng = rng
        self.opts = opts
        self.out = out
        self.legacy = opts.legacy
        self.session_id = session_id
        self.header_ts = iso(start_ms)
        # the tree: clock, ids, leaf, and the path of the final leaf
        self.clock = start_ms
        self.ids: set[str] = set()
        self.leaf: str | None = None
        self.count = 0
        self.on_main = True
        self.main: list[tuple[str, str]] = []  # (id, kind) along the path of the final leaf
        self.main_users: list[int] = []  # indexes into self.main, kept so big files stay linear
        self.main_stops: list[int] = []
        # what the builders record as they go (messages, turns, compactions, branches)
        self.model = MODELS[0]
        self.notable: dict[str, str] = {}
        self.files_read: set[str] = set()
        self.files_changed: set[str] = set()
        self.labels: dict[str, str] = {}
        self.first_kept_index = -1
        self.compactions: list[int] = []  # indexes into self.main
        self.incomplete: list[tuple[int, str]] = []  # (main index of the assistant, kind)
        self.sibling_parent: str | None = None
        self.call_seq = 0
        # the session's first two draws, in this order: the planted term, then the damaged lines
        self.term = f"{rng.choice(TERM_WORDS)}-{rng.getrandbits(16):04x}"
        self.damage = LineDamage(rng, opts.malformed, opts.blank, opts.entries)

    def _tick(self, lo: int = 300, hi: int = 4000) -> int:
        self.clock += self.rng.randint(lo, hi)
        return self.clock

    def _new_id(self) -> str:
        while True:
            candidate = f"{self.rng.getrandbits(32):08x}"
            if candidate not in self.ids:
                self.ids.add(candidate)
                return candidate

    def _damage(self, after: int) -> None:
        for line in self.damage.lines_after(after, self.clock):
            self.out.raw(line)

    def header(self) -> None:
        if self.legacy == 1:
            head: dict[str, Any] = {"type": "session", "id": self.session_id, "timestamp": self.header_ts,
                                    "cwd": self.opts.cwd, "provider": self.model.provider,
                                    "modelId": self.model.model, "thinkingLevel": "off"}  # fmt: skip
        else:
            version = 2 if self.legacy == 2 else 3
            head = {"type": "session", "version": version, "id": self.session_id,
                    "timestamp": self.header_ts, "cwd": self.opts.cwd}  # fmt: skip
        self.out.raw(js_stringify(head))
        self._damage(0)

    def emit(
        self, entry_type: str, payload: dict[str, Any], kind: str = "other", *, ids_last: bool = False
    ) -> str:
        """Append one entry under the current leaf, like ``SessionManager._appendEntry``."""
        self._tick()
        key = self._new_id()
        ts = iso(self.clock)
        if self.legacy == 1:
            entry = {"type": entry_type, "timestamp": ts, **payload}
            key = str(self.count + 1)  # v1 has no ids: the parsed-entry index stands in
        elif ids_last:
            entry = {"type": entry_type, **payload, "id": key, "parentId": self.leaf, "timestamp": ts}
        else:
            entry = {"type": entry_type, "id": key, "parentId": self.leaf, "timestamp": ts, **payload}
        if self.leaf is None and self.count and self.legacy != 1:
            self.notable.setdefault("second_root", key)
        self.out.raw(js_stringify(entry))
        self.count += 1
        self.leaf = key
        if self.on_main:
            if kind == "user":
                self.main_users.append(len(self.main))
            elif kind == "assistant_stop":
                self.main_stops.append(len(self.main))
            self.main.append((key, kind))
        self._damage(self.count)
        return key
