"""The turns a session is made of: plain conversation and session bookkeeping, tool exchanges,
and the planted turns every session carries.

Why: these are the entry types Pi 0.84.3 writes (pi-session-model.md §2), the legacy versions
getting only the ones they had.  Most of a real session is tool traffic, including the two
incomplete exchanges a reader must tolerate (spec §5); the planted turns hold what tests find by
their notable ids (``term_entry``, ``non_ascii_entry``, ``secret_user``, ``secret_entry``): recall
must find the term, text must survive byte for byte, and privacy must catch the fake credentials.
"""

from __future__ import annotations

import re
from typing import Any

from reference.fixturegen.growing_session import GrowingSession
from reference.fixturegen.vocabulary import (
    ANSWERS,
    B62,
    FILES,
    FUNCS,
    MODELS,
    PROMPTS,
    THINKING_LEVELS,
    UPPER_ALNUM,
    file_body,
    fill,
    npm_test_output,
    pick,
)


class Turns(GrowingSession):
    """Whole turns: a user message and what follows it, appended under the current leaf."""

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

    def turn_tool_single(self) -> None:
        r = self.rng
        self.user(fill(self.rng, r.choice(PROMPTS)))
        path = r.choice(FILES)
        if r.random() < 0.5:
            call = self.tool_call("read", {"path": path})
            self.assistant([self.thinking(f"I should read {path} first."), call], "toolUse")
            self.tool_result(call, file_body(self.rng, path))
        else:
            call = self.tool_call("bash", {"command": "npm test -- --silent", "timeout": 120})
            self.assistant([self.text("Running the tests."), call], "toolUse")
            if r.random() < 0.15:
                self.custom_entry("tool-audit", {"toolCallId": call["id"], "allowed": True})
            failing = r.random() < 0.3
            self.tool_result(call, npm_test_output(self.rng, failing), error=failing)
        self.assistant([self.text(fill(self.rng, r.choice(ANSWERS)))], "stop")

    def turn_tool_parallel(self) -> None:
        r = self.rng
        self.user(fill(self.rng, "Compare {file} with the tests and tell me what is missing."))
        paths = r.sample(FILES, r.randint(2, 3))
        calls = [self.tool_call("read", {"path": p}) for p in paths]
        self.assistant(list(calls), "toolUse")
        for call, path in zip(calls, paths, strict=True):
            self.tool_result(call, file_body(self.rng, path))
        self.assistant(
            [self.text(fill(self.rng, "The tests do not cover {func}; I suggest adding two cases."))], "stop"
        )

    def turn_error_retry(self) -> None:
        r = self.rng
        path = r.choice(FILES)
        func = r.choice(FUNCS)
        self.user(f"Make {func} in {path} async.")
        bad = self.tool_call(
            "edit",
            {"path": path, "edits": [{"oldText": f"function {func}(", "newText": f"async function {func}("}]},
        )
        self.assistant([bad], "toolUse")
        self.tool_result(bad, f"Error: oldText not found in {path}", error=True, details={})
        good = self.tool_call(
            "edit",
            {
                "path": path,
                "edits": [{"oldText": f"export function {func}", "newText": f"export async function {func}"}],
            },
        )
        self.assistant([self.text("Retrying with the exact text."), good], "toolUse")
        diff = f"-export function {func}\n+export async function {func}"
        self.tool_result(
            good,
            f"Successfully replaced 1 block(s) in {path}.",
            details={"diff": diff, "firstChangedLine": r.randint(1, 80)},
        )
        self.assistant([self.text(f"{func} is async now.")], "stop")

    def turn_incomplete(self) -> None:
        """Incomplete exchange #1: two calls, one result, then the user interrupts (spec §5)."""
        r = self.rng
        self.user(fill(self.rng, "Lint {file} and check the config."))
        first = self.tool_call("bash", {"command": f"npx eslint {r.choice(FILES)}"})
        second = self.tool_call("read", {"path": ".eslintrc.json"})
        key = self.assistant([first, second], "toolUse")
        self._note_incomplete(key, "missing_result")
        self.tool_result(first, "0 problems")
        self.user("Stop, never mind.", blocks=True)
        self.assistant([self.text("Stopped.")], "stop")

    def turn_aborted(self) -> None:
        """Incomplete exchange #2: an aborted assistant with a partial toolCall and no result."""
        self.user(fill(self.rng, "Fix the lint errors in {file}."))
        call = self.tool_call("bash", {"command": "npx eslint --fix"})
        key = self.assistant([self.text("Fixing"), call], "aborted", error="Request was aborted")
        self._note_incomplete(key, "aborted")

    def _note_incomplete(self, key: str, kind: str) -> None:
        self.notable.setdefault(f"incomplete_{kind}", key)
        if self.on_main:
            self.incomplete.append((len(self.main) - 1, kind))

    def turn_bash(self) -> None:
        r = self.rng
        if r.random() < 0.25:
            self.bash_execution("sleep 60 && make deploy", "", exit_code=None)
        else:
            output = " M src/cache.ts\n?? test/cache.test.ts\n\x1b[32m2 files changed\x1b[0m"
            self.bash_execution("git status --short", output, exclude=r.random() < 0.3)

    def turn_term(self) -> None:
        key = self.user(f"Why does the `{self.term}` feature flag disable the cache in src/cache.ts?")
        self.notable["term_entry"] = key
        self.notable["term"] = self.term
        self.assistant(
            [self.text("The flag short-circuits `flushCache`, so nothing is ever stored.")], "stop"
        )

    def turn_unicode(self) -> None:
        """Non-ASCII, astral, combining, RTL, U+2028/U+0085, BOM-in-text and a lone surrogate."""
        key = self.user(
            "Übersetze bitte die Fehlermeldung — und was bedeutet 「キャッシュが無効です」? 🤔", blocks=True
        )
        self.notable["non_ascii_entry"] = key
        call = self.tool_call("read", {"path": "docs/i18n/日本語.md"})
        self.assistant([self.thinking("Die Datei enthält Übersetzungen; ich lese sie."), call], "toolUse")
        body = ("# 日本語\nこんにちは、世界 👋🏽\n中文：缓存无效。\n한국어: 캐시가 잘못되었습니다.\n"
                "e\u0301 vs é, n\u0303, 👨\u200d👩\u200d👧\u200d👦, 🇯🇵, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀\n"
                "مرحبا بالعالم / שלום\nline\u2028separator, next\u0085line, \ufeffbom-inside, tab\tend\n"
                "truncated emoji: \ud83c")  # fmt: skip
        self.tool_result(call, body)
        if self.legacy != 1:  # bashExecution messages are not part of the v1 model here
            self.bash_execution("ls docs/i18n", "ja.md\nzh-Hans.md\nko.md\n\x1b[1;32mdone ✔\x1b[0m")
        self.assistant(
            [self.text("「キャッシュが無効です」 heißt „Der Cache ist ungültig“. ✅ Café, naïve, 𝟘𝟙𝟚 🚀")],
            "stop",
        )

    def turn_secret(self) -> None:
        """Clearly fake credentials in the places real ones leak: prompts, tool args and outputs."""
        r = self.rng
        ghp = "ghp_FAKE" + pick(r, B62, 32)
        sk = "sk-proj-FAKE" + pick(r, B62, 44)
        akia = "AKIAFAKE" + pick(r, UPPER_ALNUM, 12)
        aws_secret = "FAKE" + pick(r, B62 + "/+", 36)
        key_lines = "\n".join("FAKEKEY" + pick(r, B62 + "+/", 57) for _ in range(3))
        pem = f"-----BEGIN PRIVATE KEY-----\n{key_lines}\n-----END PRIVATE KEY-----"
        self.notable["secret_user"] = self.user(
            f"The deploy fails with 403. My token is {ghp}, can you check the config?"
        )
        call = self.tool_call("read", {"path": ".env"})
        self.assistant([call], "toolUse")
        env = (f"OPENAI_API_KEY={sk}\nAWS_ACCESS_KEY_ID={akia}\nAWS_SECRET_ACCESS_KEY={aws_secret}\n"
               f"GITHUB_TOKEN={ghp}\nDATABASE_URL=postgres://app:FAKE-pass-{pick(r, B62, 10)}@db.internal:5432/app")  # fmt: skip
        self.notable["secret_entry"] = self.tool_result(call, env)
        curl = self.tool_call(
            "bash",
            {"command": f'curl -s -H "Authorization: Bearer {sk}" https://api.example.invalid/v1/models'},
        )
        self.assistant([curl], "toolUse")
        self.tool_result(curl, '{"error":"invalid_api_key"}', details={"exitCode": 0})
        key_call = self.tool_call("bash", {"command": "cat deploy/key.pem"})
        self.assistant([key_call], "toolUse")
        self.tool_result(key_call, pem)
        self.assistant(
            [self.text("These credentials look exposed (.env, key.pem). Rotate them before deploying.")],
            "stop",
        )
        if self.legacy != 1:
            self.bash_execution("env | grep -i token", f"GITHUB_TOKEN={ghp}")
