"""Steps for CONFIG scenarios: saved overrides, validation, layering and /context config.

Each scenario gets a Pi home, an agent dir (through ``PI_CODING_AGENT_DIR``) and a project
folder under ``workdir``.  Trust comes from Pi's ``--approve`` / ``--no-approve`` flags, so these
steps never depend on Pi's trust store.  The two file paths are taken from the implementation's
own ``config.show`` answer (its ``files``), then written and read back by the harness.  Every
step text says "DS4 config" so it cannot collide with another area's steps.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter, ContractError
from conformance.world import ConfigWorld


def _params(config_world: ConfigWorld) -> dict[str, Any]:
    return dict(config_world.host)


def _file(adapter: Adapter, config_world: ConfigWorld, scope: str) -> Path:
    """The path of the global or project file, as the implementation reports it."""
    paths = config_world.paths
    if scope not in paths:
        result = adapter.request("config.show", _params(config_world))
        for item in result["files"]:
            paths[item["scope"]] = Path(item["path"])
    return paths[scope]


def _expand(adapter: Adapter, config_world: ConfigWorld, text: str) -> str:
    """Replace $GLOBAL and $PROJECT with the two file paths."""
    if "$GLOBAL" in text:
        text = text.replace("$GLOBAL", str(_file(adapter, config_world, "global")))
    if "$PROJECT" in text:
        text = text.replace("$PROJECT", str(_file(adapter, config_world, "project")))
    return text


def _write(adapter: Adapter, config_world: ConfigWorld, scope: str, text: str) -> None:
    path = _file(adapter, config_world, scope)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    config_world.before[scope] = path.read_bytes()


def _lookup(config: Any, path: str) -> Any:
    node = config
    for segment in path.split("."):
        assert isinstance(node, dict) and segment in node, f"{path} is missing from the effective configuration"
        node = node[segment]
    return node


def _same_json(actual: Any, expected: Any) -> bool:
    """Equal as JSON values: booleans are never numbers, 6 equals 6.0."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, dict):
        return isinstance(actual, dict) and actual.keys() == expected.keys() and all(
            _same_json(actual[key], expected[key]) for key in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            _same_json(a, e) for a, e in zip(actual, expected, strict=True))
    return bool(actual == expected)


def _run(adapter: Adapter, config_world: ConfigWorld, op: str, params: dict[str, Any]) -> None:
    try:
        config_world.result = adapter.request(op, {**_params(config_world), **params})
        config_world.error = None
    except ContractError as error:
        config_world.result = None
        config_world.error = error


# ------------------------------------------------------------------ given


@given("a DS4 config sandbox with a Pi home, an agent dir and a trusted project")
def given_sandbox(workdir: Path, config_world: ConfigWorld) -> None:
    for name in ("home", "agent", "project"):
        (workdir / name).mkdir()
    config_world.host = {
        "home": str(workdir / "home"),
        "cwd": str(workdir / "project"),
        "env": {"PI_CODING_AGENT_DIR": str(workdir / "agent")},
        "argv": ["--approve"],
    }


@given("the DS4 config project is not trusted")
def given_untrusted(config_world: ConfigWorld) -> None:
    config_world.host["argv"] = ["--no-approve"]


@given(parsers.re(r"the (?P<scope>global|project) DS4 config file contains:$"))
def given_file_text(adapter: Adapter, config_world: ConfigWorld, scope: str, docstring: str) -> None:
    _write(adapter, config_world, scope, docstring)


@given(parsers.re(r'the (?P<scope>global|project) DS4 config file sets "(?P<path>[^"]+)" to (?P<value>.+)$'))
def given_file_value(adapter: Adapter, config_world: ConfigWorld, scope: str, path: str, value: str) -> None:
    """Add one key (a JSON value, written as given) to the JSON object of that file."""
    entries = config_world.contents.setdefault(scope, [])
    entries.append((path, value))
    tree: dict[str, Any] = {}
    for dotted, raw in entries:
        node = tree
        *parents, leaf = dotted.split(".")
        for segment in parents:
            node = node.setdefault(segment, {})
        node[leaf] = raw
    _write(adapter, config_world, scope, _render(tree))


def _render(tree: dict[str, Any]) -> str:
    """JSON text of nested keys whose leaves are JSON texts, kept byte for byte (e.g. 6.5, 1e400)."""
    items = [f"{json.dumps(key)}: {_render(value) if isinstance(value, dict) else value}" for key, value in tree.items()]
    return "{" + ", ".join(items) + "}"


# ------------------------------------------------------------------ when


@when("the DS4 config is loaded")
def when_loaded(adapter: Adapter, config_world: ConfigWorld) -> None:
    config_world.shown = adapter.request("config.show", _params(config_world))


@when(parsers.re(r'DS4 config set "(?P<path>[^"]*)" to "(?P<value>.*)" is run(?P<flag> with --global)?$'))
def when_set(adapter: Adapter, config_world: ConfigWorld, path: str, value: str, flag: str | None) -> None:
    _run(adapter, config_world, "config.set", {"path": path, "value": value, "global": bool(flag)})


@when(parsers.parse('DS4 config set "{path}" to "{value}" is run with the options "{options}"'))
def when_set_options(adapter: Adapter, config_world: ConfigWorld, path: str, value: str, options: str) -> None:
    _run(adapter, config_world, "config.set",
         {"path": path, "value": value, "global": False, "options": options.split()})


@when(parsers.re(r'DS4 config unset "(?P<path>[^"]*)" is run(?P<flag> with --global)?$'))
def when_unset(adapter: Adapter, config_world: ConfigWorld, path: str, flag: str | None) -> None:
    _run(adapter, config_world, "config.unset", {"path": path, "global": bool(flag)})


# ------------------------------------------------------------------ then


@then("the DS4 config has no warnings")
def then_no_warnings(config_world: ConfigWorld) -> None:
    assert config_world.show["warnings"] == []


@then("the DS4 config warnings are exactly:")
def then_warnings(adapter: Adapter, config_world: ConfigWorld, docstring: str) -> None:
    expected = [line for line in _expand(adapter, config_world, docstring).splitlines() if line]
    assert config_world.show["warnings"] == expected


@then(parsers.re(r"the (?P<scope>global|project) DS4 config file is (?P<state_word>loaded|not loaded)$"))
def then_file_loaded(config_world: ConfigWorld, scope: str, state_word: str) -> None:
    files = {item["scope"]: item for item in config_world.show["files"]}
    assert files[scope]["loaded"] is (state_word == "loaded")


@then(parsers.re(r'the (?P<scope>global|project) DS4 config file is discarded with the message "(?P<message>.*)"$'))
def then_discarded_with(adapter: Adapter, config_world: ConfigWorld, scope: str, message: str) -> None:
    path = _file(adapter, config_world, scope)
    ignored = [w for w in config_world.show["warnings"] if w.startswith(f"{path}: configuration ignored: ")]
    assert ignored == [f"{path}: configuration ignored: {message}"], config_world.show["warnings"]
    files = {item["scope"]: item for item in config_world.show["files"]}
    assert files[scope]["loaded"] is False


@then(parsers.re(r"the (?P<scope>global|project) DS4 config file is discarded$"))
def then_discarded(adapter: Adapter, config_world: ConfigWorld, scope: str) -> None:
    path = _file(adapter, config_world, scope)
    warnings = config_world.show["warnings"]
    assert len(warnings) == 1 and warnings[0].startswith(f"{path}: configuration ignored: "), warnings


@then("the effective DS4 config values are:")
def then_values(config_world: ConfigWorld, datatable: list[list[str]]) -> None:
    header, *rows = datatable
    assert header == ["path", "value"]
    for path, value in rows:
        actual = _lookup(config_world.show["config"], path)
        assert _same_json(actual, json.loads(value)), (path, actual)


@then(parsers.parse('the effective DS4 config value "{path}" is {value} after a new start'))
def then_value_after_restart(adapter: Adapter, config_world: ConfigWorld, path: str, value: str) -> None:
    shown = adapter.request("config.show", _params(config_world))
    assert _same_json(_lookup(shown["config"], path), json.loads(value))


@then(parsers.re(r'the effective DS4 config value "(?P<path>[^"]+)" is (?P<value>(?!.* after a new start$).+)$'))
def then_value(config_world: ConfigWorld, path: str, value: str) -> None:
    actual = _lookup(config_world.show["config"], path)
    assert _same_json(actual, json.loads(value)), (path, actual)


@then("the DS4 config show text has the lines:")
def then_show_lines(adapter: Adapter, config_world: ConfigWorld, docstring: str) -> None:
    lines = config_world.show["text"].splitlines()
    for expected in _expand(adapter, config_world, docstring).splitlines():
        if expected:
            assert expected in lines, f"missing line {expected!r} in:\n" + "\n".join(lines)


@then("the DS4 config show text has one row for each of these paths:")
def then_show_rows(config_world: ConfigWorld, docstring: str) -> None:
    lines = config_world.show["text"].splitlines()
    for path in filter(None, docstring.splitlines()):
        assert sum(1 for line in lines if line.startswith(path + " ")) == 1, path


@then("the DS4 config command succeeds")
def then_succeeds(config_world: ConfigWorld) -> None:
    error = config_world.error
    assert error is None, f"{error.code}: {error.message}"
    assert isinstance(config_world.reply["message"], str)


@then("the DS4 config reply says the change applies from the next Pi session")
def then_next_session(config_world: ConfigWorld) -> None:
    assert "next Pi session" in config_world.reply["message"]


@then("the DS4 config reply warnings are exactly:")
def then_reply_warnings(config_world: ConfigWorld, docstring: str) -> None:
    assert config_world.reply["warnings"] == [line for line in docstring.splitlines() if line]


@then(parsers.parse('the DS4 config command fails with code "{code}"'))
def then_fails(config_world: ConfigWorld, code: str) -> None:
    error = config_world.error
    assert error is not None, f"expected {code}, got {config_world.result}"
    assert error.code == code, f"{error.code}: {error.message}"


@then(parsers.parse('the DS4 config error message is "{message}"'))
def then_error_message(adapter: Adapter, config_world: ConfigWorld, message: str) -> None:
    error = config_world.error
    assert error is not None, "the DS4 config command did not fail"
    assert error.message == _expand(adapter, config_world, message)


@then(parsers.re(r"the (?P<scope>global|project) DS4 config file contains exactly:$"))
def then_file_bytes(adapter: Adapter, config_world: ConfigWorld, scope: str, docstring: str) -> None:
    assert _file(adapter, config_world, scope).read_text(encoding="utf-8") == docstring + "\n"


@then(parsers.re(r"the (?P<scope>global|project) DS4 config file does not exist$"))
def then_no_file(adapter: Adapter, config_world: ConfigWorld, scope: str) -> None:
    assert not _file(adapter, config_world, scope).exists()


@then(parsers.re(r"the (?P<scope>global|project) DS4 config file is unchanged$"))
def then_unchanged(adapter: Adapter, config_world: ConfigWorld, scope: str) -> None:
    before = config_world.before[scope]
    assert _file(adapter, config_world, scope).read_bytes() == before
