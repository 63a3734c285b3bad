"""The example Node port keeps the DS4 configuration exactly as the reference does, beyond the scenarios.

A seeded matrix of request sequences (``config.set``, ``config.unset``, ``config.show`` and
``host.facts``) runs against the port and the reference (``recall-rebase host --stdio``), each in
a sandbox of its own with the same layout: a Pi home, an agent dir (the default one or
``PI_CODING_AGENT_DIR``), a project trusted by flag, untrusted by flag, without resources (trusted)
or with them and no decision (untrusted), and sometimes a global or project file already there.
The values cover every catalog path and kind: valid, of the wrong kind, out of range, unknown
paths, unknown options, and parameters of the wrong type. Every answer must be the same JSON text
(the sandbox's folder aside), and after each sequence the same files with the same bytes and modes.
A refusal the schema makes at the protocol's edge (``invalid-params`` worded by the harness's
validator) is compared by its code, and the reason a file that is not JSON was discarded by its
warning's prefix (the rest is the JSON parser's own words, Python's or V8's).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from conformance import schemas
from conformance.protocol import ContractError
from conformance.stdio import SubprocessAdapter
from reference.config.catalog import CATALOG, INTEGER_BOUNDS

SEQUENCES = 64
STEPS = 10
UNKNOWN_PATHS = ["historyTools.maxResult", "recall", "historyTools", "", "privacy.remoteProviders.openai",
                 "retrieval.maxResults", "enabled.x"]
VALUES: dict[str, list[str]] = {
    "boolean": ["true", "false", " TRUE ", "False", "yes", "1", "off", ""],
    "enum": ["project", "Manual", "", "observer", "current-lineage", "sensitive"],
    "string-array": ['["ollama"]', "[]", '["a","b"]', "[1]", "[ollama]", '{"a":1}', '["ollama","OLLAMA"]',
                     '["openai"]', '[""]', '"ollama"'],
    "enum-array": ['["normal"]', '["normal","internal"]', '["local-only"]', '["normal","normal"]', '["secret"]',
                   "[]", '"normal"', "[normal]"],
    "classification-map": ["{}", '{"openai":["normal"]}', '{"ollama":["normal"]}', '{"":["normal"]}',
                           '{"openai":["secret"]}', '{"openai":"normal"}', "[]", '{"openai":["local-only"]}',
                           '{"2":["normal"],"openai":["internal"],"1":[]}', "{oops}"],
}
VALID: dict[str, list[str]] = {
    "boolean": ["true", "false", " TRUE ", "False"],
    "string-array": ['["ollama"]', "[]", '["a","b"]', '["openai"]'],
    "enum-array": ['["normal"]', '["normal","internal"]', "[]"],
    "classification-map": ["{}", '{"openai":["normal"]}', '{"2":["normal"],"openai":["internal"],"1":[]}'],
}
FILES = ['{"zeta": 1}', '{"historyTools": {"maxResults": "4", "maxOutputTokens": 500}}', "[]",
         '{"sessionRebase": {"preserveSource": false}}', '{"privacy": {"remoteProviders": {"openai": ["normal"]}}}',
         '{"historyTools": {"maxResults": 4}, "retrieval": {"maxResults": 101}}', "null", '{"enabled": false',
         '{"enabled": NaN}', '\ufeff{"enabled": false}', '{"historyTools": {"maxResults": 1e400}}']
TRUST = ["flag", "distrust-flag", "no-resources", "ask"]
#: The reference's words for params its schema refuses (the harness's validator): compared by code.
AT_THE_EDGE = "(the schema's words)"
#: Why a file that is not JSON was discarded: the JSON parser's own words (Python's, V8's), which
#: the contract leaves open; that the file is discarded, and with which warning prefix, is compared.
PARSER_WORDS = re.compile(r"(: configuration ignored: )(invalid JSON.*|(NaN|-?Infinity) is not valid JSON)$", re.M)


def _integer_values(path: str, rng: random.Random) -> list[str]:
    low, high = INTEGER_BOUNDS[path]
    return [str(low), str(high), str(low - 1), str(high + 1), str(rng.randint(low, high)), "0007", "6.0", "1e3",
            "+6", "-0", "9007199254740991", "9007199254740992", "abc", ""]


def _value(kind: str, path: str, rng: random.Random) -> str:
    """Half the time a value the kind takes (it may still be out of range), else any of the matrix."""
    if kind == "integer":
        values = _integer_values(path, rng)
        return values[rng.randrange(5)] if rng.random() < 0.5 else rng.choice(values)
    valid = [*VALID.get(kind, []), *next((item.values for item in CATALOG if item.path == path), ())]
    return rng.choice(valid) if valid and rng.random() < 0.5 else rng.choice(VALUES[kind])


def _edit(rng: random.Random) -> dict[str, Any]:
    """The params of one set or unset beyond the host's: a path, a value, the flag and options."""
    if rng.random() < 0.15:
        path, kind = rng.choice(UNKNOWN_PATHS), "boolean"
    else:
        item = rng.choice(CATALOG)
        path, kind = item.path, item.kind
    params: dict[str, Any] = {"path": path, "value": _value(kind, path, rng), "global": rng.random() < 0.4}
    roll = rng.random()
    if roll < 0.1:
        params["options"] = rng.choice([["--global"], ["--force"], ["--GLOBAL", "--dry-run", "--force"],
                                        ["--global=1"], ["--", "--force"]])
    elif roll < 0.16:  # the wrong type, refused at the edge
        key, bad = rng.choice([("value", 5), ("global", "yes"), ("path", None), ("options", "--global"),
                               ("options", [1]), ("options", ["global"])])
        params[key] = bad
    return params


class Sandbox:
    """One implementation's folder: the same layout for both, under a name of the same length."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "home").mkdir(parents=True)
        (root / "work" / "proj").mkdir(parents=True)

    def host(self, trust: str, agent_env: bool) -> dict[str, Any]:
        argv = {"flag": ["--approve"], "distrust-flag": ["-na"]}.get(trust, [])
        env = {"PI_CODING_AGENT_DIR": str(self.root / "agent")} if agent_env else {}
        return {"home": str(self.root / "home"), "cwd": str(self.root / "work" / "proj"), "env": env, "argv": argv}

    def lay_out(self, trust: str, global_file: str | None, project_file: str | None, agent_env: bool) -> None:
        if trust == "ask":
            settings = self.root / "work" / "proj" / ".pi" / "settings.json"
            settings.parent.mkdir(parents=True, exist_ok=True)
            settings.write_text("{}", encoding="utf-8")
        agent = self.root / "agent" if agent_env else self.root / "home" / ".pi" / "agent"
        for text, path in ((global_file, agent / "ds4-context.json"),
                           (project_file, self.root / "work" / "proj" / ".pi" / "ds4-context.json")):
            if text is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")

    def aside(self, text: str) -> str:
        """``text`` with the sandbox's folder, and its name as a Pi session folder, set aside."""
        encoded = str(self.root).lstrip("/").replace("/", "-")
        return text.replace(str(self.root), "<SANDBOX>").replace(encoded, "<SANDBOX>")

    def files(self) -> dict[str, tuple[str, int]]:
        """Every file and folder below the sandbox: its text (the sandbox's path aside) and mode."""
        found: dict[str, tuple[str, int]] = {}
        for path in sorted(self.root.rglob("*")):
            text = "" if path.is_dir() else self.aside(path.read_text(encoding="utf-8"))
            found[path.relative_to(self.root).as_posix()] = (text, path.stat().st_mode & 0o777)
        return found


def _answer(adapter: SubprocessAdapter, sandbox: Sandbox, op: str, params: dict[str, Any],
            *, validated: bool = False) -> str:
    """The result as JSON text with the sandbox's folder as ``<SANDBOX>``, or the refusal."""
    try:
        result = adapter.request(op, params)
    except ContractError as error:
        at_the_edge = error.code == "invalid-params" and error.message.startswith(f"{op} params: ")
        return sandbox.aside(f"refused: {error.code}: {AT_THE_EDGE if at_the_edge else error.message}")
    shape = f"adapter/v1/operations.schema.json#/$defs/{op}/properties/result"
    assert not validated or [schemas.describe(e) for e in schemas.errors(result, shape)] == [], (op, params)
    if op == "config.show":
        result["warnings"] = [PARSER_WORDS.sub(r"\1(the parser's words)", w) for w in result["warnings"]]
        result["text"] = PARSER_WORDS.sub(r"\1(the parser's words)", result["text"])
    return sandbox.aside(json.dumps(result, ensure_ascii=False))


def _agree(expected: str, actual: str) -> bool:
    """The same text; or both ``invalid-params`` where the reference's words are its schema validator's."""
    edge = f"refused: invalid-params: {AT_THE_EDGE}"
    return actual == expected or (expected == edge and actual.startswith("refused: invalid-params: "))


def _sequence(seed: int) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """One sandbox layout and its requests (params beyond the host's), drawn from ``seed``."""
    rng = random.Random(seed)
    layout = {"trust": rng.choice(TRUST), "agent_env": rng.random() < 0.5,
              "global_file": rng.choice([None, None, *FILES]), "project_file": rng.choice([None, None, None, *FILES])}
    steps: list[tuple[str, dict[str, Any]]] = []
    for _ in range(STEPS):
        roll = rng.random()
        op = "config.set" if roll < 0.55 else "config.unset" if roll < 0.8 else "config.show" if roll < 0.95 else "host.facts"
        params = _edit(rng) if op in ("config.set", "config.unset") else {}
        if op == "config.unset":
            params.pop("value", None)
        steps.append((op, params))
        if op != "config.show":
            steps.append(("config.show", {}))
    return layout, steps


def test_config_set_unset_and_show_agree_with_the_reference_on_a_seeded_matrix(
    both: tuple[SubprocessAdapter, SubprocessAdapter], tmp_path: Path
) -> None:
    port, reference = both
    compared, refused, edited = 0, set(), 0
    for seed in range(SEQUENCES):
        layout, steps = _sequence(seed)
        sandboxes = {name: Sandbox(tmp_path / str(seed) / name) for name in ("ref", "prt")}
        for sandbox in sandboxes.values():
            sandbox.lay_out(layout["trust"], layout["global_file"], layout["project_file"], layout["agent_env"])
        for op, extra in steps:
            answers = []
            for name, adapter in (("ref", reference), ("prt", port)):
                sandbox = sandboxes[name]
                params = {**sandbox.host(layout["trust"], layout["agent_env"]), **extra}
                answers.append(_answer(adapter, sandbox, op, params, validated=name == "prt"))
            expected, actual = answers
            assert _agree(expected, actual), (seed, op, extra, layout, actual)
            compared += 1
            if expected.startswith("refused: "):
                refused.add(expected.split(":")[1].strip())
            elif op in ("config.set", "config.unset"):
                edited += 1
        assert sandboxes["prt"].files() == sandboxes["ref"].files(), (seed, layout)
    # The matrix reaches every refusal of the area and edits that succeed, not only one kind of answer.
    assert {"config-invalid-value", "config-invalid", "config-unknown-path", "config-unknown-option",
            "config-project-untrusted", "config-not-set", "config-file-malformed", "invalid-params"} <= refused
    assert compared > 600 and edited > 40
