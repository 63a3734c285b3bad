"""Secret detection: the one owner of what counts as a secret (decisions D6, D13).

Three layers, each over the output of the one before:

1. the contract's four families (``redaction.redact_secrets``, §2.11), unchanged: whatever
   upstream redacts stays redacted with the same labels;
2. the house rules below: published token formats (a fixed prefix, or a key name in an
   assignment, a URL's userinfo, a PEM/PGP private block) matched without the word boundaries
   that let a token inside a URL query or a JSON string slip past rule sets written for source
   files; every found span becomes ``[DS4 REDACTED SECRET]``;
3. ``betterleaks`` (gitleaks-style rules, a compiled Go engine, MIT) for the long tail, on texts
   up to ``ENGINE_LIMIT`` characters (its cost grows faster than the text; docs/privacy.md).

``redact(text) -> (text, count)`` is what every privacy check calls; ``count`` > 0 raises the
text to ``sensitive``.  docs/privacy.md has the measurement that chose these layers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

import ahocorasick_rs

from reference.privacy.harmless import holds_documented_example, in_public_key, is_harmless, public_key_spans
from reference.privacy.redaction import LABEL_HEAD, SECRET_LABEL, redact_secrets

#: Texts longer than this are not given to the engine (the house rules still run on them).
ENGINE_LIMIT: Final = 262_144

#: The literal starts of the prefixed tokens: a text without any of them skips that rule.
_PREFIXES: Final = (
    "github_pat_", "gho_", "ghp_", "ghu_", "ghs_", "ghr_", "glpat-", "xox", "xapp-", "k_live_", "k_test_", "AIza",
    "npm_", "SG.", "hvs.", "hvb.", "HRKU-", "shp", "dapi", "sk-", "key-", "pypi-", "dckr_pat_", "hf_", "_v1_",
    "lin_api_", "AGE-SECRET-KEY-1", "SK", "AKIA", "ASIA", "eyJ",
    "LTAI", "AKCp", "CFPAT-", "fo1_", "NRAK-", "pscale_tkn_", "sq0csp-", "sq0atp-", "tfp_", "AQVN", "sk.eyJ",
)  # fmt: skip
_DISCORD_SHAPE: Final = re.compile(r"\.[A-Za-z0-9_-]{6}\.")
_Q: Final = r"""(?:\\?["'])?"""  # an optional quote, JSON-escaped or not
_VALUE_END: Final = r"""(?=$|[\s"'`,;&)}\]<>\\|]|\\[nrt"])"""
#: The authorization headers are the authorization rule's, not a named secret's (the scheme is no value).
#: A name that ends so (``nAuthorization`` too: a JSON ``\n`` before it) is a header name.
_NOT_AUTH_HEADER: Final = r"(?![A-Za-z0-9_.-]*(?i:authorization|authenticate)(?![A-Za-z0-9_]))"
#: An Authorization header's credentials, whatever the scheme (issue 29): a token68 or a list of
#: auth-params (``name=value`` or ``name="value"``, quotes JSON-escaped up to twice), and the
#: labels an earlier layer wrote into it.
_AUTH_VALUE: Final = (r"""(?:\[DS4 REDACTED [A-Z ]+\]|[A-Za-z0-9._~+/:%@!*#$&;()-]+"""
                      r"""|=+(?:\\{0,3}"[^"\\\r\n]*\\{0,3}")?|[ \t]*,[ \t]*|[ \t]+(?=[A-Za-z][A-Za-z0-9_-]*=))+""")

#: (name, literals of which a match holds one, pattern, group of the secret).
RULES: Final[tuple[tuple[str, tuple[str, ...], re.Pattern[str], int], ...]] = (
    ("private-block", ("PRIVATE KEY",),
     re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?[A-Z ]*-----(?:\\n|[\s\S])*?-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----"), 0),
    ("prefixed-token", _PREFIXES,
     re.compile(
         r"(?<![A-Za-z0-9])(?:github_pat_[A-Za-z0-9_]{40,}|gh[pousr]_[A-Za-z0-9]{30,}|glpat-[A-Za-z0-9_-]{20,}"
         r"|xox[abposr]-[A-Za-z0-9-]{20,}|xapp-[A-Za-z0-9-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"
         r"|AIza[A-Za-z0-9_-]{35}|npm_[A-Za-z0-9]{36}|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"
         r"|hv[sb]\.[A-Za-z0-9_-]{24,}|HRKU-[A-Za-z0-9_-]{20,}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
         r"|dapi[a-f0-9]{32}(?:-\d)?|sk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}|key-[a-f0-9]{32}"
         r"|pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}|dckr_pat_[A-Za-z0-9_-]{20,}|hf_[A-Za-z]{30,}"
         r"|do[pro]_v1_[a-f0-9]{64}|lin_api_[A-Za-z0-9]{40}|AGE-SECRET-KEY-1[0-9A-Z]{58}"
         r"|SK[a-f0-9]{32}|A[KS]IA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
         r"|LTAI[A-Za-z0-9]{20}|AKCp[A-Za-z0-9]{60,}|CFPAT-[A-Za-z0-9_-]{43}|fo1_[A-Za-z0-9_-]{43}|NRAK-[A-Z0-9]{27}"
         r"|pscale_tkn_[A-Za-z0-9_-]{32,64}|sq0csp-[A-Za-z0-9_-]{43}|sq0atp-[A-Za-z0-9_-]{22}|tfp_[A-Za-z0-9_.=-]{59}"
         r"|AQVN[A-Za-z0-9_-]{35,38}|sk\.eyJ1Ijoi[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{20,})"
     ), 0),
    ("webhook-url", ("hooks.slack.com", "/api/webhooks/"),
     re.compile(r"(?:hooks\.slack\.com/(?:services|workflows)/|discord(?:app)?\.com/api/webhooks/)([A-Za-z0-9/_-]{20,})"), 1),
    ("chat-bot-token", (":AA",), re.compile(r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{30,}"), 0),
    ("discord-bot-token", (".",), re.compile(r"(?<![A-Za-z0-9])[MNO][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"), 0),
    ("url-userinfo", ("://",),
     re.compile(r"(?<![a-z])[a-z][a-z0-9+.-]*://[^\s:/?#@\"'\\]{1,64}:([^\s@/?#\"'\\]{3,128})@[A-Za-z0-9.-]"), 1),
    ("azure-key", ("AccountKey=", "SharedAccessKey=", "sig="),
     re.compile(r"(?:AccountKey|SharedAccessKey|[?&]sig)=([A-Za-z0-9+/%]{20,}={0,2})"), 1),
    ("basic-auth", ("Basic",), re.compile(r"\bBasic[ \t]+([A-Za-z0-9+/]{12,}={0,2})"), 1),
    ("cli-password", ("-p", "--password", "-u "),
     re.compile(r"(?:(?<!\S)-p(?!assword)([^\s'\"-][^\s'\"]{5,})|--password[= ]([^\s'\"]{4,})|(?<!\S)-u [A-Za-z0-9_.-]+:([^\s@'\"]{4,}))"), 0),
    ("named-secret", ("pass", "pwd", "secret", "token", "key", "auth", "credential"),
     re.compile(
         r"(?<![A-Za-z0-9_.-])" + _NOT_AUTH_HEADER
         + r"(?i:[A-Za-z0-9_.-]*(?:passw(?:or)?d|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth|credential)s?[A-Za-z0-9_]*)"
         + _Q + r"[ \t]*[:=][ \t]*" + _Q + r"([A-Za-z0-9+/_.~!@#$%^*-]{8,}=*)" + _VALUE_END
     ), 1),
    ("quoted-named-secret", ("secret", "pass", "token", "key"),
     re.compile(r"(?<![A-Za-z0-9_.-])(?i:[A-Za-z0-9_.-]*(?:secret|passw(?:or)?d|token|api[_-]?key)[A-Za-z0-9_]*)[ \t]*[:=][ \t]*(['`])([^'`\s\\]{8,})\1"), 2),
    ("authorization", ("uthorization",),
     re.compile(r"(?i:(?:proxy-)?authorization)(?:\\{0,3}[\"'])?[ \t]*[:=][ \t]*(?:\\{0,3}[\"'])?"
                r"(?!(?i:bearer|basic)[ \t])([A-Za-z][A-Za-z0-9._-]*[ \t]+)?(" + _AUTH_VALUE + ")"), 2),
)


_AUTH_PARAM_VALUE: Final = re.compile(r"""=\\{0,3}"?([^",\s\\]*)""")


def _kept_whole(name: str, match: re.Match[str], index: int) -> bool:
    """Whether a house rule's match is not a secret (harmless.py, issue 29): its value is a label
    already, harmless (a documented example, masked, a placeholder), inside a public key, or, for
    an authorization header, too short or plain to be a credential, or made only of harmless
    auth-params; a value holding a documented example (a signature made with AWS's example key) is
    one too."""
    value = match.group(index)
    start, end = match.start(index), match.end(index)
    if match.string.startswith(LABEL_HEAD, start) or is_harmless(value):
        return True
    if holds_documented_example(value):
        return True
    if in_public_key(public_key_spans(match.string), start, end):
        return True
    if name != "authorization":
        return False
    if len(value) < 8 or not (len(value) >= 20 or any(c.isdigit() for c in value)):
        return True
    params = _AUTH_PARAM_VALUE.findall(value)
    return bool(params) and all(is_harmless(param) for param in params)


def _masked(name: str, group: int) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        index = group
        if name == "cli-password":  # the CLI rule has three alternatives
            index = next(i for i in (1, 2, 3) if match.group(i) is not None)
        if index and match.string.startswith(LABEL_HEAD, match.start(index)):
            return match.group(0)  # the value is a label already: a second pass is a no-op (D14)
        if _kept_whole(name, match, index):
            return match.group(0)
        if index == 0:
            return SECRET_LABEL
        whole, start, end = match.group(0), match.start(index) - match.start(), match.end(index) - match.start()
        return whole[:start] + SECRET_LABEL + whole[end:]

    return replace


_REPLACERS: Final = tuple((name, words, pattern, _masked(name, group)) for name, words, pattern, group in RULES)
_LABEL_RUN: Final = re.compile(r"\[DS4 REDACTED [A-Z ]+\]")


#: Texts longer than this are scanned line by line, each rule only on the lines holding its literals.
_BY_LINE: Final = 8192
#: The rules whose literals are matched in the case-folded text, and the one whose probe is a pattern.
_FOLDED_RULES: Final = frozenset({"named-secret", "quoted-named-secret", "authorization"})
_SHAPE_RULE: Final = "discord-bot-token"


def _literal_matcher(folded: bool) -> tuple[Any, tuple[int, ...]]:
    """One Aho-Corasick automaton over the literals of the rules (the folded rule's, or every
    other rule's but the shape rule) and the rule of each literal."""
    pairs = [(index, word) for index, (name, words, _p, _g) in enumerate(RULES) if name != _SHAPE_RULE
             and (name in _FOLDED_RULES) == folded for word in words]  # fmt: skip
    automaton = ahocorasick_rs.BytesAhoCorasick([word.encode() for _i, word in pairs])
    return automaton, tuple(index for index, _w in pairs)


_MATCHERS: Final = tuple(_literal_matcher(folded) for folded in (False, True))


def _literal_lines(text: str) -> dict[int, list[int]]:
    """For every rule with literals (all but the shape rule) one of which the text holds, the
    numbers of the lines (``text.split("\n")``) holding one, in one pass over the text and one over
    its case fold.  No literal holds a newline, and case folding neither adds nor removes one, so
    a match's line is the count of newlines before it."""
    found: dict[int, set[int]] = {}
    for (automaton, rules), data in zip(_MATCHERS, (text, text.casefold()), strict=True):
        raw = data.encode("utf-8", "surrogatepass")  # a lone surrogate holds no ASCII byte
        starts = sorted((start, rules[pattern]) for pattern, start, _end in automaton.find_matches_as_indexes(raw, overlapping=True))
        line, at = 0, 0
        for start, rule in starts:
            line, at = line + raw.count(b"\n", at, start), start
            found.setdefault(rule, set()).add(line)
    return {rule: sorted(lines) for rule, lines in found.items()}


def _sub_counted(pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str], text: str) -> tuple[str, int]:
    """``pattern.subn`` that does not count a match kept whole as harmless (one that holds a label
    counts, as it always did)."""
    found = 0

    def counted(match: re.Match[str]) -> str:
        nonlocal found
        out = replace(match)
        found += out != match.group(0) or LABEL_HEAD in out
        return out

    return pattern.sub(counted, text), found


def house_redact(text: str) -> tuple[str, int]:
    """The house rules alone: the text with every found span replaced, and the count.

    Only the private-block rule spans lines; on a long text the others run on the lines that hold
    one of their literals (a 4 MiB build log is not scanned position by position ten times).  The
    literals of every rule are found in one pass (``_literal_lines``), again after a rule changed
    the text; the shape rule is probed by its pattern."""
    count = 0
    present = _literal_lines(text)
    for index, (name, _words, pattern, replace) in enumerate(_REPLACERS):
        at: list[int] | None = None  # the lines to scan; None: every line the shape probe passes
        if name == _SHAPE_RULE:
            if _DISCORD_SHAPE.search(text) is None:
                continue
        elif index in present:
            at = present[index]
        else:
            continue
        if len(text) <= _BY_LINE or name == "private-block":
            text, found = _sub_counted(pattern, replace, text)
        else:
            lines, found = text.split("\n"), 0
            for number in range(len(lines)) if at is None else at:
                line = lines[number]
                if at is not None or _DISCORD_SHAPE.search(line) is not None:
                    lines[number], hits = _sub_counted(pattern, replace, line)
                    found += hits
            if found:
                text = "\n".join(lines)
        count += found
        if found:
            present = _literal_lines(text)
    return text, count


def _engine_values(text: str) -> list[str] | None:
    """The engine's found values, longest first; None when the engine failed."""
    safe = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate cannot cross to Go
    try:
        import betterleaks  # a platform without its wheel fails closed too, never with a traceback

        findings = betterleaks.scan_string(safe)
    except Exception:  # the engine's failure must not become a traceback
        return None
    values = {f.match.value for f in findings if len(f.match.value) >= 8 and not _LABEL_RUN.fullmatch(f.match.value)
              and not _engine_harmless(safe, f.match.value, str(f.secret or ""))}
    return sorted(values, key=len, reverse=True)


def _engine_harmless(text: str, value: str, secret: str) -> bool:
    """A finding of the engine that is not a secret (harmless.py, issue 29): its secret is harmless
    or a documented example's, or its match lies in a public key."""
    if is_harmless(secret) or is_harmless(value) or holds_documented_example(value):
        return True
    spans = public_key_spans(text)
    at = text.find(value)
    return bool(spans) and at >= 0 and in_public_key(spans, at, at + len(value))


def engine_redact(text: str) -> tuple[str, int]:
    """The engine alone (``betterleaks``): every found value replaced, and the count."""
    if len(text) > ENGINE_LIMIT:
        return text, 0
    values = _engine_values(text)
    if values is None:  # fail closed: the text counts as holding a secret
        return text, 1
    count = 0
    for value in values:
        if value in text and SECRET_LABEL not in value:
            count += text.count(value)
            text = text.replace(value, SECRET_LABEL)
    return text, count


def extended_redact(text: str) -> tuple[str, int]:
    """The layers beyond the contract floor: the house rules, then the engine."""
    text, house = house_redact(text)
    text, engine = engine_redact(text)
    return text, house + engine


def redact(text: str) -> tuple[str, int]:
    """Every layer in order: the contract floor, the house rules, the engine."""
    text, floor = redact_secrets(text)
    text, extended = extended_redact(text)
    return text, floor + extended


def redact_strings(value: Any) -> tuple[Any, int]:
    """``value`` with every string (keys too) redacted by the chosen detector; the number of
    findings.  Any other value is kept as it is (the handoff's entries, ``session inspect --redact``)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        items = [redact_strings(item) for item in value]
        return [clean for clean, _count in items], sum(count for _clean, count in items)
    if isinstance(value, dict):
        pairs = [(redact(key), redact_strings(item)) for key, item in value.items()]
        return ({key: clean for (key, _k), (clean, _c) in pairs},
                sum(key_count + count for (_key, key_count), (_clean, count) in pairs))
    return value, 0
