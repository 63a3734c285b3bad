"""Configuration (contract §1): defaults, validation, layering, show, set/unset, CLI and schema."""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from testkit.paths import REPO_ROOT
from testkit.profiles import examples

from conformance.protocol import ContractError
from reference.adapter.operations import ReferenceAdapter
from reference.cli import config_command as cli_config
from reference.config.catalog import CATALOG, INTEGER_BOUNDS, find_field
from reference.config.commands import (
    op_config_set,
    op_config_show,
    op_config_unset,
    run_config_command,
    split_tokens,
)
from reference.config.defaults import SCHEMA_ID, default_config
from reference.config.dotted_paths import get_path
from reference.config.edits import set_value, unset_value
from reference.config.layering import LoadedConfig, load_config
from reference.config.show import render_show
from reference.config.validation import validate_config
from reference.pi.host.facts import HostFacts
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify_pretty
from reference.primitives.jsvalues import is_safe_integer, typeof

SCHEMA_PATH = REPO_ROOT / "schemas" / "config" / "ds4-context.schema.json"


@dataclass(frozen=True)
class Layout:
    root: Path
    global_path: Path
    project_path: Path

    def host(self, trusted: bool = True) -> HostFacts:
        """Host facts whose two configuration files are this layout's (the rest is not read)."""
        return HostFacts(agent_dir=str(self.global_path.parent), sessions_root="", session_dir="",
                         session_dir_source="", project_trusted=trusted, trust_source="", config_dir_name=".pi",
                         global_config_path=str(self.global_path), project_config_path=str(self.project_path))

    def load(self, trusted: bool = True) -> LoadedConfig:
        return load_config(global_path=str(self.global_path), project_path=str(self.project_path),
                               project_trusted=trusted)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return Layout(tmp_path, tmp_path / "agent" / "ds4-context.json", tmp_path / "project" / ".pi" / "ds4-context.json")


def write(path: Path, content: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def discard_message(loaded: LoadedConfig, path: Path) -> str:
    """The single 'configuration ignored' message recorded for ``path``."""
    prefix = f"{path}: configuration ignored: "
    matches = [w[len(prefix):] for w in loaded.warnings if w.startswith(prefix)]
    assert len(matches) == 1, loaded.warnings
    return matches[0]


# ----------------------------------------------------------------------------- defaults


FEATURE_DEFAULTS = {
    "enabled": True,
    "historyTools.enabled": True,
    "historyTools.defaultScope": "current-branch",
    "historyTools.maxResults": 6,
    "historyTools.maxOutputTokens": 3000,
    "historyTools.allowProjectScope": False,
    "historyTools.includeSummaries": False,
    "historyTools.maxProjectSessions": 100,
    "sessionRebase.enabled": True,
    "sessionRebase.mode": "manual",
    "sessionRebase.suggestAfterCompactions": 6,
    "sessionRebase.suggestAboveSessionMiB": 50,
    "sessionRebase.checkpointTargetTokens": 8000,
    "sessionRebase.preserveSource": True,
    "retrieval.exact": True,
    "retrieval.fts": True,
    "retrieval.semantic": False,
    "context.mode": "managed",
    "memory.enabled": True,
    "privacy.enabled": False,
    "privacy.defaultClassification": "normal",
    "privacy.localProviders": ["faux", "ollama", "llama-cpp", "lmstudio"],
    "privacy.remoteDefaultAllowed": ["normal", "internal"],
    "privacy.remoteProviders": {},
    "privacy.redactSecrets": True,
}


@pytest.mark.parametrize(("path", "expected"), FEATURE_DEFAULTS.items())
def test_defaults_without_files(layout: Layout, path: str, expected: Any) -> None:
    loaded = layout.load()
    assert get_path(loaded.config, path) == expected
    assert type(get_path(loaded.config, path)) is type(expected)
    assert loaded.warnings == ()
    assert [(f.scope, f.loaded) for f in loaded.files] == [("global", False), ("project", False)]


def test_defaults_pass_validation_and_copies_are_independent() -> None:
    validate_config(default_config())
    first = default_config()
    first["historyTools"]["maxResults"] = 1
    assert default_config()["historyTools"]["maxResults"] == 6


def test_schema_id() -> None:
    assert SCHEMA_ID == "ds4-context-config-v1"


def test_catalog_covers_the_feature_with_upstream_kinds() -> None:
    kinds = {item.path: item.kind for item in CATALOG}
    assert set(kinds) == set(FEATURE_DEFAULTS)
    assert len(CATALOG) == 25
    for path in ("historyTools.enabled", "historyTools.allowProjectScope", "historyTools.includeSummaries",
                 "sessionRebase.enabled", "sessionRebase.preserveSource"):
        assert kinds[path] == "boolean"
    for path in ("historyTools.maxResults", "historyTools.maxOutputTokens", "historyTools.maxProjectSessions",
                 "sessionRebase.suggestAfterCompactions", "sessionRebase.suggestAboveSessionMiB",
                 "sessionRebase.checkpointTargetTokens"):
        assert kinds[path] == "integer"
    scope = find_field("historyTools.defaultScope")
    mode = find_field("sessionRebase.mode")
    assert scope is not None and scope.values == ("current-branch", "current-session", "current-lineage")
    assert mode is not None and mode.values == ("manual",)
    assert find_field("compaction.enabled") is None


@pytest.mark.parametrize("path", list(INTEGER_BOUNDS))
def test_catalog_descriptions_state_the_ranges(path: str) -> None:
    item = find_field(path)
    assert item is not None and item.kind == "integer"
    low, high = INTEGER_BOUNDS[path]
    assert f"{low} to {high}" in item.description


# ----------------------------------------------------------------------------- validation


def split(path: str) -> tuple[str, str]:
    section, key = path.split(".")
    return section, key


@pytest.mark.parametrize("path", list(INTEGER_BOUNDS))
@pytest.mark.parametrize("edge", ["min", "max"])
def test_integer_bounds_are_inclusive(layout: Layout, path: str, edge: str) -> None:
    low, high = INTEGER_BOUNDS[path]
    section, key = split(path)
    value = low if edge == "min" else high
    write(layout.global_path, {section: {key: value}})
    loaded = layout.load()
    assert loaded.warnings == ()
    assert loaded.config[section][key] == value
    assert loaded.files[0].loaded


@pytest.mark.parametrize("path", list(INTEGER_BOUNDS))
@pytest.mark.parametrize("edge", ["below", "above"])
def test_integer_out_of_range_discards_the_file(layout: Layout, path: str, edge: str) -> None:
    low, high = INTEGER_BOUNDS[path]
    section, key = split(path)
    write(layout.global_path, {section: {key: low - 1 if edge == "below" else high + 1}, "enabled": False})
    loaded = layout.load()
    assert discard_message(loaded, layout.global_path) == f"{section}.{key} must be an integer between {low} and {high}"
    assert loaded.config["enabled"] is True  # the whole file is gone, not just the bad key
    assert loaded.config[section][key] == FEATURE_DEFAULTS[path]
    assert not loaded.files[0].loaded


@pytest.mark.parametrize("literal", ["6.5", "9007199254740992", "9007199254740993", "1e300", "-0.5"])
def test_non_safe_integers_fail_the_range_rule(layout: Layout, literal: str) -> None:
    write(layout.global_path, '{"historyTools": {"maxProjectSessions": ' + literal + "}}")
    message = discard_message(layout.load(), layout.global_path)
    assert message == "historyTools.maxProjectSessions must be an integer between 1 and 500"


def test_integral_float_counts_as_integer(layout: Layout) -> None:
    write(layout.global_path, '{"historyTools": {"maxResults": 6.0e0}}')
    loaded = layout.load()
    assert loaded.warnings == ()
    assert loaded.config["historyTools"]["maxResults"] == 6


@pytest.mark.parametrize("literal", ["true", '"6"', "null", "[6]", "1e400", "-1e999"])
def test_integer_with_the_wrong_javascript_type_is_a_key_warning(layout: Layout, literal: str) -> None:
    write(layout.global_path, '{"historyTools": {"maxResults": ' + literal + ', "maxOutputTokens": 500}}')
    loaded = layout.load()
    assert loaded.warnings == (
        f"{layout.global_path}: Invalid configuration value ignored: historyTools.maxResults has the wrong type",
    )
    assert loaded.config["historyTools"]["maxResults"] == 6
    assert loaded.config["historyTools"]["maxOutputTokens"] == 500  # the rest of the file applies


@pytest.mark.parametrize("scope", ["current-branch", "current-session", "current-lineage"])
def test_default_scope_accepts_the_three_scopes(layout: Layout, scope: str) -> None:
    write(layout.global_path, {"historyTools": {"defaultScope": scope}})
    assert layout.load().config["historyTools"]["defaultScope"] == scope


@pytest.mark.parametrize("scope", ["project", "", "Current-Branch"])
def test_default_scope_rejects_anything_else(layout: Layout, scope: str) -> None:
    write(layout.global_path, {"historyTools": {"defaultScope": scope}})
    assert discard_message(layout.load(), layout.global_path) == (
        "historyTools.defaultScope must be current-branch, current-session or current-lineage"
    )


@pytest.mark.parametrize("rebase", [{"mode": "auto"}, {"preserveSource": False}, {"mode": "x", "preserveSource": False}])
def test_mode_and_preserve_source_share_one_error(layout: Layout, rebase: dict[str, Any]) -> None:
    write(layout.global_path, {"sessionRebase": rebase})
    assert discard_message(layout.load(), layout.global_path) == "sessionRebase requires manual mode and preserveSource=true"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"sessionRebase": {"mode": "auto", "checkpointTargetTokens": 1}},
         "sessionRebase requires manual mode and preserveSource=true"),
        ({"sessionRebase": {"checkpointTargetTokens": 1, "suggestAfterCompactions": 0}},
         "sessionRebase.checkpointTargetTokens must be an integer between 512 and 24000"),
        ({"historyTools": {"defaultScope": "project"}, "sessionRebase": {"suggestAboveSessionMiB": 0}},
         "sessionRebase.suggestAboveSessionMiB must be an integer between 1 and 1024"),
        ({"historyTools": {"defaultScope": "project", "maxResults": 0}},
         "historyTools.defaultScope must be current-branch, current-session or current-lineage"),
        ({"historyTools": {"maxResults": 0, "maxOutputTokens": 1}},
         "historyTools.maxResults must be an integer between 1 and 12"),
        ({"historyTools": {"maxProjectSessions": 0}, "context": {"mode": "auto"}},
         "historyTools.maxProjectSessions must be an integer between 1 and 500"),
        ({"context": {"mode": "auto"}, "retrieval": {"maxResults": 0}}, "context.mode must be observer or managed"),
    ],
)
def test_first_failing_rule_wins_in_upstream_order(layout: Layout, content: dict[str, Any], message: str) -> None:
    write(layout.global_path, content)
    assert discard_message(layout.load(), layout.global_path) == message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"privacy": {"defaultClassification": "secret"}}, "privacy.defaultClassification is invalid"),
        ({"privacy": {"localProviders": None}}, "privacy.localProviders must contain non-empty provider names"),
        ({"privacy": {"localProviders": ["Ollama", " ollama "]}}, "privacy.localProviders must not contain duplicates"),
        ({"privacy": {"remoteDefaultAllowed": ["normal", "local-only"]}},
         "privacy.remoteDefaultAllowed cannot allow local-only content to a remote provider"),
        ({"privacy": {"remoteDefaultAllowed": ["public"]}},
         "privacy.remoteDefaultAllowed must contain only normal, internal, sensitive, local-only"),
        ({"privacy": {"remoteProviders": {"ollama": ["normal"]}}}, "privacy provider ollama cannot be both local and remote"),
        ({"privacy": {"remoteProviders": {"openai": ["normal", "normal"]}}},
         "privacy.remoteProviders.openai must not contain duplicates"),
        ({"retrieval": {"maxResults": 101}}, "retrieval.maxResults must be a positive integer at most 100"),
        ({"retrieval": {"embedding": {"mode": "remote"}}},
         "remote embedding requires exact provider/model consent in retrieval.embedding.remoteProfiles"),
        ({"compaction": {"model": {"provider": "a b", "id": "x"}}},
         "compaction.model.provider and compaction.model.id must be non-empty trimmed tokens without whitespace or slashes"),
        ({"storage": {"busyTimeoutMs": 0}}, "storage.busyTimeoutMs must be an integer between 1 and 60000"),
        ({"context": {"targetFillRatio": 0.95}},
         "context ratios must satisfy targetFillRatio <= softLimitRatio <= hardLimitRatio"),
    ],
)
def test_other_sections_validate_like_upstream(layout: Layout, content: dict[str, Any], message: str) -> None:
    write(layout.global_path, content)
    assert discard_message(layout.load(), layout.global_path) == message


# ----------------------------------------------------------------------------- merge warnings


def test_unknown_keys_are_warned_and_ignored(layout: Layout) -> None:
    write(layout.global_path, {"historyTools": {"maxResult": 3, "maxResults": 4}, "bogus": {"x": 1}})
    loaded = layout.load()
    assert loaded.warnings == (
        f"{layout.global_path}: Unknown configuration key ignored: historyTools.maxResult",
        f"{layout.global_path}: Unknown configuration key ignored: bogus",
    )
    assert loaded.config["historyTools"]["maxResults"] == 4
    assert "bogus" not in loaded.config


@pytest.mark.parametrize("value", [True, None, [1], "x", 3])
def test_non_object_where_an_object_is_expected(layout: Layout, value: Any) -> None:
    write(layout.global_path, {"historyTools": value, "enabled": False})
    loaded = layout.load()
    assert loaded.warnings == (
        f"{layout.global_path}: Invalid configuration value ignored: historyTools must be an object",
    )
    assert loaded.config["enabled"] is False
    assert loaded.config["historyTools"]["maxResults"] == 6


@pytest.mark.parametrize(("key", "value"), [("enabled", 1), ("enabled", None), ("enabled", "true"),
                                            ("allowProjectScope", 0), ("defaultScope", None)])
def test_typeof_mismatch_against_the_default(layout: Layout, key: str, value: Any) -> None:
    write(layout.global_path, {"historyTools": {key: value}})
    loaded = layout.load()
    assert loaded.warnings == (
        f"{layout.global_path}: Invalid configuration value ignored: historyTools.{key} has the wrong type",
    )


def test_warnings_of_a_discarded_file_are_dropped(layout: Layout) -> None:
    write(layout.global_path, {"bogus": 1, "historyTools": {"maxResults": 99}})
    loaded = layout.load()
    assert len(loaded.warnings) == 1
    assert "Unknown configuration key" not in loaded.warnings[0]


def test_prototype_chain_names_are_plain_unknown_keys(layout: Layout) -> None:
    write(layout.global_path, '{"constructor": 1, "__proto__": {"enabled": false}}')
    loaded = layout.load()
    assert loaded.warnings == (
        f"{layout.global_path}: Unknown configuration key ignored: constructor",
        f"{layout.global_path}: Unknown configuration key ignored: __proto__",
    )
    assert loaded.config["enabled"] is True


def test_optional_upstream_keys_are_accepted(layout: Layout) -> None:
    write(layout.global_path, {"compaction": {"model": {"provider": "openai", "id": "mini"}},
                               "modelAwareness": {"autoTune": True}})
    loaded = layout.load()
    assert loaded.warnings == ()
    assert loaded.config["compaction"]["model"] == {"provider": "openai", "id": "mini"}
    assert loaded.config["modelAwareness"]["autoTune"] is True


def test_remote_providers_merge_entry_by_entry_across_layers(layout: Layout) -> None:
    write(layout.global_path, {"privacy": {"remoteProviders": {"openai": ["normal"]}}})
    write(layout.project_path, {"privacy": {"remoteProviders": {"anthropic": ["normal", "internal"]}}})
    assert layout.load().config["privacy"]["remoteProviders"] == {
        "openai": ["normal"], "anthropic": ["normal", "internal"]}


# ----------------------------------------------------------------------------- whole-file discard


@pytest.mark.parametrize("text", ["{", '{"enabled": false,}', "", "NaN", '{"a": Infinity}', "\ufeff{}", "{} {}"])
def test_unparseable_json_discards_the_file(layout: Layout, text: str) -> None:
    write(layout.global_path, text)
    loaded = layout.load()
    assert discard_message(loaded, layout.global_path)
    assert loaded.config == default_config()


@pytest.mark.parametrize("text", ["[]", "1", '"x"', "null"])
def test_non_object_top_level_discards_the_file(layout: Layout, text: str) -> None:
    write(layout.global_path, text)
    assert discard_message(layout.load(), layout.global_path) == "top-level JSON value must be an object"


def test_directory_in_place_of_the_file_is_discarded(layout: Layout) -> None:
    layout.global_path.mkdir(parents=True)
    loaded = layout.load()
    assert discard_message(loaded, layout.global_path).startswith("cannot read the file")


def test_discarded_project_file_keeps_the_global_layer(layout: Layout) -> None:
    write(layout.global_path, {"historyTools": {"maxResults": 3}})
    write(layout.project_path, {"historyTools": {"maxResults": 4, "maxOutputTokens": 100}})
    loaded = layout.load()
    assert loaded.config["historyTools"]["maxResults"] == 3
    assert discard_message(loaded, layout.project_path) == (
        "historyTools.maxOutputTokens must be an integer between 256 and 6000")
    assert [f.loaded for f in loaded.files] == [True, False]


# ----------------------------------------------------------------------------- layering


def test_project_beats_global_beats_defaults(layout: Layout) -> None:
    write(layout.global_path, {"historyTools": {"maxResults": 3, "maxOutputTokens": 1000}})
    write(layout.project_path, {"historyTools": {"maxResults": 4}})
    loaded = layout.load()
    assert loaded.config["historyTools"]["maxResults"] == 4
    assert loaded.config["historyTools"]["maxOutputTokens"] == 1000
    assert loaded.config["historyTools"]["maxProjectSessions"] == 100
    assert [(f.scope, f.path, f.loaded) for f in loaded.files] == [
        ("global", str(layout.global_path), True), ("project", str(layout.project_path), True)]


def test_untrusted_project_file_is_skipped_with_a_warning(layout: Layout) -> None:
    write(layout.project_path, {"historyTools": {"maxResults": 4}})
    loaded = layout.load(trusted=False)
    assert loaded.config["historyTools"]["maxResults"] == 6
    assert loaded.warnings == (
        f"{layout.project_path}: project configuration skipped because the project is not trusted",)
    assert not loaded.files[1].loaded


def test_untrusted_project_without_a_file_gives_no_warning(layout: Layout) -> None:
    assert layout.load(trusted=False).warnings == ()


def test_project_file_is_validated_on_top_of_the_global_layer(layout: Layout) -> None:
    # The candidate is the merged one: a global value stays subject to the project's file checks.
    write(layout.global_path, {"privacy": {"localProviders": ["openai"]}})
    write(layout.project_path, {"privacy": {"remoteProviders": {"openai": ["normal"]}}})
    loaded = layout.load()
    assert discard_message(loaded, layout.project_path) == "privacy provider openai cannot be both local and remote"


def test_a_loaded_configuration_does_not_follow_later_edits(layout: Layout) -> None:
    loaded = layout.load()
    set_value("historyTools.maxResults", "3", global_target=True, host=layout.host())
    assert loaded.config["historyTools"]["maxResults"] == 6
    shown = run_config_command("show", loaded=loaded, host=layout.host())
    assert "historyTools.maxResults" in shown and " 3 " not in shown.split("historyTools.maxResults")[1].splitlines()[0]
    assert layout.load().config["historyTools"]["maxResults"] == 3  # the next start sees it


# ----------------------------------------------------------------------------- show


def row(text: str, path: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(path + " "))


def test_show_header_files_and_warnings(layout: Layout) -> None:
    write(layout.global_path, {"bogus": 1})
    text = render_show(layout.load())
    lines = text.splitlines()
    assert lines[0] == "DS4 Context Configuration (ds4-context-config-v1)"
    assert lines[2] == "Enabled:                   yes"
    assert lines[3] == f"Global file:               {layout.global_path} (loaded)"
    assert lines[4] == f"Project file:              {layout.project_path}"
    assert lines[5] == "Configuration warnings:    1"
    assert lines[6] == f"  - {layout.global_path}: Unknown configuration key ignored: bogus"
    assert "[historyTools]" in lines and "[sessionRebase]" in lines
    assert sum(1 for item in CATALOG if any(line.startswith(item.path + " ") for line in lines)) == 25
    assert "next Pi session" in text


def test_show_row_has_active_default_and_hints(layout: Layout) -> None:
    write(layout.global_path, {"historyTools": {"defaultScope": "current-lineage"}, "enabled": False})
    text = render_show(layout.load())
    expected = ("historyTools.defaultScope".ljust(48) + "  " + '"current-lineage"'.ljust(28) + "  "
                + '"current-branch"'.ljust(28) + "  current-branch|current-session|current-lineage enum")
    assert row(text, "historyTools.defaultScope") == expected
    assert text.splitlines()[2].endswith("no")
    assert row(text, "privacy.remoteProviders").endswith("classification-map optional")


@pytest.mark.parametrize(
    ("providers", "cell"),
    [
        (["abcdefghijklmnopqrstuv"], '["abcdefghijklmnopqrstuv"]'),  # 26 chars: kept
        (["abcdefghijklmnopqrstuvw"], '["abcdefghijklmnopqrstuvw…'),  # 27 chars: 25 + …
        (["a" + "\U0001f642" * 12], '["a' + "\U0001f642" * 11 + "…"),  # UTF-16 units, pair kept whole
    ],
)
def test_show_shortens_long_values(layout: Layout, providers: list[str], cell: str) -> None:
    write(layout.global_path, {"privacy": {"localProviders": providers}})
    line = row(render_show(layout.load()), "privacy.localProviders")
    assert line[50:].startswith(cell + " ")
    assert line[50:].count("…") == (2 if cell.endswith("…") else 1)  # the default cell is always long


# ----------------------------------------------------------------------------- set


def test_set_writes_the_project_file_as_pretty_json(layout: Layout) -> None:
    change = set_value("historyTools.maxResults", "8", global_target=False, host=layout.host())
    assert layout.project_path.read_bytes() == b'{\n  "historyTools": {\n    "maxResults": 8\n  }\n}\n'
    assert change.file == str(layout.project_path) and change.scope == "project"
    assert change.message.splitlines()[0] == (
        f"Set historyTools.maxResults = 8 in {layout.project_path} (project configuration).")
    assert "next Pi session" in change.message
    assert change.warnings == ()


def test_set_requires_a_trusted_project_and_suggests_global(layout: Layout) -> None:
    with pytest.raises(ContractViolation) as caught:
        set_value("historyTools.maxResults", "8", global_target=False, host=layout.host(trusted=False))
    assert caught.value.code == "config-project-untrusted"
    assert "--global" in caught.value.message
    assert not layout.project_path.parent.exists()


def test_set_global_writes_the_agent_file(layout: Layout) -> None:
    change = set_value("sessionRebase.enabled", "false", global_target=True, host=layout.host(False))
    assert json.loads(layout.global_path.read_text()) == {"sessionRebase": {"enabled": False}}
    assert change.scope == "global"
    assert layout.load().config["sessionRebase"]["enabled"] is False


def test_set_keeps_other_keys_and_replaces_a_non_object_parent(layout: Layout) -> None:
    write(layout.global_path, {"zeta": 1, "historyTools": 5, "privacy": {"enabled": True}})
    change = set_value("historyTools.enabled", "FALSE", global_target=True, host=layout.host())
    assert json.loads(layout.global_path.read_text()) == {
        "zeta": 1, "historyTools": {"enabled": False}, "privacy": {"enabled": True}}
    assert list(json.loads(layout.global_path.read_text())) == ["zeta", "historyTools", "privacy"]
    assert change.warnings == ("Unknown configuration key ignored: zeta",)
    assert change.message.splitlines()[-1] == "Warning: Unknown configuration key ignored: zeta"


def test_set_writes_numbers_as_javascript(layout: Layout) -> None:
    write(layout.global_path, '{"context": {"targetFillRatio": 0.70, "recentTailTokens": 6.4e4}, "x": 1e21}')
    set_value("retrieval.fts", "false", global_target=True, host=layout.host())
    text = layout.global_path.read_text()
    assert '"targetFillRatio": 0.7,' in text and '"recentTailTokens": 64000' in text and '"x": 1e+21' in text


@pytest.mark.parametrize(
    ("path", "raw", "expected"),
    [
        ("historyTools.enabled", " True ", True),
        ("historyTools.enabled", "false", False),
        ("historyTools.maxResults", "007", 7),
        ("historyTools.maxResults", "\u00a012\n", 12),
        ("historyTools.defaultScope", "current-session", "current-session"),
        ("privacy.localProviders", '["ollama", "vllm"]', ["ollama", "vllm"]),
        ("privacy.remoteDefaultAllowed", '["normal"]', ["normal"]),
        ("privacy.remoteProviders", '{"openai": ["normal", "internal"]}', {"openai": ["normal", "internal"]}),
    ],
)
def test_set_parses_values_by_kind(layout: Layout, path: str, raw: str, expected: Any) -> None:
    set_value(path, raw, global_target=True, host=layout.host())
    assert get_path(layout.load().config, path) == expected


@pytest.mark.parametrize(
    ("path", "raw", "message"),
    [
        ("historyTools.enabled", "yes", "historyTools.enabled: expected true or false"),
        ("historyTools.maxResults", "6.0", "historyTools.maxResults: expected a safe integer"),
        ("historyTools.maxResults", "9007199254740992", "historyTools.maxResults: expected a safe integer"),
        ("historyTools.maxResults", "١٢", "historyTools.maxResults: expected a safe integer"),
        ("historyTools.maxResults", "9" * 5000, "historyTools.maxResults: expected a safe integer"),
        ("historyTools.defaultScope", "Current-Branch",
         "historyTools.defaultScope: expected one of current-branch, current-session, current-lineage"),
        ("sessionRebase.mode", "auto", "sessionRebase.mode: expected one of manual"),
        ("privacy.localProviders", "[ollama]", "privacy.localProviders: expected valid JSON"),
        ("privacy.localProviders", '["a", 1]', "privacy.localProviders: expected a JSON array of strings"),
        ("privacy.remoteDefaultAllowed", '["public"]',
         'privacy.remoteDefaultAllowed: invalid value "public"; allowed: normal, internal, sensitive, local-only'),
        ("privacy.remoteDefaultAllowed", '["normal", "normal"]',
         "privacy.remoteDefaultAllowed: duplicate values are not allowed"),
        ("privacy.remoteProviders", "[]", "privacy.remoteProviders: expected a JSON object"),
        ("privacy.remoteProviders", '{" ": ["normal"]}', "privacy.remoteProviders: provider names must not be empty"),
        ("privacy.remoteProviders", '{"x": "normal"}',
         'privacy.remoteProviders: provider "x" must map to an array of normal, internal, sensitive, local-only'),
    ],
)
def test_set_rejects_values_that_do_not_parse(layout: Layout, path: str, raw: str, message: str) -> None:
    with pytest.raises(ContractViolation) as caught:
        set_value(path, raw, global_target=True, host=layout.host())
    assert (caught.value.code, caught.value.message) == ("config-invalid-value", message)
    assert not layout.global_path.exists()


def test_set_unknown_path_points_to_the_list(layout: Layout) -> None:
    with pytest.raises(ContractViolation) as caught:
        set_value("historyTools.maxResult", "1", global_target=True, host=layout.host())
    assert caught.value.code == "config-unknown-path"
    assert caught.value.message == "Unknown configuration key: historyTools.maxResult. See /context config for the full list."


@pytest.mark.parametrize(("text", "detail"), [("{oops", "malformed JSON"), ("[1]", "must contain a JSON object")])
def test_set_refuses_a_malformed_existing_file(layout: Layout, text: str, detail: str) -> None:
    write(layout.global_path, text)
    with pytest.raises(ContractViolation) as caught:
        set_value("historyTools.maxResults", "4", global_target=True, host=layout.host())
    assert caught.value.code == "config-file-malformed"
    assert detail in caught.value.message and str(layout.global_path) in caught.value.message
    assert layout.global_path.read_text() == text


def test_set_writes_nothing_when_the_file_would_be_invalid(layout: Layout) -> None:
    original = '{"historyTools": {"maxOutputTokens": 100}}'
    write(layout.global_path, original)
    with pytest.raises(ContractViolation) as caught:
        set_value("historyTools.maxResults", "4", global_target=True, host=layout.host())
    assert (caught.value.code, caught.value.message) == (
        "config-invalid", "historyTools.maxOutputTokens must be an integer between 256 and 6000")
    assert layout.global_path.read_text() == original


def test_set_out_of_range_creates_no_file(layout: Layout) -> None:
    with pytest.raises(ContractViolation) as caught:
        set_value("sessionRebase.checkpointTargetTokens", "511", global_target=False, host=layout.host())
    assert caught.value.message == "sessionRebase.checkpointTargetTokens must be an integer between 512 and 24000"
    assert not layout.project_path.exists()
    assert not any(layout.root.rglob("*.tmp"))


def test_set_preserve_source_false_is_refused(layout: Layout) -> None:
    with pytest.raises(ContractViolation) as caught:
        set_value("sessionRebase.preserveSource", "false", global_target=True, host=layout.host())
    assert caught.value.message == "sessionRebase requires manual mode and preserveSource=true"


# ----------------------------------------------------------------------------- unset


def test_unset_removes_the_key_and_prunes_empty_parents(layout: Layout) -> None:
    write(layout.global_path, {"historyTools": {"maxResults": 4}, "enabled": True})
    change = unset_value("historyTools.maxResults", global_target=True, host=layout.host())
    assert layout.global_path.read_text() == '{\n  "enabled": true\n}\n'
    assert change.message.splitlines()[0] == f"Unset historyTools.maxResults in {layout.global_path} (global configuration)."


def test_unset_keeps_a_parent_that_still_has_keys(layout: Layout) -> None:
    write(layout.project_path, {"historyTools": {"maxResults": 4, "enabled": False}})
    unset_value("historyTools.maxResults", global_target=False, host=layout.host())
    assert json.loads(layout.project_path.read_text()) == {"historyTools": {"enabled": False}}


def test_unset_of_the_last_key_leaves_an_empty_object(layout: Layout) -> None:
    write(layout.project_path, {"privacy": {"redactSecrets": False}})
    unset_value("privacy.redactSecrets", global_target=False, host=layout.host())
    assert layout.project_path.read_text() == "{}\n"


@pytest.mark.parametrize("content", [None, {}, {"historyTools": {}}, {"historyTools": 3}])
def test_unset_of_a_key_that_is_not_set(layout: Layout, content: Any) -> None:
    if content is not None:
        write(layout.global_path, content)
    with pytest.raises(ContractViolation) as caught:
        unset_value("historyTools.maxResults", global_target=True, host=layout.host())
    assert caught.value.code == "config-not-set"
    assert caught.value.message == f"historyTools.maxResults is not set in {layout.global_path}"


def test_unset_writes_nothing_when_the_rest_is_invalid(layout: Layout) -> None:
    original = '{"historyTools": {"maxResults": 40, "enabled": false}}'
    write(layout.global_path, original)
    with pytest.raises(ContractViolation) as caught:
        unset_value("historyTools.enabled", global_target=True, host=layout.host())
    assert caught.value.code == "config-invalid"
    assert layout.global_path.read_text() == original


def test_unset_in_an_untrusted_project(layout: Layout) -> None:
    with pytest.raises(ContractViolation) as caught:
        unset_value("historyTools.enabled", global_target=False, host=layout.host(trusted=False))
    assert caught.value.code == "config-project-untrusted"


# ----------------------------------------------------------------------------- typed commands


def run_command(layout: Layout, args: str, trusted: bool = True) -> str:
    return run_config_command(args, loaded=layout.load(trusted), host=layout.host(trusted))


@pytest.mark.parametrize(
    ("args", "unknown"),
    [("set historyTools.maxResults 5 --force", "--force"),
     ("unset historyTools.maxResults --dry-run=1 --Force --global", "--dry-run, --force")],
)
def test_only_the_global_option_is_accepted(layout: Layout, args: str, unknown: str) -> None:
    with pytest.raises(ContractViolation) as caught:
        run_command(layout, args)
    assert (caught.value.code, caught.value.message) == ("config-unknown-option", f"Unknown option(s): {unknown}")
    assert not layout.global_path.exists() and not layout.project_path.exists()


def test_global_option_anywhere_and_in_any_case(layout: Layout) -> None:
    run_command(layout, "set --GLOBAL historyTools.maxResults 5", trusted=False)
    assert json.loads(layout.global_path.read_text()) == {"historyTools": {"maxResults": 5}}


def test_quoted_json_value_and_dash_dash(layout: Layout) -> None:
    run_command(layout, """set privacy.localProviders '["a b", "c"]' --global""")
    run_command(layout, "set --global -- historyTools.maxResults 4")
    assert layout.load().config["privacy"]["localProviders"] == ["a b", "c"]
    assert layout.load().config["historyTools"]["maxResults"] == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [("set historyTools.maxResults", "Usage: /context config set <path> <value> [--global]"),
     ("unset", "Usage: /context config unset <path> [--global]"),
     ("unset a b", "Usage: /context config unset <path> [--global]"),
     ("reset", "Usage: /context config [show|set|unset] (show is the default)"),
     ("set x 'open", "Unterminated quote in /context arguments")],
)
def test_command_usage_errors(layout: Layout, args: str, message: str) -> None:
    with pytest.raises(ContractViolation) as caught:
        run_command(layout, args)
    assert (caught.value.code, caught.value.message) == ("config-usage", message)


def test_show_is_the_default_command(layout: Layout) -> None:
    assert run_command(layout, "") == run_command(layout, "SHOW") == render_show(layout.load())


def test_tokens_follow_quotes_and_backslashes() -> None:
    assert split_tokens(r""" a "b c" 'd"e' f\ g h\"""") == ["a", "b c", 'd"e', "f g", 'h"']


# ----------------------------------------------------------------------------- adapter operations


def host_params(tmp_path: Path, trusted: bool) -> dict[str, Any]:
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "work").mkdir(exist_ok=True)
    return {"home": str(tmp_path / "home"), "cwd": str(tmp_path / "work"),
            "env": {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")},
            "argv": ["--approve"] if trusted else ["--no-approve"]}


def test_op_show_result(tmp_path: Path) -> None:
    params = host_params(tmp_path, trusted=True)
    write(tmp_path / "work" / ".pi" / "ds4-context.json", {"historyTools": {"maxResults": 2}})
    result = op_config_show(params)
    assert set(result) == {"schema", "config", "warnings", "files", "text"}
    assert result["schema"] == "ds4-context-config-v1"
    assert result["config"]["historyTools"]["maxResults"] == 2
    assert result["files"] == [
        {"scope": "global", "path": str(tmp_path / "agent" / "ds4-context.json"), "loaded": False},
        {"scope": "project", "path": str(tmp_path / "work" / ".pi" / "ds4-context.json"), "loaded": True},
    ]
    assert result["text"].startswith("DS4 Context Configuration (ds4-context-config-v1)")


def test_op_set_and_unset(tmp_path: Path) -> None:
    params = host_params(tmp_path, trusted=False)
    result = op_config_set({**params, "path": "historyTools.includeSummaries", "value": "true", "global": True})
    assert set(result) == {"message", "warnings", "file"}
    assert result["file"] == str(tmp_path / "agent" / "ds4-context.json")
    assert op_config_show(params)["config"]["historyTools"]["includeSummaries"] is True
    result = op_config_unset({**params, "path": "historyTools.includeSummaries", "global": True})
    assert result["warnings"] == []
    with pytest.raises(ContractViolation) as caught:
        op_config_set({**params, "path": "historyTools.includeSummaries", "value": "true", "global": False})
    assert caught.value.code == "config-project-untrusted"


def test_op_options_are_checked_first(tmp_path: Path) -> None:
    params = host_params(tmp_path, trusted=True)
    with pytest.raises(ContractViolation) as caught:
        op_config_set({**params, "path": "nope", "value": "x", "global": False, "options": ["--force"]})
    assert (caught.value.code, caught.value.message) == ("config-unknown-option", "Unknown option(s): --force")
    op_config_set({**params, "path": "historyTools.maxResults", "value": "3", "global": False,
                   "options": ["--global"]})
    assert (tmp_path / "agent" / "ds4-context.json").exists()


@pytest.mark.parametrize("bad", [{"path": 3}, {"global": "yes"}, {"options": "--global"}, {"value": None},
                                 {"env": ["A"]}, {"env": {"A": 1}}, {"argv": "-a"}, {"argv": [1]}])
def test_op_bad_params(tmp_path: Path, bad: dict[str, Any]) -> None:
    """Through the adapter's edge, as both transports check a request against its schema."""
    params = {**host_params(tmp_path, trusted=True), "path": "enabled", "value": "true", "global": False, **bad}
    with pytest.raises(ContractError) as caught:
        ReferenceAdapter().request("config.set", params)
    assert caught.value.code == "invalid-params"


# ----------------------------------------------------------------------------- CLI


def cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="recall-rebase")
    cli_config.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    result: int = args.handler(args)
    return result


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    (tmp_path / "work").mkdir()
    return tmp_path


def test_cli_show_set_and_json(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work = str(cli_env / "work")
    assert cli(["config", "set", "historyTools.maxResults", "5", "--cwd", work, "--approve"]) == 0
    assert capsys.readouterr().out.startswith("Set historyTools.maxResults = 5 in ")
    assert cli(["config", "show", "--cwd", work, "--approve", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["config"]["historyTools"]["maxResults"] == 5
    assert cli(["config"]) == 0  # a bare ``config`` shows
    assert capsys.readouterr().out.startswith("DS4 Context Configuration")


def test_cli_error_is_one_line_and_exit_2(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work = str(cli_env / "work")
    assert cli(["config", "unset", "historyTools.maxResults", "--cwd", work, "--no-approve"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "recall-rebase: config-project-untrusted: Project configuration requires a trusted project; "
        "use /context config set/unset --global instead"]


# ----------------------------------------------------------------------------- JSON helpers and schema


@pytest.mark.parametrize(
    ("value", "text"),
    [({}, "{}"), ([], "[]"), ({"a": [1, {"b": None}]}, '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ]\n}'),
     ({"b": 1, "2": 0, "1": 0}, '{\n  "1": 0,\n  "2": 0,\n  "b": 1\n}'), (1e-7, "1e-7"), ("é\u2028", '"é\u2028"')],
)
def test_pretty_json_matches_javascript(value: Any, text: str) -> None:
    assert js_stringify_pretty(value) == text


def test_booleans_are_not_javascript_numbers() -> None:
    assert typeof(True) == "boolean" and typeof(None) == "object" and typeof([]) == "object"
    assert not is_safe_integer(True)
    assert is_safe_integer(2**53 - 1) and not is_safe_integer(2**53) and not is_safe_integer(math.nan)


@pytest.fixture(scope="module")
def schema_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "https://recall-rebase.invalid/schemas/config/ds4-context.schema.json"
    return jsonschema.Draft202012Validator(schema)


def test_schema_describes_every_catalog_path_with_its_default(schema_validator: jsonschema.Draft202012Validator) -> None:
    schema = schema_validator.schema
    for item in CATALOG:
        node = schema
        for segment in item.path.split("."):
            node = node["properties"][segment]
        assert node["default"] == item.default, item.path
    feature_only = {s: {k: v for k, v in default_config()[s].items() if f"{s}.{k}" in FEATURE_DEFAULTS}
                    for s in ("historyTools", "sessionRebase", "retrieval", "privacy", "memory", "context")}
    assert schema_validator.is_valid({"enabled": True, **feature_only})


FEATURE_VALUES = st.one_of(
    st.integers(min_value=-10, max_value=30000), st.booleans(), st.none(),
    st.sampled_from(["manual", "auto", "current-branch", "current-session", "current-lineage", "project",
                     "observer", "managed", "6"]),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e3, max_value=1e5),
)
FEATURE_KEYS = [path for path in FEATURE_DEFAULTS if not path.startswith("privacy.")]


@examples(deep=300, ci=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(FEATURE_KEYS), FEATURE_VALUES, max_size=5))
def test_schema_agrees_with_the_loader(
    tmp_path: Path, schema_validator: jsonschema.Draft202012Validator, values: dict[str, Any]
) -> None:
    document: dict[str, Any] = {}
    for path, value in values.items():
        if "." in path:
            section, key = path.split(".")
            document.setdefault(section, {})[key] = value
        else:
            document[path] = value
    target = write(tmp_path / "agent" / "ds4-context.json", document)
    loaded = load_config(global_path=str(target), project_path=str(tmp_path / "none.json"), project_trusted=True)
    accepted_cleanly = loaded.files[0].loaded and loaded.warnings == ()
    assert schema_validator.is_valid(document) == accepted_cleanly, (document, loaded.warnings)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="Windows has no FIFOs")
@pytest.mark.parametrize("command", [["show"], ["set", "historyTools.maxResults", "5"]])
def test_a_fifo_configuration_file_never_hangs_config(tmp_path: Path, command: list[str]) -> None:
    """Issue 12: ``config show``/``set`` on a FIFO gave a hang; now one coded line or a warning."""
    project = tmp_path / "project"
    (project / ".pi").mkdir(parents=True)
    os.mkfifo(project / ".pi" / "ds4-context.json")
    env = {**os.environ, "HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO_ROOT)}
    env.pop("PI_CODING_AGENT_DIR", None)
    done = subprocess.run([sys.executable, "-m", "reference.cli", "config", *command, "--cwd", str(project)],
                          env=env, capture_output=True, text=True, timeout=30, check=False)
    assert "Traceback" not in done.stderr
    assert "not a regular file" in done.stdout + done.stderr
    if command[0] == "set":
        assert done.returncode == 2 and done.stderr.startswith("recall-rebase: config-io-error: ")
    assert stat.S_ISFIFO((project / ".pi" / "ds4-context.json").lstat().st_mode)  # left as it was
