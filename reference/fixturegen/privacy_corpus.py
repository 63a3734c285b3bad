"""The labelled privacy corpus: one Pi session of fake secrets and near-misses, and its labels.

Why: secret detection is measured, and the ``PRIVACY-1xx`` scenarios check that nothing leaks,
on a corpus anyone can regenerate from a seed (``recall-rebase fixtures privacy-corpus``).  Each
secret and each near-miss sits alone in one entry with a unique search term, in a role (user,
assistant, tool-call arguments, tool result, bash output, custom message, compaction summary)
and a position (plain, JSON-escaped, inside a URL; PEM blocks are multi-line).  The labels say
for each secret its family, entry, term and sensitive part, and for each near-miss the text that
must stay whole.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import random
import uuid
from pathlib import Path
from typing import Final

from reference.fixturegen.privacy_families import ALNUM, FAMILIES, LOWER_HEX, FakeSecret, pick
from reference.primitives.jsonbytes import JsonObject
from reference.primitives.platform_ops.owner_only import create_owner_only, ensure_private_dir

SEED: Final = 1101
INSTANCES: Final = 3
ROLES: Final = ("user", "assistant", "tool-call-arguments", "tool-result", "bash-output", "custom-message", "compaction-summary")
SESSION_FILE: Final = "session.jsonl"
LABELS_FILE: Final = "labels.json"
_URL_SAFE: Final = set(ALNUM + "-_.~")

_WORDS: Final = ("hello world", "the quick brown fox", "configuration", "release notes for march",
                 "ordinary words only", "nothing to see here", "lorem ipsum dolor sit amet")  # fmt: skip
_PROSE: Final = (
    "The API uses the Bearer authentication scheme described in RFC 6750.",
    "Send the header as Bearer followed by the token you were issued.",
    "Reset your password from the account settings page.",
    "The password field is required and must have 12 characters.",
    "Never paste a password or an API key into a chat.",
    "Rotate the access token every 90 days; the docs explain how.",
    "Store the client secret in the vault, not in the repository.",
    "An AWS access key id starts with AKIA; ours live in the secret manager.",
    "GitHub tokens start with ghp_ or github_pat_ and are revoked on leak.",
    "Tokens are counted per request: 12345 tokens used.",
    "The private key never leaves the hardware security module.",
    "Use `aws configure` to set up credentials interactively.",
)


def _near_misses(rng: random.Random) -> list[tuple[str, str]]:
    """(kind, text) pairs that look a little like secrets and are not."""
    out: list[tuple[str, str]] = []
    for _ in range(8):
        out.append(("git-sha", pick(rng, LOWER_HEX, 40)))
    for _ in range(4):
        out.append(("short-sha", pick(rng, LOWER_HEX, 7)))
    for _ in range(8):
        out.append(("uuid", str(uuid.UUID(int=rng.getrandbits(128), version=4))))
    for _ in range(6):
        out.append(("sha256", hashlib.sha256(pick(rng, ALNUM, 12).encode()).hexdigest()))
    for _ in range(3):
        digest = base64.b64encode(hashlib.sha512(pick(rng, ALNUM, 12).encode()).digest()).decode()
        out.append(("npm-integrity", "sha512-" + digest))
    for _ in range(3):
        out.append(("image-digest", "sha256:" + hashlib.sha256(pick(rng, ALNUM, 12).encode()).hexdigest()))
    for words in _WORDS:
        out.append(("base64-words", base64.b64encode(words.encode()).decode()))
    for prose in _PROSE:
        out.append(("prose", prose))
    out.append(("commit-url", f"https://github.com/example/project/commit/{pick(rng, LOWER_HEX, 40)}"))
    out.append(("timestamp", "2026-01-01T12:34:56.789Z"))
    out.append(("semver", "v2.14.3-rc.1+build.20260101"))
    out.append(("path", "/home/user/projects/demo/src/secrets/manager.ts"))
    out.append(("env-name", "export DATABASE_URL=${DATABASE_URL:?missing}"))
    out.append(("placeholder", "password=<your-password-here> is only an example in the README"))
    out.append(("html-color", "#3f51b5 #ff9800 #e91e63"))
    return out


def _position(secret: FakeSecret, index: int) -> tuple[str, str, str]:
    """(position, text, sensitive as it appears in the text) for the ``index``-th instance."""
    kind = index % 3
    if kind == 1:
        escaped = json.dumps({"config": {"value": secret.text}})
        return "json-escaped", escaped, json.dumps(secret.sensitive)[1:-1]
    if kind == 2 and set(secret.text) <= _URL_SAFE:
        return "in-url", f"https://callback.example.test/hook?token={secret.text}&state=ok", secret.sensitive
    return ("multi-line" if "\n" in secret.text else "plain"), secret.text, secret.sensitive


class _Writer:
    """Appends Pi v3 entries in one chain."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.parent: str | None = None
        self.clock = 1767225600000
        self.ids: set[str] = set()
        header = {"type": "session", "version": 3, "id": "01972b5c-ee00-7abc-9def-0123456789ab",
                  "timestamp": self._iso(), "cwd": "/home/user/projects/demo"}  # fmt: skip
        self.lines.append(json.dumps(header, ensure_ascii=False, separators=(",", ":")))

    def _iso(self) -> str:
        seconds, millis = divmod(self.clock, 1000)
        stamp = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S")
        return f"{stamp}.{millis:03d}Z"

    def emit(self, entry_type: str, payload: JsonObject) -> str:
        entry_id = pick(self.rng, LOWER_HEX, 8)
        while entry_id in self.ids:
            entry_id = pick(self.rng, LOWER_HEX, 8)
        self.ids.add(entry_id)
        self.clock += self.rng.randint(500, 4000)
        entry = {"type": entry_type, "id": entry_id, "parentId": self.parent, "timestamp": self._iso(), **payload}
        self.lines.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
        self.parent = entry_id
        return entry_id

    def message(self, message: JsonObject) -> str:
        return self.emit("message", {"message": {**message, "timestamp": self.clock}})

    def assistant(self, content: list[JsonObject], stop: str) -> str:
        return self.message({"role": "assistant", "content": content, "api": "anthropic-messages",
                             "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": stop})  # fmt: skip

    def place(self, role: str, term: str, text: str, number: int) -> str:
        """Write ``text`` (with ``term``) in ``role``; the id of the entry holding it."""
        if role == "user":
            return self.message({"role": "user", "content": [{"type": "text", "text": f"{term}: why does this fail?\n{text}"}]})
        if role == "assistant":
            return self.assistant([{"type": "text", "text": f"{term}: the config you need is\n{text}"}], "stop")
        if role == "compaction-summary":
            kept = self.parent
            return self.emit("compaction", {"summary": f"## Goal\n{term} deploy.\n\n## Notes\n{text}",
                                            "firstKeptEntryId": kept, "tokensBefore": 50000 + number})  # fmt: skip
        if role == "custom-message":
            return self.emit("custom_message", {"customType": "note", "content": f"{term} note:\n{text}", "display": True})
        call_id = f"toolu_{pick(self.rng, ALNUM, 24)}"
        if role == "tool-call-arguments":
            held = self.assistant([{"type": "toolCall", "id": call_id, "name": "bash",
                                    "arguments": {"command": f"echo {term} && deploy --config '{text}'"}}], "toolUse")  # fmt: skip
            self.message({"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
                          "content": [{"type": "text", "text": "deployed"}], "isError": False})  # fmt: skip
            return held
        if role == "tool-result":
            self.assistant([{"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": ".env"}}], "toolUse")
            return self.message({"role": "toolResult", "toolCallId": call_id, "toolName": "read",
                                 "content": [{"type": "text", "text": f"# {term}\n{text}"}], "isError": False})  # fmt: skip
        return self.message({"role": "bashExecution", "command": f"cat config/{term}.env", "output": f"{term}\n{text}",
                             "exitCode": 0, "cancelled": False, "truncated": False})  # fmt: skip


def build_corpus(seed: int = SEED) -> tuple[bytes, JsonObject]:
    """The session bytes and the labels (a JSON-ready dict) for ``seed``."""
    rng = random.Random(seed)
    writer = _Writer(rng)
    writer.message({"role": "user", "content": [{"type": "text", "text": "Help me deploy the service."}]})
    secrets: list[JsonObject] = []
    number = 0
    for instance in range(INSTANCES):
        for family, make in FAMILIES.items():
            secret = make(rng)
            position, text, sensitive = _position(secret, instance + number)
            role = ROLES[number % len(ROLES)]
            term = f"kestrel-s{number:03d}"
            entry_id = writer.place(role, term, text, number)
            secrets.append({"id": f"s{number:03d}", "family": family, "role": role, "position": position,
                            "entryId": entry_id, "term": term, "sensitive": sensitive})  # fmt: skip
            number += 1
    near: list[JsonObject] = []
    for index, (kind, text) in enumerate(_near_misses(rng)):
        role = ROLES[index % 2]  # user or assistant text
        term = f"kestrel-n{index:03d}"
        entry_id = writer.place(role, term, text, index)
        near.append({"id": f"n{index:03d}", "kind": kind, "role": role, "entryId": entry_id, "term": term,
                     "whole": text})  # fmt: skip
    data = "".join(line + "\n" for line in writer.lines).encode("utf-8")
    labels = {"version": 1, "seed": seed, "session": SESSION_FILE, "families": sorted(FAMILIES),
              "secrets": secrets, "nearMisses": near}  # fmt: skip
    return data, labels


def labels_bytes(labels: JsonObject) -> bytes:
    return (json.dumps(labels, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def write_corpus(out: Path, seed: int = SEED) -> list[Path]:
    """Write the session and its labels into ``out``; the paths written."""
    data, labels = build_corpus(seed)
    ensure_private_dir(out)
    session, label_path = out / SESSION_FILE, out / LABELS_FILE
    for path, content in ((session, data), (label_path, labels_bytes(labels))):
        create_owner_only(path)  # 0600, as every file the project creates (decision D6)
        path.write_bytes(content)
    return [session, label_path]


def stale_files(out: Path, seed: int = SEED) -> list[str]:
    """The corpus files in ``out`` that differ from what ``seed`` generates."""
    data, labels = build_corpus(seed)
    wanted = {SESSION_FILE: data, LABELS_FILE: labels_bytes(labels)}
    return [name for name, body in wanted.items() if not (out / name).exists() or (out / name).read_bytes() != body]
