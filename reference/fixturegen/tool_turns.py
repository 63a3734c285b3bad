"""Tool exchanges: single and parallel calls with results, a failed edit and its retry, bash runs,
and the two incomplete exchanges a reader must tolerate (spec §5).

Why: most of a real session is tool traffic; recall, context building and rebase are tested
against these shapes, including calls that never get a result.
"""

from __future__ import annotations

from reference.fixturegen.messages import MessageBuilder
from reference.fixturegen.vocabulary import ANSWERS, FILES, FUNCS, PROMPTS, file_body, fill, npm_test_output


class ToolTurns(MessageBuilder):
    """Turns built around tool calls."""

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
