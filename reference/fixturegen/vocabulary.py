"""The words sessions are made of: models and prices, file and function names, prompts, answers.

Why: one small vocabulary keeps generated text realistic enough for recall and search, and every
pick from it goes through the session's one PRNG so the bytes stay a function of the seed.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import Final

B62: Final = string.ascii_letters + string.digits
UPPER_ALNUM: Final = string.ascii_uppercase + string.digits


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    """``n`` characters drawn from ``alphabet``."""
    return "".join(rng.choice(alphabet) for _ in range(n))


@dataclass(frozen=True)
class Model:
    """A provider model as Pi records it, with its per-token prices."""

    api: str
    provider: str
    model: str
    prices: tuple[float, float, float, float]  # per token: input, output, cacheRead, cacheWrite


MODELS: Final = (
    Model("anthropic-messages", "anthropic", "claude-sonnet-4-5", (3e-6, 1.5e-5, 3e-7, 3.75e-6)),
    Model("openai-responses", "openai", "gpt-5", (1.25e-6, 1e-5, 1.25e-7, 0.0)),
    Model("openai-completions", "openrouter", "deepseek/deepseek-chat-v3.1", (2.7e-7, 1.1e-6, 7e-8, 0.0)),
)
THINKING_LEVELS: Final = ("off", "minimal", "low", "medium", "high", "xhigh")
FILES: Final = (
    "src/index.ts", "src/cache.ts", "src/server.ts", "src/util/retry.ts", "scripts/build.mjs",
    "package.json", "README.md", "test/cache.test.ts", "docs/architecture.md", "tsconfig.json",
)  # fmt: skip
FUNCS: Final = (
    "loadConfig", "retryWithBackoff", "parseArgs", "buildIndex", "flushCache", "handleRequest",
    "normalizePath", "readManifest", "scheduleJob",
)  # fmt: skip
TERM_WORDS: Final = ("heron", "quokka", "marmot", "ibis", "tapir", "okapi", "narwhal", "pangolin")
PROMPTS: Final = (
    "What does {file} do?",
    "Can you add error handling to {func} in {file}?",
    "Run the tests and fix whatever fails.",
    "Why is {func} slow on large inputs?",
    "Rename {func} to {func2} everywhere.",
    "Please write a short summary of the changes so far.",
    "Check the logs for the timeout error in {func}.",
    "Add a unit test for {func}.",
    "Is {file} still used anywhere?",
    "Können wir {func} vereinfachen? Danke!",
    "{func} の戻り値をキャッシュしてください。",
)
ANSWERS: Final = (
    "{file} exports {func}, which reads the config once and memoizes it.",
    "Done. I updated {func} in {file} and the tests pass.",
    "{func} walks the whole list on every call; caching the index makes it O(1).",
    "I renamed it and updated all call sites.",
    "Nothing imports {file} any more, so it can be deleted.",
    "Summary: the cache layer was refactored, {func} got retries, and tests were added.",
    "The timeout comes from {func}: it retries without backoff. I added exponential backoff.",
)


def fill(rng: random.Random, template: str) -> str:
    """``template`` with ``{file}``, ``{func}`` and ``{func2}`` picked from the vocabulary."""
    return template.format(file=rng.choice(FILES), func=rng.choice(FUNCS), func2=rng.choice(FUNCS) + "V2")


def file_body(rng: random.Random, path: str) -> str:
    """What a ``read`` of ``path`` returns: a few lines of TypeScript."""
    func = rng.choice(FUNCS)
    lines = [f"// {path}", f"export async function {func}(input: string): Promise<string> {{"]
    for i in range(rng.randint(2, 8)):
        lines.append(
            f"  const step{i} = await helper{i}(input); // {rng.choice(('TODO', 'ok', 'see #12', 'hot path'))}"
        )
    lines += ["  return input.trim();", "}"]
    return "\n".join(lines)


def npm_test_output(rng: random.Random, failing: bool) -> str:
    """What ``npm test`` prints, with one failure when ``failing``."""
    lines = [
        f"✓ {rng.choice(FUNCS)} › handles case {i} ({rng.randint(1, 40)} ms)"
        for i in range(rng.randint(2, 6))
    ]
    if failing:
        lines.append(
            f'✗ {rng.choice(FUNCS)} › rejects empty input\n  Expected: "error"\n  Received: undefined'
        )
    lines.append(f"Tests: {len(lines)} total, {int(failing)} failed")
    return "\n".join(lines)
