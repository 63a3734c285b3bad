"""The labelled privacy corpus: one Pi session of fake secrets and near-misses, and its labels.

Why: secret detection is measured, and the ``PRIVACY-1xx`` scenarios check that nothing leaks,
on a corpus anyone can regenerate from a seed (``recall-rebase fixtures privacy-corpus``).  Each
secret and each near-miss sits alone in one entry with a unique search term, in a role (user,
assistant, tool-call arguments, tool result, bash output, custom message, compaction summary)
and a position (plain, JSON-escaped, inside a URL; PEM blocks are multi-line).  The labels say
for each secret its family, entry, term and sensitive part, and for each near-miss the text that
must stay whole.  Each family builds one fake value from the seeded PRNG, shaped so detectors fire,
and says which part of it is sensitive; where a family's alphabet allows, the random part spells
``FAKE`` so no reader takes it for a real key.  Every value is random: none is a real credential.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path
from typing import Final

from reference.fixturegen.fake_values import (
    B64,
    LOWER_HEX,
    URLSAFE,
    FakeSecret,
    Maker,
    fake,
    in_context,
    plain,
)
from reference.fixturegen.privacy_families import AUTHORIZATION_FAMILIES, DETECTOR_FAMILIES
from reference.fixturegen.privacy_near_misses import near_misses
from reference.fixturegen.vocabulary import B62, UPPER_ALNUM, pick
from reference.primitives.jsonbytes import JsonObject
from reference.primitives.jsvalues import to_iso_string
from reference.primitives.platform_ops.owner_only import create_owner_only, ensure_private_dir


def _url(scheme: str, port: int, path: str) -> Maker:
    def make(rng: random.Random) -> FakeSecret:
        password = "FAKE-" + pick(rng, B62, 14)
        user = rng.choice(("app", "admin", "svc_api", "deploy"))
        return FakeSecret(f"url-{scheme.replace('+', '-')}", f"{scheme}://{user}:{password}@db-{pick(rng, LOWER_HEX, 4)}.internal.test:{port}{path}", password)

    return make


def _pem(family: str, label: str, lines: int) -> Maker:
    def make(rng: random.Random) -> FakeSecret:
        body = "\n".join(fake(rng, B64, 64) for _ in range(lines)) + "\n" + pick(rng, B64, 20) + "=="
        header = ""
        if "ENCRYPTED" in label and "RSA" in label:
            header = "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC," + pick(rng, "0123456789ABCDEF", 32) + "\n\n"
        text = f"-----BEGIN {label}-----\n{header}{body}\n-----END {label}-----"
        return FakeSecret(family, text, body)

    return make


def _jwt(rng: random.Random) -> FakeSecret:
    def seg(data: str) -> str:
        return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")

    header = seg('{"alg":"HS256","typ":"JWT"}')
    payload = seg('{"sub":"fake-user-' + pick(rng, LOWER_HEX, 8) + '","name":"Fake Tester","iat":1767225600}')
    signature = pick(rng, URLSAFE, 43)
    # The header and most of the payload are the same base64 in every HS256 token (jwt.io's
    # documented example among them, a near-miss): the signature is what no other text holds.
    return FakeSecret("jwt", f"{header}.{payload}.{signature}", signature)


def _gcp_service_account(rng: random.Random) -> FakeSecret:
    body = "\\n".join(fake(rng, B64, 64) for _ in range(6))
    key_id = pick(rng, LOWER_HEX, 40)
    text = (
        '{"type": "service_account", "project_id": "fake-project-' + pick(rng, LOWER_HEX, 6) + '", '
        f'"private_key_id": "{key_id}", '
        f'"private_key": "-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n", '
        '"client_email": "fake-sa@fake-project.iam.gserviceaccount.com", "client_id": "1' + pick(rng, string.digits, 20) + '"}'
    )
    return FakeSecret("gcp-service-account", text, body)


def _azure_connection(rng: random.Random) -> FakeSecret:
    key = fake(rng, B64, 86) + "=="
    text = f"DefaultEndpointsProtocol=https;AccountName=fakestore{pick(rng, LOWER_HEX, 4)};AccountKey={key};EndpointSuffix=core.windows.net"
    return FakeSecret("azure-storage-connection-string", text, key)


def _azure_sas(rng: random.Random) -> FakeSecret:
    sig = fake(rng, B62, 43) + "%3D"
    text = f"https://fakestore.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=2027-01-01T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig={sig}"
    return FakeSecret("azure-sas-token", text, sig)


def _basic_auth(rng: random.Random) -> FakeSecret:
    cred = base64.b64encode(f"deploy:FAKE-{pick(rng, B62, 16)}".encode()).decode()
    return FakeSecret("http-basic-auth", f"Authorization: Basic {cred}", cred)


def _twilio_auth(rng: random.Random) -> FakeSecret:
    token = pick(rng, LOWER_HEX, 32)
    return FakeSecret("twilio-auth-token", f"TWILIO_ACCOUNT_SID=AC{pick(rng, LOWER_HEX, 32)}\nTWILIO_AUTH_TOKEN={token}", token)


def _password_cli(rng: random.Random) -> FakeSecret:
    password = "FAKE" + pick(rng, B62, 12)
    form = rng.choice(("mysql -u root -p{v} app", "psql --password={v} -h db.internal.test", "curl -u deploy:{v} https://ci.internal.test/api"))
    return FakeSecret("password-cli", form.format(v=password), password)


#: Family name -> builder.  The order is the corpus order; adding a family appends here.
FAMILIES: Final[dict[str, Maker]] = {
    "aws-access-key-id": plain("aws-access-key-id", lambda r: "AKIA" + "FAKE" + pick(r, UPPER_ALNUM, 12)),
    "aws-secret-access-key": in_context("aws-secret-access-key", "aws_secret_access_key = {v}", lambda r: fake(r, B64, 40)),
    "github-fine-grained-pat": plain("github-fine-grained-pat", lambda r: "github_pat_11" + fake(r, UPPER_ALNUM, 20) + "_" + pick(r, B62, 59), public="github_pat_11"),
    "github-classic-pat": plain("github-classic-pat", lambda r: "ghp_" + fake(r, B62, 36)),
    "github-oauth": plain("github-oauth", lambda r: "gho_" + fake(r, B62, 36)),
    "github-app-token": plain("github-app-token", lambda r: "ghs_" + fake(r, B62, 36)),
    "gitlab-pat": plain("gitlab-pat", lambda r: "glpat-" + fake(r, URLSAFE, 20)),
    "slack-bot-token": plain("slack-bot-token", lambda r: f"xoxb-{pick(r, string.digits, 12)}-{pick(r, string.digits, 13)}-{fake(r, B62, 24)}"),
    "slack-user-token": plain("slack-user-token", lambda r: f"xoxp-{pick(r, string.digits, 12)}-{pick(r, string.digits, 12)}-{pick(r, string.digits, 13)}-{pick(r, LOWER_HEX, 32)}"),
    "slack-webhook": in_context("slack-webhook", "https://hooks.slack.com/services/{v}", lambda r: f"T{pick(r, UPPER_ALNUM, 8)}/B{pick(r, UPPER_ALNUM, 10)}/{fake(r, B62, 24)}"),
    "stripe-live-secret": plain("stripe-live-secret", lambda r: "sk_live_" + fake(r, B62, 24), public="sk_live_"),
    "stripe-test-secret": plain("stripe-test-secret", lambda r: "sk_test_" + fake(r, B62, 24), public="sk_test_"),
    "stripe-restricted": plain("stripe-restricted", lambda r: "rk_live_" + fake(r, B62, 24), public="rk_live_"),
    "google-api-key": plain("google-api-key", lambda r: "AIza" + "SyFAKE" + pick(r, URLSAFE, 29)),
    "jwt": _jwt,
    "url-postgres": _url("postgres", 5432, "/app"),
    "url-mysql": _url("mysql", 3306, "/shop"),
    "url-mongodb-srv": _url("mongodb+srv", 27017, "/events?retryWrites=true"),
    "url-redis": _url("redis", 6379, "/0"),
    "url-amqp": _url("amqp", 5672, "/vhost"),
    "url-https": _url("https", 8443, "/artifacts/release.tar.gz"),
    "password-env": in_context("password-env", "DB_PASSWORD={v}", lambda r: "FAKE" + pick(r, B62, 14)),
    "password-json": in_context("password-json", '{{"username": "svc", "password": "{v}"}}', lambda r: "FAKE" + pick(r, B62, 14)),
    "password-cli": _password_cli,
    "azure-storage-connection-string": _azure_connection,
    "azure-sas-token": _azure_sas,
    "npm-token": plain("npm-token", lambda r: "npm_" + fake(r, B62, 36)),
    "pem-rsa": _pem("pem-rsa", "RSA PRIVATE KEY", 6),
    "pem-ec": _pem("pem-ec", "EC PRIVATE KEY", 3),
    "pem-openssh": _pem("pem-openssh", "OPENSSH PRIVATE KEY", 5),
    "pem-encrypted": _pem("pem-encrypted", "ENCRYPTED PRIVATE KEY", 6),
    "pem-rsa-encrypted": _pem("pem-rsa-encrypted", "RSA PRIVATE KEY ENCRYPTED", 6),
    "pgp-private-key": _pem("pgp-private-key", "PGP PRIVATE KEY BLOCK", 8),
    "sendgrid-api-key": plain("sendgrid-api-key", lambda r: "SG." + fake(r, URLSAFE, 22) + "." + pick(r, URLSAFE, 43)),
    "twilio-api-key": plain("twilio-api-key", lambda r: "SK" + pick(r, LOWER_HEX, 32)),
    "twilio-auth-token": _twilio_auth,
    "discord-bot-token": plain("discord-bot-token", lambda r: "MT" + pick(r, B62, 24) + "." + pick(r, URLSAFE, 6) + "." + pick(r, URLSAFE, 38)),
    "discord-webhook": in_context("discord-webhook", "https://discord.com/api/webhooks/{v}", lambda r: f"1{pick(r, string.digits, 18)}/{fake(r, URLSAFE, 68)}"),
    "telegram-bot-token": in_context("telegram-bot-token", "TELEGRAM_BOT_TOKEN={v}", lambda r: f"{pick(r, string.digits, 10)}:AA{pick(r, URLSAFE, 33)}"),
    "vault-service-token": plain("vault-service-token", lambda r: "hvs." + fake(r, URLSAFE, 90)),
    "vault-batch-token": plain("vault-batch-token", lambda r: "hvb." + fake(r, URLSAFE, 138)),
    "heroku-api-key": plain("heroku-api-key", lambda r: "HRKU-AA" + fake(r, URLSAFE, 58)),
    "shopify-access-token": plain("shopify-access-token", lambda r: "shpat_" + pick(r, LOWER_HEX, 32)),
    "shopify-shared-secret": plain("shopify-shared-secret", lambda r: "shpss_" + pick(r, LOWER_HEX, 32)),
    "databricks-token": plain("databricks-token", lambda r: "dapi" + pick(r, LOWER_HEX, 32)),
    "openai-project-key": plain("openai-project-key", lambda r: "sk-proj-" + fake(r, URLSAFE, 74) + "T3BlbkFJ" + pick(r, URLSAFE, 74), public="sk-proj-"),
    "anthropic-api-key": plain("anthropic-api-key", lambda r: "sk-ant-api03-" + fake(r, URLSAFE, 93) + "AA", public="sk-ant-api03-"),
    "gcp-service-account": _gcp_service_account,
    "mailgun-api-key": plain("mailgun-api-key", lambda r: "key-" + pick(r, LOWER_HEX, 32)),
    "pypi-token": plain("pypi-token", lambda r: "pypi-AgEIcHlwaS5vcmc" + fake(r, URLSAFE, 70), public="pypi-AgEIcHlwaS5vcmc"),
    "dockerhub-pat": plain("dockerhub-pat", lambda r: "dckr_pat_" + fake(r, URLSAFE, 27), public="dckr_pat_"),
    "huggingface-token": plain("huggingface-token", lambda r: "hf_" + fake(r, string.ascii_letters, 34)),
    "digitalocean-token": plain("digitalocean-token", lambda r: "dop_v1_" + pick(r, LOWER_HEX, 64)),
    "linear-api-key": plain("linear-api-key", lambda r: "lin_api_" + fake(r, B62, 40), public="lin_api_"),
    "age-secret-key": plain("age-secret-key", lambda r: "AGE-SECRET-KEY-1" + pick(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), public="AGE-SECRET-KEY-1"),
    "http-basic-auth": _basic_auth,
    "bearer-header": in_context("bearer-header", "Authorization: Bearer {v}", lambda r: fake(r, URLSAFE, 40)),
    "datadog-api-key": in_context("datadog-api-key", "DD_API_KEY={v}", lambda r: pick(r, LOWER_HEX, 32)),
    **AUTHORIZATION_FAMILIES,
    **DETECTOR_FAMILIES,
}


SEED: Final = 1101
#: A compaction after this many near-misses: 378 of them in one context do not fit a rebase's
#: default checkpoint budget (issue 29), as no real session's would.
NEAR_MISS_STRETCH: Final = 40
INSTANCES: Final = 3
ROLES: Final = ("user", "assistant", "tool-call-arguments", "tool-result", "bash-output", "custom-message", "compaction-summary")
SESSION_FILE: Final = "session.jsonl"
LABELS_FILE: Final = "labels.json"
_URL_SAFE: Final = set(B62 + "-_.~")

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
                  "timestamp": to_iso_string(self.clock), "cwd": "/home/user/projects/demo"}  # fmt: skip
        self.lines.append(json.dumps(header, ensure_ascii=False, separators=(",", ":")))

    def emit(self, entry_type: str, payload: JsonObject) -> str:
        entry_id = pick(self.rng, LOWER_HEX, 8)
        while entry_id in self.ids:
            entry_id = pick(self.rng, LOWER_HEX, 8)
        self.ids.add(entry_id)
        self.clock += self.rng.randint(500, 4000)
        entry = {"type": entry_type, "id": entry_id, "parentId": self.parent, "timestamp": to_iso_string(self.clock), **payload}
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
        call_id = f"toolu_{pick(self.rng, B62, 24)}"
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
    for index, (near_family, kind, text) in enumerate(near_misses(rng, len(secrets))):
        role = ROLES[index % 2]  # user or assistant text
        term = f"kestrel-n{index:03d}"
        entry_id = writer.place(role, term, text, index)
        near.append({"id": f"n{index:03d}", "family": near_family, "kind": kind, "role": role, "entryId": entry_id, "term": term,
                     "whole": text})  # fmt: skip
        if index % NEAR_MISS_STRETCH == NEAR_MISS_STRETCH - 1:  # a session compacts: each context fits a rebase
            writer.emit("compaction", {"summary": "## Goal\nReview the deploy notes.\n", "firstKeptEntryId": entry_id,
                                       "tokensBefore": 60000 + index})  # fmt: skip
    data = "".join(line + "\n" for line in writer.lines).encode("utf-8")
    labels = {"version": 1, "seed": seed, "session": SESSION_FILE, "families": sorted(FAMILIES),
              "nearMissFamilies": sorted({str(item["family"]) for item in near}),
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
