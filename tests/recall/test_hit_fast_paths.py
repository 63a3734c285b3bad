"""A recall's hit processing on its fast paths gives what the plain forms give (issue 13 item 3).

* ``verify_source`` looking for the header in the first 64 KiB (and 1 MiB only when those hold
  no newline) against one read of 1 MiB, around both limits and for every outcome;
* the canonical paths remembered for a recall against ``canonical_path`` on every hit;
* the privacy findings remembered (entry count and character bound) against none remembered;
* public ids remembered against computed afresh.
The recall envelopes of project scope against the per-source form are compared in
``test_project_fast_path.py`` (with these caches emptied before each plain recall).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from reference.config.defaults import default_config
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.paths import canonical_path
from reference.privacy import entry as privacy_entry
from reference.privacy import public_ids
from reference.privacy.entry import EntryFindings, classify_entry
from reference.privacy.policy import ProviderPolicy
from reference.recall import source_verify
from reference.recall.source_verify import HEADER_FIRST_READ_BYTES, verify_source

MIB = 1024 * 1024
PRIVACY = default_config()["privacy"]
POLICIES = (ProviderPolicy.from_config(PRIVACY, "ollama"), ProviderPolicy.from_config(PRIVACY, "openai"))


def _line(value: Any) -> bytes:
    return (json.dumps(value, separators=(",", ":")) + "\n").encode("utf-8")


def _session(path: Path, header_bytes: int, *, cwd: str, newline: bool = True) -> tuple[str, int, int]:
    """A header line of exactly ``header_bytes`` bytes (newline excluded) and one entry; returns
    the entry's hash and locator."""
    header = {"type": "session", "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd, "pad": ""}
    header["pad"] = "x" * max(0, header_bytes - len(_line(header)) + 1)
    head = _line(header)[:-1]
    assert len(head) == max(header_bytes, len(head))
    record = _line({"type": "message", "id": "e1", "parentId": None, "message": {"role": "user", "content": "hi"}})
    path.write_bytes(head + (b"\n" if newline else b"") + record)
    start = len(head) + (1 if newline else 0)
    return hashlib.sha256(record[:-1]).hexdigest(), start, start + len(record)


def _outcome(**kwargs: Any) -> Any:
    try:
        return verify_source(**kwargs)  # its bytes hash to the expected value: the entry says them all
    except ContractViolation as error:
        return (error.code, str(error))


def _plain_head(fd: int, limit: int) -> bytes:
    return source_verify.read_at(fd, 0, limit)


@pytest.mark.parametrize("header_bytes", [200, HEADER_FIRST_READ_BYTES - 2, HEADER_FIRST_READ_BYTES - 1,
                                          HEADER_FIRST_READ_BYTES, HEADER_FIRST_READ_BYTES + 1, MIB - 1, MIB,
                                          MIB + 1])
@pytest.mark.parametrize("newline", [True, False])
def test_header_read_equals_one_read_of_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  header_bytes: int, newline: bool) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "project")
    for cwd, project in ((str(tmp_path / "project"), str(tmp_path / "link")), ("/elsewhere", str(tmp_path))):
        path = tmp_path / "s.jsonl"
        content_hash, start, end = _session(path, header_bytes, cwd=cwd, newline=newline)
        outcomes = []
        for entry_id, hash_ in (("e1", content_hash), ("e2", content_hash), ("e1", "0" * 64)):
            args = {"session_file": str(path), "session_id": "s1", "project_path": project, "entry_id": entry_id,
                    "content_hash": hash_, "start": start, "end": end}
            memo: dict[str, str] = {}

            def remembered(value: str, memo: dict[str, str] = memo) -> str:
                return memo.setdefault(value, canonical_path(value))

            fast = _outcome(**args, canonical=remembered)
            with monkeypatch.context() as patch:
                patch.setattr(source_verify, "_header_head", _plain_head)
                plain = _outcome(**args)
            assert fast == plain
            outcomes.append(fast)
        if newline and header_bytes < MIB and cwd != "/elsewhere":
            assert isinstance(outcomes[0], dict)  # the fixture reaches a verified entry


def test_remembered_findings_equal_findings_afresh() -> None:
    findings = EntryFindings(entries=7, characters=3000)
    rng = random.Random(5)
    texts = ["plain words", "password=hunter22", "token sk-ant-" + "a" * 40, "[PRIVATE] note", "x" * 900,
             "see AKIAABCDEFGHIJKLMNOP here", "y" * 2500]
    for _ in range(300):
        text = rng.choice(texts)
        entry = {"type": "message", "id": "e1", "message": {"role": "user", "content": text}}
        key = hashlib.sha256(text.encode()).hexdigest()
        policy = rng.choice(POLICIES)
        fast = classify_entry(entry, text, policy=policy, privacy_config=PRIVACY, content_hash=key, findings=findings)
        plain = classify_entry(entry, text, policy=policy, privacy_config=PRIVACY)
        assert fast == plain
        assert len(findings.held) <= 7
        assert findings.weight == sum(privacy_entry.weight(*held) for held in findings.held.values())
        assert findings.weight <= 3000 or len(findings.held) == 1
    assert findings.held  # it remembered


def test_remembered_public_ids_equal_ids_afresh() -> None:
    rng = random.Random(9)
    values = ["a1b2c3d4", "01972b5c-ee00-79f3-a190-4c20cf6b478b", "sk-ant-" + "b" * 40, "AKIAABCDEFGHIJKLMNOP",
              "has space", "", "x" * 128, "x" * 129, "ü-id", "ghp_" + "c" * 36]
    values += [os.urandom(rng.randrange(1, 12)).hex() for _ in range(50)]
    findings = privacy_entry.EntryFindings(entries=40)  # fewer than the ids asked: some are let go
    for _ in range(2):
        for value in values:
            for policy in (*POLICIES, None):
                plain = public_ids._public_id(value, policy or public_ids._LOCAL)
                assert public_ids.public_id(value, policy=policy) == plain
                assert public_ids.public_id(value, policy=policy, findings=findings) == plain
                assert len(findings.ids) <= 40
    assert findings.ids  # it remembered
