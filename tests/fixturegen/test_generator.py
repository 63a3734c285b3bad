"""The fixture generator, the Pi schemas and the committed fixtures agree with each other.

Why: conformance steps trust ``fixtures/MANIFEST.json`` (valid flags, facts); these tests make that
trust safe by checking every claim against the bytes, independently of the generator's own facts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from testkit.paths import REPO_ROOT

from reference.cli import fixtures_command as cli_fixtures
from reference.fixturegen.facts import file_facts
from reference.fixturegen.generator import generate
from reference.fixturegen.options import GeneratedSession, GenOptions
from reference.fixturegen.refresh import refresh_fixtures
from reference.primitives.jsonbytes import JsonParseError, js_parse, js_stringify
from reference.primitives.platform_ops.paths import session_file_name

ROOT = REPO_ROOT
SCHEMAS = ROOT / "schemas"
FIXTURES = ROOT / "fixtures"
BASE = "https://recall-rebase.invalid/schemas/"
HEADER_ID = BASE + "pi/session-header.schema.json"
ENTRY_ID = BASE + "pi/entry.schema.json"
MANIFEST_ID = BASE + "fixtures/manifest.schema.json"
MY_SCHEMAS = ("pi/session-header.schema.json", "pi/entry.schema.json", "fixtures/manifest.schema.json")
UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
ENTRY_ID_RE = re.compile(r"^[0-9a-f]{8}$")


# ---------------------------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def registry() -> Registry[Any]:
    resources = [
        Resource.from_contents(json.loads(p.read_text(encoding="utf-8")), default_specification=DRAFT202012)
        for p in sorted(SCHEMAS.rglob("*.json"))
    ]
    return Registry().with_resources((str(r.id()), r) for r in resources).crawl()


def _validator(registry: Registry[Any], schema_id: str) -> Draft202012Validator:
    return Draft202012Validator(
        {"$ref": schema_id}, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def _gen(tmp_path: Path, **kwargs: Any) -> GeneratedSession:
    [session] = generate(tmp_path, GenOptions(**kwargs))
    return session


def _lines(path: Path) -> list[str]:
    """Split like Pi (§1.7): on LF only, never on U+2028/U+0085 (str.splitlines would)."""
    text = path.read_bytes().decode("utf-8", errors="replace")  # Pi's StringDecoder does the same
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _values(path: Path) -> list[Any]:
    values = []
    for line in _lines(path):
        try:
            values.append(js_parse(line))
        except JsonParseError:
            continue
    return values


def problems(path: Path, registry: Registry[Any]) -> list[str]:
    """Why a file is not a sound v3 session (empty list: it is one). CRLF is tolerated."""
    data = path.read_bytes()
    if not data:
        return ["empty file"]
    found = ["UTF-8 BOM"] if data.startswith(b"\xef\xbb\xbf") else []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [*found, "not UTF-8"]
    if not text.endswith("\n"):
        found.append("unterminated last line")
    header, entry = _validator(registry, HEADER_ID), _validator(registry, ENTRY_ID)
    entries: list[dict[str, Any]] = []
    for number, line in enumerate(_lines(path), 1):
        line = line.removesuffix("\r")
        if not line.strip():
            found.append(f"line {number}: blank")
            continue
        try:
            value = js_parse(line)
        except JsonParseError:
            found.append(f"line {number}: not JSON")
            continue
        for error in (header if number == 1 else entry).iter_errors(value):
            found.append(f"line {number}: {error.json_path}: {error.message[:100]}")
        if number > 1 and isinstance(value, dict):
            entries.append(value)
    ids = Counter(e.get("id") for e in entries)
    found += [f"duplicate id {k}" for k, n in ids.items() if n > 1]
    parent = {e.get("id"): e.get("parentId") for e in entries}
    found += [f"missing parent {p}" for p in parent.values() if p is not None and p not in parent]
    for start in parent:
        seen: set[Any] = set()
        node = start
        while node is not None and node in parent:
            if node in seen:
                found.append(f"parent cycle through {node}")
                break
            seen.add(node)
            node = parent[node]
    return found


def _children(path: Path) -> Counter[Any]:
    return Counter(v.get("parentId") for v in _values(path)[1:] if isinstance(v, dict))


def _path_to(values: list[Any], leaf: str) -> list[str]:
    by_id = {v["id"]: v for v in values[1:]}
    chain: list[str] = []
    node: str | None = leaf
    while node is not None:
        chain.append(node)
        node = by_id[node]["parentId"]
    return chain[::-1]


# ---------------------------------------------------------------------------------------- schemas


@pytest.mark.parametrize("relative", MY_SCHEMAS)
def test_schema_is_valid_2020_12_with_its_id(relative: str) -> None:
    document = json.loads((SCHEMAS / relative).read_text(encoding="utf-8"))
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$id"] == BASE + relative
    Draft202012Validator.check_schema(document)


def test_date_time_format_is_enforced(registry: Registry[Any]) -> None:
    header = {
        "type": "session",
        "version": 3,
        "id": "x1",
        "timestamp": "2025-13-45T99:00:00.000Z",
        "cwd": "/",
    }
    assert list(_validator(registry, HEADER_ID).iter_errors(header))


def test_schemas_accept_optional_fields_and_reject_unknown_ones(registry: Registry[Any]) -> None:
    entry = _validator(registry, ENTRY_ID)
    base = {"id": "0000000a", "parentId": None, "timestamp": "2025-06-01T12:00:00.000Z"}
    ok = [
        {"type": "label", **base, "targetId": "0000000b"},
        {"type": "session_info", **base},
        {"type": "branch_summary", **base, "fromId": "root", "summary": ""},
        {"type": "message", **base, "message": {"role": "bashExecution", "command": "x", "output": "",
                                                "cancelled": True, "truncated": False, "timestamp": 1}},
        {"type": "message", **base, "message": {"role": "assistant", "content": [], "api": "a", "provider": "p",
                                                "model": "m", "usage": {"input": 0, "output": 0, "cacheRead": 0,
                                                "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0,
                                                "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                                                "stopReason": "error", "timestamp": 1, "providerExtra": {"x": 1}}},
    ]  # fmt: skip
    for value in ok:
        assert not list(entry.iter_errors(value)), value
    bad = [
        {"type": "label", **base, "targetId": "0000000b", "extra": 1},
        {"type": "message", **base, "message": {"role": "hookMessage", "customType": "x", "content": "",
                                                "display": True, "timestamp": 1}},
        {"type": "message", **base, "message": {"role": "user", "content": "hi", "timestamp": 1, "x": 1}},
        {"type": "compaction", **base, "summary": "s", "firstKeptEntryIndex": 3, "tokensBefore": 1},
        {"type": "label", "timestamp": base["timestamp"], "targetId": "0000000b"},
        {"type": "retained_tail", **base},
    ]  # fmt: skip
    for value in bad:
        assert list(entry.iter_errors(value)), value
    header = _validator(registry, HEADER_ID)
    good_header = {"type": "session", "version": 3, "id": "01972b5c-ee00-7abc-8def-0123456789ab",
                   "timestamp": "2025-06-01T12:00:00.000Z", "cwd": "/w", "parentSession": "/w/a.jsonl"}  # fmt: skip
    assert not list(header.iter_errors(good_header))
    assert list(header.iter_errors({k: v for k, v in good_header.items() if k != "version"}))


# ---------------------------------------------------------------------------------------- determinism


def test_same_seed_same_bytes_different_seed_different_bytes(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {
        "entries": 40,
        "siblings": 5,
        "compactions": 2,
        "branches": 3,
        "malformed": 2,
        "blank": 1,
    }
    first = generate(tmp_path / "a", GenOptions(seed=7, sessions=2, **kwargs))
    again = generate(tmp_path / "b", GenOptions(seed=7, sessions=2, **kwargs))
    other = generate(tmp_path / "c", GenOptions(seed=8, sessions=2, **kwargs))
    assert [s.path.name for s in first] == [s.path.name for s in again]
    assert [s.path.read_bytes() for s in first] == [s.path.read_bytes() for s in again]
    assert [(s.session_id, s.leaf_id, s.notable) for s in first] == [
        (s.session_id, s.leaf_id, s.notable) for s in again
    ]
    assert {s.path.read_bytes() for s in first}.isdisjoint(s.path.read_bytes() for s in other)


def test_bytes_do_not_depend_on_the_process_hash_seed(tmp_path: Path) -> None:
    """Set or dict iteration order must never leak into the output (PYTHONHASHSEED varies per run)."""
    script = (
        "import sys, hashlib; from pathlib import Path; "
        "from reference.fixturegen.generator import generate; from reference.fixturegen.options import GenOptions; "
        "[s] = generate(Path(sys.argv[1]), GenOptions(seed=5, entries=80, siblings=20, compactions=3, branches=4)); "
        "print(hashlib.sha256(s.path.read_bytes()).hexdigest())"
    )
    digests = set()
    for hash_seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", script, str(tmp_path / hash_seed)], env=env, cwd=ROOT,
                              capture_output=True, text=True, check=True)  # fmt: skip
        digests.add(done.stdout.strip())
    assert len(digests) == 1


def test_file_names_ids_and_timestamps_look_like_pi(tmp_path: Path) -> None:
    sessions = generate(tmp_path, GenOptions(seed=3, sessions=3, entries=30))
    assert len({s.session_id for s in sessions}) == 3
    starts = []
    for s in sessions:
        values = _values(s.path)
        head = values[0]
        assert UUID7.match(s.session_id) and head["id"] == s.session_id
        assert s.path.name == session_file_name(head["timestamp"], s.session_id)
        ids = [v["id"] for v in values[1:]]
        assert all(ENTRY_ID_RE.match(i) for i in ids) and len(ids) == len(set(ids)) == s.entry_count
        stamps = [v["timestamp"] for v in values]
        assert stamps == sorted(stamps)
        assert s.leaf_id == ids[-1]
        starts.append(head["timestamp"])
    assert starts[0] == "2025-06-01T12:00:00.000Z" and starts == sorted(starts)


def test_every_line_is_javascript_json_stringify_output(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=11, entries=80, compactions=2, branches=3)
    for line in _lines(s.path):
        assert js_stringify(js_parse(line)) == line


def test_key_orders_follow_session_manager(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=12, entries=120, compactions=2, branches=3)
    values = _values(s.path)
    assert list(values[0]) == ["type", "version", "id", "timestamp", "cwd"]
    seen = set()
    for v in values[1:]:
        keys = list(v)
        seen.add(v["type"])
        if v["type"] == "custom":
            assert keys[-3:] == ["id", "parentId", "timestamp"] and keys[:2] == ["type", "customType"]
        elif v["type"] == "custom_message":
            assert keys[:4] == ["type", "customType", "content", "display"]
            assert keys[-3:] == ["id", "parentId", "timestamp"]
        else:
            assert keys[:4] == ["type", "id", "parentId", "timestamp"]
        if v["type"] == "compaction":
            assert keys[4:] == ["summary", "firstKeptEntryId", "tokensBefore", "details", "usage", "fromHook"]
        if v["type"] == "message" and v["message"]["role"] == "assistant":
            assert list(v["message"])[:8] == ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"]  # fmt: skip
        if v["type"] == "message" and v["message"]["role"] == "toolResult":
            assert list(v["message"])[-2:] == ["isError", "timestamp"]
    assert {"message", "model_change", "thinking_level_change", "compaction", "branch_summary", "custom",
            "custom_message", "label", "session_info"} <= seen  # fmt: skip


# ---------------------------------------------------------------------------------------- options


def test_siblings_give_one_parent_that_many_children(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=5, entries=20, siblings=150)
    children = _children(s.path)
    assert children[s.notable["sibling_parent"]] == 150
    assert children.most_common(1)[0] == (s.notable["sibling_parent"], 150)


def test_crlf_ends_every_line_in_crlf(tmp_path: Path) -> None:
    data = _gen(tmp_path, seed=5, entries=30, crlf=True, blank=2, malformed=1).path.read_bytes()
    assert data.endswith(b"\r\n")
    assert data.count(b"\n") == data.count(b"\r\n")


def test_torn_tail_leaves_a_partial_last_line(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=5, entries=25, torn_tail=True)
    data = s.path.read_bytes()
    assert not data.endswith(b"\n")
    tail = data.rsplit(b"\n", 1)[1]
    with pytest.raises(JsonParseError):
        js_parse(tail.decode("utf-8"))
    facts = file_facts(data)
    assert facts["unterminatedTail"] is True and facts["unterminatedTailIsJson"] is False
    assert facts["defaultLeafId"] == s.leaf_id and facts["entryCount"] == s.entry_count


def test_malformed_and_blank_lines_are_counted_exactly(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=9, entries=40, malformed=4, blank=3)
    lines = _lines(s.path)
    blank = sum(1 for line in lines if not line.strip())
    bad = 0
    for line in lines:
        if line.strip():
            try:
                js_parse(line)
            except JsonParseError:
                bad += 1
    assert (bad, blank) == (4, 3)
    assert len(lines) == 1 + s.entry_count + 4 + 3


def test_legacy_v1_has_no_version_and_no_ids(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=4, entries=40, legacy=1, compactions=2, branches=3, siblings=10)
    values = _values(s.path)
    assert "version" not in values[0] and values[0]["type"] == "session"
    assert all("id" not in v and "parentId" not in v for v in values[1:])
    compactions = [v for v in values if v["type"] == "compaction"]
    assert len(compactions) == 2
    for c in compactions:
        assert "firstKeptEntryId" not in c
        kept = values[c["firstKeptEntryIndex"]]  # index into parsed entries, header = 0
        assert kept["type"] == "message" and kept["message"]["role"] == "user"
    assert s.leaf_id is None
    assert file_facts(s.path.read_bytes())["defaultLeafIdWithCounterIds"] == f"{s.entry_count:08x}"


def test_legacy_v2_has_hook_messages(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=4, entries=30, legacy=2)
    values = _values(s.path)
    assert values[0]["version"] == 2
    assert any(v["type"] == "message" and v["message"]["role"] == "hookMessage" for v in values[1:])
    assert not any(v["type"] in ("custom_message", "label", "session_info", "custom") for v in values[1:])


def test_compactions_sit_on_one_path_and_keep_entries_before_them(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=21, entries=90, compactions=3, branches=2)
    values = _values(s.path)
    assert s.leaf_id is not None
    path = _path_to(values, s.leaf_id)
    by_id = {v["id"]: v for v in values[1:]}
    compactions = [i for i in path if by_id[i]["type"] == "compaction"]
    assert len(compactions) == 3
    for c in compactions:
        kept = by_id[c]["firstKeptEntryId"]
        assert kept in path[: path.index(c)]
        assert by_id[kept]["message"]["role"] == "user"


def test_branches_make_side_branches_a_second_root_and_summaries(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=22, entries=60, branches=3)
    values = _values(s.path)
    assert s.leaf_id is not None
    main = set(_path_to(values, s.leaf_id))
    for n in (1, 2, 3):
        assert s.notable[f"branch{n}_leaf"] not in main
    roots = [v["id"] for v in values[1:] if v["parentId"] is None]
    assert len(roots) == 2 and s.notable["second_root"] == roots[1]
    summary = next(v for v in values[1:] if v["id"] == s.notable["branch_summary"])
    assert summary["type"] == "branch_summary" and summary["fromId"] in {v["id"] for v in values[1:]}
    assert (
        _gen(tmp_path / "none", seed=22, entries=60, branches=0, compactions=0)
        .notable.keys()
        .isdisjoint({"branch1_leaf", "second_root", "branch_summary"})
    )


def test_secrets_are_present_and_fake_or_absent(tmp_path: Path) -> None:
    with_secrets = _gen(tmp_path / "a", seed=2, entries=30).path.read_text(encoding="utf-8")
    for marker in ("sk-proj-FAKE", "AKIAFAKE", "ghp_FAKE", "-----BEGIN PRIVATE KEY-----\\nFAKEKEY"):
        assert marker in with_secrets
    without = _gen(tmp_path / "b", seed=2, entries=30, secrets=False).path.read_text(encoding="utf-8")
    assert not re.search(r"sk-proj-|AKIA|ghp_|PRIVATE KEY", without)


def test_non_ascii_astral_and_line_separators_are_written_raw(tmp_path: Path) -> None:
    data = _gen(tmp_path, seed=2, entries=20).path.read_bytes()
    for text in ("日本語", "👨\u200d👩\u200d👧\u200d👦", "e\u0301", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "\u2028", "\u0085", "\ufeff"):
        assert text.encode("utf-8") in data
    assert b"\\ud83c" in data and b"\\u001b" in data


def test_term_is_mentioned_by_exactly_one_entry(tmp_path: Path) -> None:
    s = _gen(tmp_path, seed=30, entries=60)
    mentions = [v["id"] for v in _values(s.path)[1:] if s.notable["term"] in js_stringify(v)]
    assert mentions == [s.notable["term_entry"]]


def test_header_only_and_size_target(tmp_path: Path) -> None:
    header_only = _gen(tmp_path / "h", seed=1, entries=0)
    assert header_only.entry_count == 0 and header_only.leaf_id is None
    assert len(_lines(header_only.path)) == 1
    big = _gen(tmp_path / "b", seed=1, target_bytes=400_000)
    size = big.path.stat().st_size
    assert 400_000 <= size < 520_000


@pytest.mark.parametrize(
    "kwargs",
    [
        {"seed": 1},
        {"seed": 2, "entries": 100, "compactions": 3, "branches": 4, "siblings": 30},
        {"seed": 3, "entries": 15, "compactions": 0, "branches": 0, "secrets": False},
        {"seed": 4, "entries": 50, "crlf": True},
        {"seed": 5, "target_bytes": 200_000, "compactions": 2},
    ],
)
def test_every_line_of_a_valid_session_validates(
    tmp_path: Path, registry: Registry[Any], kwargs: dict[str, Any]
) -> None:
    s = _gen(tmp_path, **kwargs)
    assert problems(s.path, registry) == []
    facts = file_facts(s.path.read_bytes())
    assert (facts["sessionId"], facts["entryCount"], facts["defaultLeafId"]) == (
        s.session_id,
        s.entry_count,
        s.leaf_id,
    )


@pytest.mark.parametrize(
    "kwargs", [{"legacy": 1}, {"legacy": 2}, {"torn_tail": True}, {"malformed": 1}, {"blank": 1}]
)
def test_damaged_and_legacy_sessions_do_not_validate(
    tmp_path: Path, registry: Registry[Any], kwargs: dict[str, Any]
) -> None:
    assert problems(_gen(tmp_path, seed=6, entries=30, **kwargs).path, registry)


# ---------------------------------------------------------------------------------------- committed fixtures


def _manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "MANIFEST.json").read_text(encoding="utf-8"))
    return data


def test_manifest_validates_and_names_real_small_files(registry: Registry[Any]) -> None:
    manifest = _manifest()
    assert not list(_validator(registry, MANIFEST_ID).iter_errors(manifest))
    ids = [item["id"] for item in manifest["fixtures"]]
    assert len(ids) == len(set(ids))
    # The session fixtures live under valid/ and invalid/; corpora (privacy/) have their own labels.
    on_disk = {p.relative_to(FIXTURES).as_posix() for d in ("valid", "invalid") for p in (FIXTURES / d).rglob("*.jsonl")}
    assert on_disk == {item["path"] for item in manifest["fixtures"]}
    for item in manifest["fixtures"]:
        assert (FIXTURES / item["path"]).stat().st_size < 50_000, item["id"]
        if item["schema"] is not None:
            registry.contents(item["schema"])  # resolves locally


@pytest.mark.parametrize("item", _manifest()["fixtures"], ids=lambda item: item["id"])
def test_fixture_valid_flag_holds(registry: Registry[Any], item: dict[str, Any]) -> None:
    found = problems(FIXTURES / item["path"], registry)
    if item["valid"]:
        assert found == []
    else:
        assert found, "declared invalid, but nothing is wrong with it"


@pytest.mark.parametrize("item", _manifest()["fixtures"], ids=lambda item: item["id"])
def test_fixture_core_facts_hold(item: dict[str, Any]) -> None:
    """Recomputed here without file_facts: header id, entries Pi keeps, last entry's id."""
    data = (FIXTURES / item["path"]).read_bytes()
    parsed = []
    for line in data.decode("utf-8", errors="replace").split("\n"):
        if line.strip():
            try:
                value = js_parse(line)
            except JsonParseError:
                continue
            if value:
                parsed.append(value)
    facts = item["facts"]
    if parsed and isinstance(parsed[0], dict) and parsed[0].get("type") == "session":
        entries = [v for v in parsed[1:] if not (isinstance(v, dict) and v.get("type") == "session")]
        assert facts["sessionId"] == parsed[0]["id"]
        assert facts["entryCount"] == len(entries)
        assert facts["defaultLeafId"] == (entries[-1].get("id") if entries else None)
    else:
        assert (facts["sessionId"], facts["entryCount"], facts["defaultLeafId"]) == (None, 0, None)
        assert facts["openResult"] == ("fresh-header" if not data else "rejected")


def test_generated_fixtures_regenerate_byte_for_byte() -> None:
    assert refresh_fixtures(FIXTURES, check=True) == []


def test_notable_ids_of_fixtures_exist() -> None:
    for item in _manifest()["fixtures"]:
        notable = item["facts"].get("notable", {})
        ids = {v.get("id") for v in _values(FIXTURES / item["path"]) if isinstance(v, dict)}
        for key, value in notable.items():
            if key != "term":
                assert value in ids, (item["id"], key)


# ---------------------------------------------------------------------------------------- CLI


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="recall-rebase")
    cli_fixtures.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    result: int = args.handler(args)
    return result


def test_cli_generate_json_matches_the_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fixtures", "generate", "--seed", "42", "--out", str(tmp_path / "cli"), "--entries", "25",
            "--siblings", "3", "--crlf", "--malformed", "1", "--legacy", "2", "--no-secrets", "--json"]  # fmt: skip
    assert _cli(argv) == 0
    [row] = json.loads(capsys.readouterr().out)
    [lib] = generate(
        tmp_path / "lib",
        GenOptions(seed=42, entries=25, siblings=3, crlf=True, malformed=1, legacy=2, secrets=False),
    )
    assert Path(row["path"]).read_bytes() == lib.path.read_bytes()
    assert (row["sessionId"], row["entryCount"], row["leafId"]) == (
        lib.session_id,
        lib.entry_count,
        lib.leaf_id,
    )


def test_cli_generate_summary_target_and_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(["fixtures", "generate", "--seed", "1", "--out", str(tmp_path), "--target-mb", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "entries" in out and "leaf" in out
    assert next(tmp_path.glob("*.jsonl")).stat().st_size >= 200_000
    assert _cli(["fixtures", "generate", "--seed", "1", "--out", str(tmp_path), "--target-mb", "0"]) == 2
    assert capsys.readouterr().err.startswith("recall-rebase: bad-option:")


def test_cli_list_prints_the_manifest(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["fixtures", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [item["id"] for item in _manifest()["fixtures"]]
    assert _cli(["fixtures", "list"]) == 0
    assert "tree-compactions" in capsys.readouterr().out
