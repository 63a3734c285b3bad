"""``recall-rebase conformance check``: the suite sanity check (JSON-Schema-Test-Suite style).

It fails on a missing, malformed or duplicate ``@id``, a fixture named by a feature but absent
from the manifest, a schema that is not valid 2020-12 or whose ``$ref`` does not resolve
locally, a manifest fixture that does not validate as declared, unchecked date-time formats, a
``Spec:`` link that does not resolve, a ``@platform:``/``@needs:`` tag off its grammar or its
catalogue (:mod:`conformance.platforms`), and a code the catalogue, the features and docs/errors.md
do not agree on; and the clause citations (:mod:`conformance.clause_rules`): an unknown clause id,
a scenario citing no clause, a clause neither cited nor reasoned unobservable.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from conformance import schemas
from conformance.codes import code_problems, every_code
from conformance.expectations import load_manifest
from conformance.gherkin_documents import scenarios_of
from conformance.platforms import tag_problems
from conformance.speclinks import spec_problems
from conformance.suite import docs_dir, features_dir, fixture_manifest, fixtures_dir, schemas_dir
from conformance.suite_scenarios import ID_PATTERN, parsed_features, scenario_rows

FIXTURE_REFERENCE: Final = re.compile(r'fixture session "([^"]+)"')
PLANTED_TAG: Final = re.compile(r"^@planted:AUDIT-(?:[0-9]{3}|\*)(?:,AUDIT-(?:[0-9]{3}|\*))*$")  # check ids or AUDIT-*
TIMEOUT_TAG: Final = re.compile(r"^@timeout:(?=[0-9.]*[1-9])[0-9]+(?:\.[0-9]+)?$")  # a positive factor
MANIFEST_SCHEMA: Final = "fixtures/manifest.schema.json"
CODE_CATALOGUE: Final = "codes/v1/codes.schema.json"


def check_expectations(problems: list[str], path: Path) -> int:
    """Every entry of a (valid) manifest names a scenario or row of the suite; returns the entries."""
    manifest = load_manifest(path)
    problems.extend(f"{path}: expectation {unknown!r} matches no scenario"
                    for unknown in manifest.unknown_ids(scenario_rows()))
    return len(manifest.expectations)


def check_features(problems: list[str]) -> int:
    seen: dict[str, str] = {}
    manifest = fixture_manifest()
    count = 0
    for path, document in parsed_features():
        where = path.relative_to(features_dir()).as_posix()
        if not document.get("feature"):
            problems.append(f"{where}: no Feature")
            continue
        feature_tags = [t["name"].lstrip("@") for t in document["feature"].get("tags", [])]
        for fixture_id in FIXTURE_REFERENCE.findall(path.read_text(encoding="utf-8")):
            if fixture_id.startswith("<"):
                continue  # an outline placeholder: its values are checked in the examples below
            if fixture_id not in manifest:
                problems.append(f"{where}: fixture {fixture_id!r} is not in fixtures/MANIFEST.json")
        for scenario in scenarios_of(document):
            count += 1
            line = scenario["location"]["line"]
            id_tags = [t["name"] for t in scenario["tags"] if t["name"].startswith("@id:")]
            if len(id_tags) != 1:
                problems.append(f"{where}:{line}: scenario {scenario['name']!r} needs exactly one @id tag")
                continue
            match = ID_PATTERN.match(id_tags[0])
            if not match:
                problems.append(f"{where}:{line}: {id_tags[0]} is not of the form @id:AREA-NNN")
                continue
            scenario_id = match.group(1)
            problems += [f"{where}:{line}: {tag} is not @timeout:N with N a positive number"
                         for t in scenario["tags"] if (tag := t["name"]).startswith("@timeout:")
                         and not TIMEOUT_TAG.match(tag)]
            problems += [f"{where}:{line}: {tag} is not @planted:AUDIT-NNN[,AUDIT-NNN...] (or AUDIT-*)"
                         for t in scenario["tags"] if (tag := t["name"]).startswith("@planted:")
                         and not PLANTED_TAG.match(tag)]
            problems += [f"{where}:{line}: {problem}" for problem in
                         tag_problems([*feature_tags, *(t["name"].lstrip("@") for t in scenario["tags"])])]
            if scenario_id in seen:
                problems.append(f"{where}:{line}: {scenario_id} is also used at {seen[scenario_id]}")
            seen[scenario_id] = f"{where}:{line}"
            if re.search(r"\bshould\b", scenario["name"], re.IGNORECASE):
                problems.append(f"{where}:{line}: state the rule, not a wish ('should' in {scenario['name']!r})")
            if scenario["keyword"].strip() == "Scenario Outline":
                for examples in scenario.get("examples", []):
                    header = [cell["value"] for cell in (examples.get("tableHeader") or {}).get("cells", [])]
                    if header[:1] != ["case"]:
                        problems.append(f"{where}:{line}: outline {scenario_id} needs a first 'case' column")
                    cases = [row["cells"][0]["value"] for row in examples.get("tableBody", [])]
                    if "fixture" in header:
                        column = header.index("fixture")
                        for row in examples.get("tableBody", []):
                            if row["cells"][column]["value"] not in manifest:
                                problems.append(f"{where}:{line}: fixture {row['cells'][column]['value']!r} "
                                                "is not in fixtures/MANIFEST.json")
                    if len(cases) != len(set(cases)):
                        problems.append(f"{where}:{line}: outline {scenario_id} repeats a case key")
    return count


def check_schemas(problems: list[str]) -> int:
    registry = schemas.registry()
    files = schemas.schema_files()
    for path in files:
        where = path.relative_to(schemas_dir()).as_posix()
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            problems.append(f"schemas/{where}: $schema is not draft 2020-12")
        if document.get("$id") != schemas.expected_id(path):
            problems.append(f"schemas/{where}: $id must be {schemas.expected_id(path)}")
        try:
            Draft202012Validator.check_schema(document)
        except SchemaError as exc:
            problems.append(f"schemas/{where}: not a valid 2020-12 schema: {exc.message}")
        resolver = registry.resolver(base_uri=document.get("$id", schemas.expected_id(path)))
        for ref in schemas.iter_refs(document):
            try:
                resolver.lookup(ref)
            except Unresolvable as exc:
                problems.append(f"schemas/{where}: $ref {ref!r} does not resolve locally ({exc})")
    if not schemas.date_time_format_is_checked():
        problems.append("format 'date-time' is not checked: install rfc3339-validator")
    return len(files)


def _fixture_lines(path: Path) -> list[Any] | None:
    """Each line's JSON value, split on LF only (U+2028 and U+0085 are not line breaks in JSONL)."""
    try:
        lines = path.read_bytes().split(b"\n")
        return [json.loads(line.removesuffix(b"\r").decode("utf-8")) for line in lines if line.strip()]
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def _tree_faults(values: list[Any]) -> list[str]:
    """Duplicate ids, missing parents and parent cycles among the entries (header excluded)."""
    entries = [v for v in values[1:] if isinstance(v, dict)]
    seen: set[Any] = set()
    faults = []
    for entry in entries:
        if entry.get("id") in seen:
            faults.append(f"duplicate id {entry.get('id')}")
        seen.add(entry.get("id"))
    parent_of = {e.get("id"): e.get("parentId") for e in entries}
    for entry_id, parent in parent_of.items():
        if parent and parent not in parent_of:
            faults.append(f"missing parent {parent}")
        walked: set[Any] = set()
        while parent and parent in parent_of and parent not in walked:
            walked.add(parent)
            parent = parent_of[parent]
        if parent and parent in walked:
            faults.append(f"cycle through {entry_id}")
            break
    return faults


def check_fixtures(problems: list[str]) -> int:
    manifest_path = fixtures_dir() / "MANIFEST.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for error in schemas.errors(manifest, MANIFEST_SCHEMA):
        problems.append(f"fixtures/MANIFEST.json: {schemas.describe(error)}")
    for item in manifest.get("fixtures", []):
        path = fixtures_dir() / item["path"]
        if not path.is_file():
            problems.append(f"fixture {item['id']}: {item['path']} does not exist")
            continue
        schema = item.get("schema")
        if not schema:
            continue
        lines = _fixture_lines(path)
        failures = 0 if lines is not None else 1
        for index, value in enumerate(lines or []):
            ref = schema if index else schema.replace("entry.schema.json", "session-header.schema.json")
            failures += bool(schemas.errors(value, ref))
        faults = _tree_faults(lines or [])
        if item["valid"] and failures:
            problems.append(f"fixture {item['id']}: declared valid, but {failures} line(s) fail {schema}")
        if item["valid"] and faults:
            problems.append(f"fixture {item['id']}: declared valid, but {', '.join(faults)}")
        if not item["valid"] and not failures and not faults and not _damaged_bytes(path):
            problems.append(f"fixture {item['id']}: declared invalid, but every line validates and the bytes are sound")
    return len(manifest.get("fixtures", []))


def _damaged_bytes(path: Path) -> bool:
    """Invalidity that lives in the bytes rather than in a line's JSON (torn tail, CRLF, BOM, empty)."""
    data = path.read_bytes()
    return not data or not data.endswith(b"\n") or b"\r\n" in data or data.startswith(b"\xef\xbb\xbf")


def check_spec_links(problems: list[str]) -> int:
    """Every feature's ``Spec:`` line resolves; returns the number of features checked."""
    features = sorted(features_dir().rglob("*.feature"))
    for feature in features:
        where = feature.relative_to(features_dir()).as_posix()
        problems.extend(f"features/{where}:{p.line}: {p.problem}" for p in spec_problems(feature))
    return len(features)


def check_codes(problems: list[str]) -> int:
    """The code catalogue against the features and docs/errors.md; returns the catalogue's size."""
    catalogue = schemas_dir() / CODE_CATALOGUE
    errors_doc = docs_dir() / "errors.md"
    found = code_problems(catalogue, sorted(features_dir().rglob("*.feature")),
                          errors_doc if errors_doc.is_file() else None)
    problems.extend(f"code {p.code!r}: {p.problem}" for p in found)
    return len(every_code(catalogue))


def check_clauses(problems: list[str]) -> int:
    """The clause citations (:mod:`conformance.clause_rules`); returns the number of clauses of docs/spec/."""
    from conformance.clause_rules import citation_problems
    from conformance.coverage import Sources, read_citations

    sources = Sources.packaged()
    if not (sources.spec_dir / "contract.md").is_file():
        problems.append(f"{sources.spec_dir}: no docs/spec/ here, so no clause can be checked")
        return 0
    citations = read_citations(sources)
    problems.extend(citation_problems(citations, sources))
    return len(citations.clauses)


def run_check(*, as_json: bool = False, expectations: str | None = None) -> int:
    problems: list[str] = []
    counts = {
        "scenarios": check_features(problems),
        "schemas": check_schemas(problems),
        "fixtures": check_fixtures(problems),
        "specLinks": check_spec_links(problems),
        "codes": check_codes(problems),
        "clauses": check_clauses(problems),
    }
    if expectations:
        counts["expectations"] = check_expectations(problems, Path(expectations))
    if as_json:
        print(json.dumps({"ok": not problems, "counts": counts, "problems": problems}))
    else:
        for problem in problems:
            print(f"problem: {problem}")
        verdict = "suite is sound" if not problems else f"{len(problems)} problem(s)"
        entries = f", {counts['expectations']} expectations" if "expectations" in counts else ""
        print(f"checked {counts['scenarios']} scenarios, {counts['schemas']} schemas, "
              f"{counts['fixtures']} fixtures, {counts['specLinks']} Spec lines, {counts['codes']} codes, "
              f"{counts['clauses']} clauses{entries}: "
              f"{verdict}", file=sys.stdout)
    return 0 if not problems else 1
