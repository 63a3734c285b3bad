"""reference.privacy.detection: the floor kept, the layers beyond it, long texts, failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference.fixturegen.privacy_corpus import stale_files
from reference.primitives.jsonbytes import js_stringify
from reference.privacy import corpus_check, detection
from reference.privacy.redaction import CREDENTIAL_LABEL, SECRET_LABEL, TOKEN_LABEL, redact_secrets

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "privacy"


@pytest.mark.parametrize("text", [
    "key ghp_FAKEabcdefghijklmnop1234 here",
    "Authorization: Bearer abcdefgh12345678",
    "password=hunter22",
    "AKIAFAKE1234567890AB",
])  # fmt: skip
def test_the_floor_keeps_its_shapes(text: str) -> None:
    floor, count = redact_secrets(text)
    assert count and detection.redact(text)[0] == floor


def test_the_labels_of_the_floor_are_not_redacted_again() -> None:
    text = f"x {CREDENTIAL_LABEL} Bearer {TOKEN_LABEL} password: {SECRET_LABEL}"
    assert detection.extended_redact(text) == (text, 0)


def test_beyond_the_floor_a_url_password_and_a_prefixed_token_go() -> None:
    text = "postgres://app:FAKE-pw-0123456789@db.test/app and ?token=sk_live_FAKE0123456789abcdefgh&x=1"
    out, count = detection.redact(text)
    assert count == 2 and "FAKE-pw" not in out and "sk_live_" not in out
    assert out.startswith("postgres://app:" + SECRET_LABEL + "@db.test")


def test_a_long_text_is_redacted_as_its_lines_are() -> None:
    lines = [f"build ok line {i}" for i in range(2000)] + ["DB_PASSWORD=FAKEsecretvalue99", "-u root -pFAKEpass123"]
    text = "\n".join(lines)
    assert len(text) > 8192
    whole, count = detection.house_redact(text)
    assert count == 2
    assert whole.split("\n") == [detection.house_redact(line)[0] for line in lines]


def test_the_engine_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    import betterleaks

    def broken(_text: str) -> list[object]:
        raise RuntimeError("engine down")

    monkeypatch.setattr(betterleaks, "scan_string", broken)
    assert detection.engine_redact("nothing here") == ("nothing here", 1)


def test_a_lone_surrogate_does_not_break_the_engine() -> None:
    assert detection.engine_redact("a\udbeab") == ("a\udbeab", 0)


def test_the_engine_skips_what_is_past_its_limit() -> None:
    text = "x" * (detection.ENGINE_LIMIT + 1)
    assert detection.engine_redact(text) == (text, 0)


def test_the_committed_corpus_is_what_its_seed_generates() -> None:
    assert stale_files(CORPUS) == []


def test_the_chosen_detector_catches_the_corpus() -> None:
    corpus = corpus_check.Corpus.load(CORPUS)
    assert len(corpus.labels["secrets"]) >= 150 and len(corpus.labels["families"]) >= 40
    assert len(corpus.labels["nearMisses"]) >= 50
    chosen = corpus_check.score(corpus, "chosen", detection.redact)
    assert chosen.missed == [] and chosen.flagged == []


def test_a_second_redaction_of_every_corpus_entry_changes_nothing() -> None:
    """Egress re-sanitizes what recall already redacted, and a handoff quotes redacted text: every
    layer must leave its own labels alone (D14), or the text grows until egress omits it all."""
    corpus = corpus_check.Corpus.load(CORPUS)
    grown = []
    for entry_id, text in corpus.texts.items():
        once, _count = detection.redact(text)
        if detection.redact(once)[0] != once:
            grown.append(entry_id)
    assert grown == []


def _every_rule_on_the_whole_text(text: str) -> tuple[str, int]:
    """The house rules with no literal prefilter and no line split: each rule over the whole text."""
    count = 0
    for _name, _words, pattern, replace in detection._REPLACERS:
        text, found = detection._sub_counted(pattern, replace, text)
        count += found
    return text, count


def test_one_literal_pass_finds_what_every_rule_finds_on_the_whole_text() -> None:
    texts = list(corpus_check.Corpus.load(CORPUS).texts.values())
    odd = ["pa\u00dfword=FAKEsecretvalue99", "to\u212aen: FAKEabcdefgh1234", "API_\u017fECRET=FAKE0123456789",
           "a\udbeab password=FAKEhunter2222", "x\u0130 ghp_FAKEabcdefghijklmnopqrstuvwxyz0123", ""]  # fmt: skip
    filler = [f"build ok line {i}" for i in range(600)]
    long_texts = ["\n".join(filler + texts[i : i + 20] + filler) for i in range(0, len(texts), 20)]
    for text in texts + odd + long_texts + ["\n".join(filler + odd + filler)]:
        assert detection.house_redact(text) == _every_rule_on_the_whole_text(text), text[:80]
    assert any(len(text) > detection._BY_LINE and detection.house_redact(text)[1] for text in long_texts)


def test_the_lines_of_the_literals_are_counted_in_the_text_not_its_bytes() -> None:
    text = "\u00e9\u00df\n\udbeab\n\nx token=1 \u212aEY\nsk-"
    assert detection._literal_lines(text) == {
        RULE["named-secret"]: [3],
        RULE["quoted-named-secret"]: [3],
        RULE["prefixed-token"]: [4],
    }


RULE = {name: index for index, (name, *_rest) in enumerate(detection.RULES)}


def test_no_near_miss_entry_is_raised_by_its_serialization() -> None:
    """The raw check reads ``JSON.stringify(entry)``, where a ``\\n`` escape glues an ``n`` to the
    next word (``nAuthorization: Negotiate``, issue 29), and the entry's strings joined: no
    near-miss entry may be raised by either."""
    labels = json.loads((CORPUS / "labels.json").read_text(encoding="utf-8"))
    lines = (CORPUS / "session.jsonl").read_text(encoding="utf-8").splitlines()
    entries = {entry["id"]: entry for entry in map(json.loads, lines)}
    corpus = corpus_check.Corpus.load(CORPUS)
    raised = [item["id"] for item in labels["nearMisses"]
              if detection.redact(js_stringify(entries[item["entryId"]]))[1]
              or detection.extended_redact(corpus.texts[item["entryId"]])[1]]
    assert raised == []
