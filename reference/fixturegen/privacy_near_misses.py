"""The privacy corpus's near-misses: texts that look like secrets and are not (issues 11 and 29).

Why: "no harmless text hidden" is measured only on harmless texts a detector may mistake for
secrets.  Issue 29 found three the corpus lacked (a public key, a masked placeholder, a vendor's
documented example credential), and the well-kept detectors name the classes: their allowlists
keep documented example keys, masked and placeholder values, and their rules never fire on a
public key.  Each near-miss has a family (the class: public key, hash, UUID, masked value,
documented example, test fixture, high-entropy value, prose, other) and a kind (its format).
The corpus holds at least as many near-misses as secrets: the classes with a random shape are
drawn again, round after round, until it does.
"""

from __future__ import annotations

import base64
import hashlib
import random
import uuid
from collections.abc import Callable
from typing import Final

from reference.fixturegen.fake_values import B64, LOWER_HEX, URLSAFE
from reference.fixturegen.vocabulary import B62, pick

#: (family, kind, text).
NearMissText = tuple[str, str, str]
_BECH32: Final = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_CROCKFORD: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

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
#: Prose about the authorization schemes (issue 29): none carries a credential.
_AUTH_PROSE: Final = (
    "The server answers 401 with WWW-Authenticate: Negotiate, so the client retries with Kerberos.",
    "Use the Digest scheme only where Basic over plain HTTP is not allowed.",
    "The Authorization header takes a scheme name and then the credentials, as in Token or SSWS.",
    "AWS Signature Version 4 signs each request; the header starts with AWS4-HMAC-SHA256.",
    "NTLM falls back to Negotiate when the domain controller is reachable.",
    "Send the request without an Authorization header to see the challenge.",
)
#: Example credentials published in vendors' own documentation; no account holds them.
DOCUMENTED_EXAMPLES: Final = (
    ("aws-example-key-id", "AKIAIOSFODNN7EXAMPLE"),
    ("aws-example-key-id", "aws_access_key_id = AKIAI44QH8DHBEXAMPLE"),
    ("aws-example-secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("aws-example-secret", "AWS_SECRET_ACCESS_KEY=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"),
    ("jwt-io-example", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"),
    ("aws-docs-sigv4", "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"),
)
#: Masked and placeholder values: what a README, a log or a form shows instead of a secret.
MASKED: Final = (
    "sk-****", "OPENAI_API_KEY=sk-************************", "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxx",
    'api_key = "xxxxxxxxxxxxxxxxxxxxxxxx"', "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "ghp_************************************", "AKIAXXXXXXXXXXXXXXXX", "password: ********",
    "Authorization: Bearer <token>", "Authorization: Token ****", "Authorization: Bearer ${GITHUB_TOKEN}",
    "Authorization: Basic $CREDENTIALS", "Authorization: Bearer xxxxxxxxxxxxxxxx",
    "Authorization: Digest username=\"<user>\", response=\"<response>\"", "Authorization: SSWS ${OKTA_API_TOKEN}",
    "Authorization: Negotiate <base64-gss-token>", "token: ${{ secrets.GITHUB_TOKEN }}",
    "TWILIO_ACCOUNT_SID=ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "stripe key sk_live_••••••••••••4242",
    "sk_test_xxxxxxxxxxxxxxxxxxxxxxxx", "curl -u 'user:$PASSWORD' https://api.example.test",
    "DB_PASSWORD=<your-db-password>", "client_secret: '{{ .Values.clientSecret }}'",
)
#: Values of test setups and local defaults, documented as such by the tools that ship them.
TEST_FIXTURES: Final = (
    "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app_test",
    "amqp://guest:guest@localhost:5672/",
    "mysql://root:root@127.0.0.1:3306/test",
    "redis://:password@localhost:6379/0",
    "curl -i -u 'test:test' http://localhost:8080/health",
    "export PGPASSWORD=postgres",
)


def _ssh_public(rng: random.Random) -> str:
    kind = rng.choice((("ssh-ed25519", "AAAAC3NzaC1lZDI1NTE5AAAAI", 43), ("ssh-rsa", "AAAAB3NzaC1yc2EAAAADAQABAAABAQ", 340),
                       ("ecdsa-sha2-nistp256", "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB", 87)))
    return f"{kind[0]} {kind[1]}{pick(rng, B64, kind[2])} dev@laptop-{pick(rng, LOWER_HEX, 4)}"


def _pem_public(rng: random.Random) -> str:
    label = rng.choice(("PUBLIC KEY", "CERTIFICATE", "PGP PUBLIC KEY BLOCK", "RSA PUBLIC KEY"))
    body = "\n".join(pick(rng, B64, 64) for _ in range(4))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def _public_keys(rng: random.Random) -> list[tuple[str, str]]:
    return [
        ("ssh-public-key", _ssh_public(rng)),
        ("pem-public-block", _pem_public(rng)),
        ("age-public-key", "age1" + pick(rng, _BECH32, 58)),
        ("stripe-publishable-key", "pk_live_" + pick(rng, B62, 24)),
        ("wireguard-public-key", f"PublicKey = {pick(rng, B64, 43)}="),
        ("webpush-public-key", '{"publicKey": "B' + pick(rng, URLSAFE, 86) + '"}'),
        ("ssh-authorized-keys", "~/.ssh/authorized_keys: " + _ssh_public(rng)),
    ]


def _hashes(rng: random.Random) -> list[tuple[str, str]]:
    word = pick(rng, B62, 12).encode()
    return [
        ("git-sha", pick(rng, LOWER_HEX, 40)),
        ("short-sha", pick(rng, LOWER_HEX, 7)),
        ("sha256", hashlib.sha256(word).hexdigest()),
        ("md5", "md5sum: " + hashlib.md5(word).hexdigest()),
        ("sha1", "sha1:" + hashlib.sha1(word).hexdigest()),
        ("sha512", hashlib.sha512(word).hexdigest()),
        ("npm-integrity", "sha512-" + base64.b64encode(hashlib.sha512(word).digest()).decode()),
        ("sri-hash", 'integrity="sha384-' + base64.b64encode(hashlib.sha384(word).digest()).decode() + '"'),
        ("image-digest", "sha256:" + hashlib.sha256(word + b"!").hexdigest()),
        ("commit-url", f"https://github.com/example/project/commit/{pick(rng, LOWER_HEX, 40)}"),
    ]


def _ids(rng: random.Random) -> list[tuple[str, str]]:
    return [
        ("uuid", str(uuid.UUID(int=rng.getrandbits(128), version=4))),
        ("request-id", f"X-Request-Id: {uuid.UUID(int=rng.getrandbits(128), version=4)}"),
        ("ulid", pick(rng, "0123456789ABC", 1) + pick(rng, _CROCKFORD, 25)),
        ("object-id", f'ObjectId("{pick(rng, LOWER_HEX, 24)}")'),
    ]


def _high_entropy(rng: random.Random) -> list[tuple[str, str]]:
    return [
        ("data-uri", "data:image/png;base64,iVBORw0KGgo" + pick(rng, B64, 80) + "=="),
        ("csp-nonce", f"script-src 'nonce-{pick(rng, B64, 22)}=='"),
        ("ethereum-address", "0x" + pick(rng, LOWER_HEX + "ABCDEF", 40)),
        ("bitcoin-address", "bc1q" + pick(rng, _BECH32, 38)),
        ("ipfs-cid", "ipfs://bafybei" + pick(rng, "abcdefghijklmnopqrstuvwxyz234567", 45)),
        ("bundle-hash", f"dist/assets/index-{pick(rng, URLSAFE, 8)}.js"),
        ("container-id", "container " + pick(rng, LOWER_HEX, 64) + " exited"),
        ("base64-words", base64.b64encode(" ".join(rng.sample(_WORDS, 2)).encode()).decode()),
    ]


def _others() -> list[NearMissText]:
    out: list[NearMissText] = [("prose", "prose", text) for text in (*_PROSE, *_AUTH_PROSE)]
    out += [("documented-example", kind, text) for kind, text in DOCUMENTED_EXAMPLES]
    out += [("masked-value", "masked", text) for text in MASKED]
    out += [("test-fixture", "test-fixture", text) for text in TEST_FIXTURES]
    out += [("other", "timestamp", "2026-01-01T12:34:56.789Z"), ("other", "semver", "v2.14.3-rc.1+build.20260101"),
            ("other", "path", "/home/user/projects/demo/src/secrets/manager.ts"),
            ("other", "env-name", "export DATABASE_URL=${DATABASE_URL:?missing}"),
            ("other", "html-color", "#3f51b5 #ff9800 #e91e63"),
            ("masked-value", "placeholder", "password=<your-password-here> is only an example in the README")]
    return out


_DRAWN: Final[tuple[tuple[str, Callable[[random.Random], list[tuple[str, str]]]], ...]] = (
    ("public-key", _public_keys), ("hash", _hashes), ("uuid", _ids), ("high-entropy", _high_entropy),
)


def near_misses(rng: random.Random, at_least: int) -> list[NearMissText]:
    """The fixed near-misses, then rounds of the drawn classes until there are ``at_least``."""
    out = _others()
    while len(out) < at_least:
        for family, draw in _DRAWN:
            out += [(family, kind, text) for kind, text in draw(rng)]
    return out

