"""Clause ids of docs/spec/ (issue 26, deliverable 1): every normative unit marked, ids unique,
in their section, never renumbered, and the index the text gives (conformance/clauses.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
from testkit.paths import REPO_ROOT

from conformance import clauses

SPEC = REPO_ROOT / "docs" / "spec"
TOOL = REPO_ROOT / "tools" / "clauses.py"


def _spec_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "spec"
    folder.mkdir()
    for name in clauses.DOCUMENTS:
        shutil.copy(SPEC / name, folder / name)
    return folder


def test_the_spec_has_no_clause_problem_and_its_index_is_current() -> None:
    done = subprocess.run([sys.executable, str(TOOL), "check"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert clauses.problems(SPEC) == []


def test_the_index_follows_its_schema_and_names_every_mark_once() -> None:
    index = json.loads((SPEC / "clauses.json").read_text(encoding="utf-8"))
    schema = json.loads((REPO_ROOT / "schemas" / "clauses" / "v1" / "clause-index.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(index)
    ids = [clause["id"] for clause in index["clauses"]]
    assert len(ids) == len(set(ids)) == index["total"] > 900
    marked = sum(len(clauses.MARK.findall((SPEC / name).read_text(encoding="utf-8"))) for name in clauses.DOCUMENTS)
    assert marked == len(ids)


def test_an_unmarked_rule_a_repeated_id_and_an_id_out_of_its_section_are_problems(tmp_path: Path) -> None:
    folder = _spec_copy(tmp_path)
    contract = folder / "contract.md"
    text = contract.read_text(encoding="utf-8")
    text = text.replace('<a id="C6.12-1"></a><sup>C6.12-1</sup> ', "", 1)  # a rule without its id
    text = text.replace('<a id="C6.12-3"></a><sup>C6.12-3</sup>', '<a id="C6.12-2"></a><sup>C6.12-2</sup>', 1)
    text = text.replace('<a id="C1.1-1"></a><sup>C1.1-1</sup>', '<a id="C2.1-99"></a><sup>C2.1-99</sup>', 1)
    contract.write_text(text, encoding="utf-8")
    found = clauses.problems(folder)
    assert any("normative unit without a clause id" in problem for problem in found)
    assert any("C6.12-2 is marked twice" in problem for problem in found)
    assert any("C2.1-99 stands in §1.1" in problem for problem in found)
    assert len(found) == 3, found


def test_a_citation_and_a_lead_in_are_not_clauses() -> None:
    def unit(text: str) -> clauses.Unit:
        return clauses.Unit("contract.md", "6.12", "6.12 Inter-process lock", 0, 0, text)

    assert not unit("`src/extension/runtime.ts`, `tests/unit/x.test.ts`").normative
    assert not unit("Its steps:").normative
    assert unit("The lock is taken before the journal is written:" + " x" * 40).normative
    assert not clauses.Unit("contract.md", "7.2", "", 0, 0, "a test shows 3 retries").normative
    assert not unit("Sources for §6:").normative and not unit("Sources for §0: `docs/A.md`, `src/b.ts`.").normative
    assert not unit("**Ranges:**").normative and not unit("**The target is missing:**").normative
    assert not unit("**SessionManager (static)**").normative  # a bold title of the list after it
    assert not unit("`packages/core/src/a.ts` (`ebb04f2d`), `repositories/b.ts`, `c.ts`").normative
    assert not unit("From `dist/core/session-manager.d.ts`, `x.d.ts` and `extensions/types.d.ts`.").normative
    assert unit("**At most 12 hits.**").normative


def test_a_lead_in_that_states_an_order_a_bound_or_a_code_is_a_clause() -> None:
    """Issue 26: normative means a rule, a number, a code, a phase or an order."""
    def unit(text: str) -> clauses.Unit:
        return clauses.Unit("contract.md", "2.4", "2.4 Gating", 0, 0, text)

    for text in ("Checks, in order:", "**Symbols**: at most 20, drawn from:", "Any of these gives `operation-integrity`:",
                 "Migrations 1–16 are unchanged. Golden checksums:", "A candidate row is **eligible** only if all of these hold:"):
        assert unit(text).normative, text


def test_every_id_has_a_visible_label_and_an_anchor_github_renders() -> None:
    for name in clauses.DOCUMENTS:
        text = re.sub(r"`[^`\n]*`", "", (SPEC / name).read_text(encoding="utf-8"))  # code spans show, not render
        assert text.count("<a id=") == text.count("<sup>") == len(clauses.MARK.findall(text)) > 0
