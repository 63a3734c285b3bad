"""What looks like a secret and is not: the project's own allowlist (decision D14, issue 29).

Why: a detector that redacts a public key, a masked placeholder or a vendor's documented example
credential hides text the reader needs and protects nothing.  The well-kept detectors know
these cases (gitleaks' and detect-secrets' allowlists keep AWS's documented ``…EXAMPLE`` keys and
placeholder or masked values, and no rule of theirs fires on a public key); this module is the
project's one statement of them, applied after each detection layer (the contract floor, the
house rules, the engine) to the value each found:

- **documented examples**: credentials published in vendors' documentation (AWS's key pairs,
  jwt.io's token, the AWS Signature Version 4 example), and any AWS-shaped key ending ``EXAMPLE``;
- **masked values**: an optional published prefix, then only mask characters (``*``, ``x``/``X``,
  ``•``, ``#``, ``...``), with at most 4 digits after (``sk_live_••••4242``);
- **placeholders**: ``<name>``, ``${VAR}``, ``${{ expr }}``, ``$VAR``, ``$(command)``,
  ``{{ template }}``, ``[NAME]``, and the words test setups use as passwords (``changeme``,
  ``postgres``, ``guest``, ``password``, …);
- **public keys**: a span inside an SSH public key line (``ssh-ed25519 AAAA…``), a PEM or PGP
  *public* block, or an ``age1…`` recipient.
"""

from __future__ import annotations

import re
from typing import Final

#: Credentials that vendors publish in their documentation; no account holds them.
DOCUMENTED_EXAMPLES: Final = frozenset({
    "AKIAIOSFODNN7EXAMPLE",
    "AKIAI44QH8DHBEXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",  # AWS SigV4 example signature
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",  # jwt.io
})
_AWS_EXAMPLE: Final = re.compile(r"A[KS]IA[0-9A-Z]{9}EXAMPLE|[A-Za-z0-9/+]{30}EXAMPLEKEY")
_MASKED: Final = re.compile(r"(?:[A-Za-z0-9]+[_.-])*[A-Za-z0-9]{0,4}(?:\*{3,}|[xX]{4,}|•{3,}|#{4,}|\.{3,}|…)[0-9]{0,4}")
_PLACEHOLDER: Final = re.compile(
    r"<[^<>\r\n]{1,80}>|\$\{\{?[^{}\r\n]{1,80}\}\}?|\$[A-Za-z_][A-Za-z0-9_]*|\$\([^()\r\n]{1,80}\)"
    r"|\{\{[^{}\r\n]{1,80}\}\}|\[[A-Za-z_ -]{3,40}\]"
    r"|(?i:(?:your[_-]?)?(?:changeme|changeit|password|passwd|pass|secret|test|testing|example|dummy"
    r"|guest|root|admin|postgres|token|placeholder|redacted|none|null)(?:[_-]?here)?)"
)
_QUOTES: Final = "\"'`\\"
#: Spans that are public keys: an SSH public key line, a PEM/PGP public block, an age recipient.
_PUBLIC_KEY: Final = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp(?:256|384|521)|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)"
    r"[ \t]+AAAA[A-Za-z0-9+/]+={0,3}"
    r"|-----BEGIN (?:RSA |EC |PGP )?PUBLIC KEY(?: BLOCK)?-----(?:\\n|[\s\S])*?-----END (?:RSA |EC |PGP )?PUBLIC KEY(?: BLOCK)?-----"
    r"|-----BEGIN CERTIFICATE-----(?:\\n|[\s\S])*?-----END CERTIFICATE-----"
    r"|\bage1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}\b"
)
_PUBLIC_KEY_LITERALS: Final = ("AAAA", "PUBLIC KEY", "CERTIFICATE", "age1")


_EXAMPLE_WORD: Final = re.compile(
    r"(?<![A-Za-z0-9])(?:" + "|".join(re.escape(example) for example in sorted(DOCUMENTED_EXAMPLES)) + r")(?![A-Za-z0-9])")


def holds_documented_example(value: str) -> bool:
    """Whether a value holds a documented example as a whole token (``Credential=AKIA…EXAMPLE/…``):
    a header signed with an example key is an example too."""
    return _EXAMPLE_WORD.search(value) is not None


def is_documented_example(value: str) -> bool:
    return value in DOCUMENTED_EXAMPLES or _AWS_EXAMPLE.fullmatch(value) is not None


def is_masked(value: str) -> bool:
    return _MASKED.fullmatch(value) is not None


def is_placeholder(value: str) -> bool:
    return _PLACEHOLDER.fullmatch(value) is not None


def is_example_or_masked(value: str) -> bool:
    """What the contract floor keeps whole (D14): a documented example or a masked value, not the
    placeholders (the floor's own D14 bound keeps only ``<name>``)."""
    value = value.strip(_QUOTES)
    return is_documented_example(value) or is_masked(value)


def is_harmless(value: str) -> bool:
    """Whether a found value (quotes around it ignored) is a documented example, masked or a placeholder."""
    value = value.strip(_QUOTES)
    return is_documented_example(value) or is_masked(value) or is_placeholder(value)


def public_key_spans(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that are public keys (empty when it holds none of their literals)."""
    if not any(literal in text for literal in _PUBLIC_KEY_LITERALS):
        return []
    return [match.span() for match in _PUBLIC_KEY.finditer(text)]


def in_public_key(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps a public key span."""
    return any(start < high and end > low for low, high in spans)
