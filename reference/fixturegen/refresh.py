"""The fixture refresh: regenerate the committed generated fixtures and recompute every fixture's facts.

Why: ``fixtures/MANIFEST.json`` is the single source of what each fixture is; a generated fixture
is a pure function of its ``generated`` block, and the facts are recomputed from the bytes and
cross-checked against what the generator says it wrote.  :func:`main` is
``python -m reference.fixturegen --refresh|--check FIXTURES_DIR``: the refresh (``--check``: exit
1 when stale) without the product CLI; see ``fixtures/README.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from reference.fixturegen.facts import file_facts
from reference.fixturegen.generator import generate
from reference.fixturegen.options import GenOptions
from reference.primitives.jsonbytes import JsonObject


def _generated_facts(item: JsonObject) -> tuple[bytes, JsonObject]:
    gen = item["generated"]
    options = GenOptions(seed=gen["seed"], **gen["options"])
    with tempfile.TemporaryDirectory() as tmp:
        [session] = generate(Path(tmp), options)
        data = session.path.read_bytes()
    facts = file_facts(data)
    expected = {"sessionId": session.session_id, "entryCount": session.entry_count}
    if options.legacy != 1:
        expected["defaultLeafId"] = session.leaf_id
    for key, value in expected.items():
        if facts[key] != value:
            raise AssertionError(
                f"{item['id']}: generator says {key}={value!r}, the bytes say {facts[key]!r}"
            )
    facts["notable"] = session.notable
    return data, facts


def refresh_fixtures(fixtures_dir: Path, *, check: bool = False) -> list[str]:
    """Regenerate generated fixtures and recompute every fixture's facts; return what differed."""
    manifest_path = fixtures_dir / "MANIFEST.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    problems: list[str] = []
    for item in manifest["fixtures"]:
        path = fixtures_dir / item["path"]
        if item.get("generated"):
            data, facts = _generated_facts(item)
            if not path.exists() or path.read_bytes() != data:
                problems.append(f"{item['path']}: bytes differ from the generator")
                if not check:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
        else:
            facts = file_facts(path.read_bytes())
        kept = {k: v for k, v in (item.get("facts") or {}).items() if k not in facts and k != "notable"}
        facts = {**facts, **kept}
        if item.get("facts") != facts:
            problems.append(f"{item['id']}: facts changed")
            item["facts"] = facts
    if not check:
        manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return problems


DESCRIPTION = "Seeded generator of realistic Pi 0.84.3 session files (pi-session-model.md §1-§5)."


def main(argv: list[str] | None = None) -> int:
    """Refresh or check the fixtures in the given directory; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m reference.fixturegen", description=DESCRIPTION)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--refresh", type=Path, metavar="FIXTURES_DIR", help="regenerate fixtures and facts in place"
    )
    group.add_argument(
        "--check", type=Path, metavar="FIXTURES_DIR", help="fail if fixtures or facts are stale"
    )
    args = parser.parse_args(argv)
    target: Path = args.refresh or args.check
    problems = refresh_fixtures(target, check=args.check is not None)
    if args.check is not None:
        for problem in problems:
            print(f"stale: {problem}", file=sys.stderr)
        return 1 if problems else 0
    for problem in problems:
        print(f"updated: {problem}")
    print(f"refreshed {target / 'MANIFEST.json'} ({len(problems)} change(s))")
    return 0
