"""Host facts that Pi 0.84.3 derives from its environment (decisions D9).

A Python process is not Pi, so every input Pi would take from its own process (home directory,
working directory, environment, command line) is passed in explicitly; nothing here reads
``os.environ``, the real home or the process cwd, and nothing is ever written. Files are only
read: ``<agentDir>/trust.json``, ``<agentDir>/settings.json`` and ``<cwd>/.pi/settings.json``.
Each rule names the Pi function it reproduces; ``docs/host.md`` has the reasoning.
"""

from __future__ import annotations

import json
import os
import string
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference.pi.host.files import read_text
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_parse
from reference.primitives.jsvalues import truthy
from reference.primitives.platform_ops.family import IS_WINDOWS
from reference.primitives.platform_ops.paths import default_session_dir, resolve_like_node, resolved_real_path

#: ``piConfig.configDir`` of Pi's package.json (config.js ``CONFIG_DIR_NAME``).
CONFIG_DIR_NAME: Final = ".pi"
#: config.js ``ENV_AGENT_DIR`` / ``ENV_SESSION_DIR`` for ``APP_NAME`` "pi".
AGENT_DIR_ENV: Final = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV: Final = "PI_CODING_AGENT_SESSION_DIR"
#: The feature's own saved-overrides file (contract §1.4).
CONFIG_FILE_NAME: Final = "ds4-context.json"
TRUST_FILE_NAME: Final = "trust.json"
SETTINGS_FILE_NAME: Final = "settings.json"
#: trust-manager.js ``TRUST_REQUIRING_PROJECT_CONFIG_RESOURCES``: entries of ``<cwd>/.pi`` that
#: make Pi ask about trust. ``ds4-context.json`` is not one of them.
TRUST_REQUIRING_CONFIG_ENTRIES: Final = (
    "settings.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)

#: cli/args.js ``parseArgs``: flags that take the next argument whenever there is one, even if it
#: looks like a flag (so ``--model --approve`` does not approve).
_VALUE_FLAGS: Final = frozenset(
    {
        "--mode", "--provider", "--model", "--api-key", "--system-prompt", "--append-system-prompt",
        "--name", "-n", "--session", "--session-id", "--fork", "--session-dir", "--models",
        "--tools", "-t", "--exclude-tools", "-xt", "--thinking", "--export", "--extension", "-e",
        "--skill", "--prompt-template", "--theme",
    }
)  # fmt: skip
_APPROVE_FLAGS: Final = frozenset({"--approve", "-a"})
_NO_APPROVE_FLAGS: Final = frozenset({"--no-approve", "-na"})



@dataclass(frozen=True)
class HostFacts:
    """What Pi would know about its host for one session start in ``cwd``."""

    agent_dir: str
    sessions_root: str
    session_dir: str
    session_dir_source: str
    project_trusted: bool
    trust_source: str
    config_dir_name: str
    global_config_path: str
    project_config_path: str

    def to_json(self) -> dict[str, Any]:
        """The ``host.facts`` result object of the adapter protocol."""
        return {
            "agentDir": self.agent_dir,
            "sessionsRoot": self.sessions_root,
            "sessionDir": self.session_dir,
            "projectTrusted": self.project_trusted,
            "trustSource": self.trust_source,
            "configDirName": self.config_dir_name,
            "globalConfigPath": self.global_config_path,
            "projectConfigPath": self.project_config_path,
        }


@dataclass(frozen=True)
class PiArgs:
    """The two host-relevant results of Pi's ``parseArgs``; ``None`` means "not given"."""

    session_dir: str | None = None
    trust_override: bool | None = None


def parse_pi_args(argv: Sequence[str]) -> PiArgs:
    """Scan argv as Pi's ``parseArgs`` does: last flag wins, ``--`` ends options, values are skipped.

    ``--approve=x`` or ``--session-dir=x`` are unknown flags to Pi (it then exits with "Unknown
    option"); they are ignored here, as are every other flag and Pi's argument errors.
    """
    session_dir: str | None = None
    override: bool | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        if arg in _VALUE_FLAGS and i + 1 < len(argv):
            if arg == "--session-dir":
                session_dir = argv[i + 1]
            i += 2
            continue
        if arg in _APPROVE_FLAGS:
            override = True
        elif arg in _NO_APPROVE_FLAGS:
            override = False
        i += 1
    return PiArgs(session_dir=session_dir, trust_override=override)


def normalize_pi_path(value: str, home: str, *, windows: bool = IS_WINDOWS) -> str:
    """utils/paths.js ``normalizePath`` with its defaults: shell drive paths (Windows), ``~``, ``file://``.

    ``~\\`` is expanded only on Windows, as Pi does.
    """
    if windows:
        value = _windows_shell_path(value)
    if value == "~":
        return home
    if value.startswith("~/") or (windows and value.startswith("~\\")):
        return os.path.join(home, value[2:])
    if value.startswith("file://"):
        return _file_url_to_path(value, windows=windows)
    return value


def _windows_shell_path(value: str) -> str:
    """utils/paths.js ``normalizeWindowsShellPath``: ``/c/x``, ``/mnt/c/x``, ``/cygdrive/c/x`` → ``C:\\x``."""
    if not value.startswith("/") or value.startswith("//") or "\\" in value:
        return value
    parts = value[1:].split("/")
    if parts[0] in ("mnt", "cygdrive") and len(parts) > 1:
        parts = parts[1:]
    drive = parts[0]
    if len(drive) != 1 or drive not in string.ascii_letters:
        return value
    return f"{drive.upper()}:\\" + "\\".join(parts[1:])


def _file_url_to_path(url: str, *, windows: bool) -> str:
    """Node's ``fileURLToPath`` for the URLs it accepts; the ones it throws on are refused."""
    parts = urllib.parse.urlsplit(url)
    host = "" if parts.netloc.lower() == "localhost" else parts.netloc
    if "%2f" in parts.path.lower() or (windows and "%5c" in parts.path.lower()):
        raise ContractViolation(
            Code.HOST_PATH_INVALID, f"file URL path must not include encoded separators: {url}"
        )
    path = urllib.parse.unquote(parts.path)
    if windows:
        if host:
            return "\\\\" + host + path.replace("/", "\\")
        if len(path) < 3 or path[2] != ":" or not path[1].isalpha():
            raise ContractViolation(Code.HOST_PATH_INVALID, f"file URL path must be absolute: {url}")
        return path[1:].replace("/", "\\")
    if host:
        raise ContractViolation(Code.HOST_PATH_INVALID, f"file URL host must be empty or localhost: {url}")
    return path


def _env_get(env: Mapping[str, str], name: str, *, windows: bool = IS_WINDOWS) -> str | None:
    """One environment variable; Windows variable names are case-insensitive."""
    if not windows:
        return env.get(name)
    matches = [value for key, value in env.items() if key.upper() == name]
    return matches[-1] if matches else None


def resolve_agent_dir(*, home: str, cwd: str, env: Mapping[str, str]) -> str:
    """config.js ``getAgentDir`` (non-empty ``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``), made absolute.

    Pi keeps a relative value relative, and every reader resolves it against the process cwd.
    """
    raw = _env_get(env, AGENT_DIR_ENV)
    agent_dir = normalize_pi_path(raw, home) if raw else os.path.join(home, CONFIG_DIR_NAME, "agent")
    return resolve_like_node(agent_dir, cwd)


def read_trust_store(path: str) -> dict[str, bool | None]:
    """trust-manager.js ``readTrustFile``: a missing file is empty; anything malformed is an error.

    Pi throws here and does not start, so the reference refuses with ``host-trust-store-invalid``.
    """
    if not os.path.exists(path):
        return {}
    try:
        data = js_parse(read_text(path), strip_bom=True)
    except (OSError, ValueError) as error:
        raise ContractViolation(
            Code.HOST_TRUST_STORE_INVALID, f"Failed to read trust store {path}: {error}"
        ) from error
    if not isinstance(data, dict):
        raise ContractViolation(Code.HOST_TRUST_STORE_INVALID, f"Invalid trust store {path}: expected an object")
    store: dict[str, bool | None] = {}
    for key, value in data.items():
        if not (value is True or value is False or value is None):
            raise ContractViolation(
                Code.HOST_TRUST_STORE_INVALID,
                f"Invalid trust store {path}: value for {json.dumps(key, ensure_ascii=False)} must be true, false, or null",
            )
        store[key] = value
    return store


def nearest_trust_decision(store: Mapping[str, bool | None], trust_cwd: str) -> tuple[str, bool] | None:
    """trust-manager.js ``findNearestTrustEntry``: the first true/false on the cwd or an ancestor.

    Keys are compared as exact strings; ``null`` means "no decision here", so the walk goes on.
    """
    current = trust_cwd
    while True:
        value = store.get(current)
        if value is True or value is False:
            return current, value
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def has_trust_requiring_resources(*, cwd: str, home: str) -> bool:
    """trust-manager.js ``hasTrustRequiringProjectResources``: only these make Pi ask about trust.

    A listed entry in ``<cwd>/.pi``, or ``.agents/skills`` in the cwd or an ancestor other than
    ``<home>/.agents/skills``. A bare ``.pi`` (or one holding only ``ds4-context.json``) does not count.
    """
    user_skills = os.path.join(resolved_real_path(home), ".agents", "skills")  # normalizeCwd: real, never lower-cased
    current = resolved_real_path(cwd)
    config_dir = os.path.join(current, CONFIG_DIR_NAME)
    if any(os.path.exists(os.path.join(config_dir, entry)) for entry in TRUST_REQUIRING_CONFIG_ENTRIES):
        return True
    while True:
        skills = os.path.join(current, ".agents", "skills")
        if skills != user_skills and os.path.exists(skills):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def read_settings(path: str) -> dict[str, Any]:
    """settings-manager.js ``tryLoadFromStorage``: a missing, unreadable or malformed file counts as ``{}``.

    Pi only prints a warning for those. A JSON array also ends up contributing no keys.
    """
    try:
        text = read_text(path)
        data = js_parse(text, strip_bom=True) if text else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def default_project_trust(global_settings: Mapping[str, Any]) -> str:
    """settings-manager.js ``getDefaultProjectTrust``: global settings only; anything but always/never is ask."""
    value = global_settings.get("defaultProjectTrust")
    return value if value in ("always", "never") else "ask"


def resolve_project_trust(
    *, cwd: str, home: str, agent_dir: str, trust_override: bool | None
) -> tuple[bool, str]:
    """core/project-trust.js ``resolveProjectTrusted`` for a host without UI and without extensions.

    Order: CLI flag, no trust-requiring resources (trusted), closest saved decision,
    ``defaultProjectTrust`` always/never, else "ask", which without a UI means untrusted.
    """
    if trust_override is not None:
        return trust_override, "flag"
    if not has_trust_requiring_resources(cwd=cwd, home=home):
        return True, "no-project-resources"
    store = read_trust_store(os.path.join(agent_dir, TRUST_FILE_NAME))
    saved = nearest_trust_decision(store, resolved_real_path(cwd))
    if saved is not None:
        return saved[1], "saved"
    default = default_project_trust(read_settings(os.path.join(agent_dir, SETTINGS_FILE_NAME)))
    if default != "ask":
        return default == "always", "default"
    return False, "ask"


def resolve_session_dir(
    *, home: str, cwd: str, env: Mapping[str, str], agent_dir: str, flag: str | None
) -> tuple[str, str]:
    """main.js ``main``: ``--session-dir``, else ``PI_CODING_AGENT_SESSION_DIR``, else settings ``sessionDir``.

    Empty values fall through. ``sessionDir`` comes from global settings merged with the project's
    ``.pi/settings.json``, which Pi reads here even for an untrusted project. An override is used
    as the session folder itself (no ``--<cwd>--`` below it) and a relative one is taken from cwd.
    """
    raw: str | None = None
    source = "default"
    env_value = _env_get(env, SESSION_DIR_ENV)
    if flag:
        raw, source = flag, "flag"
    elif env_value:
        raw, source = env_value, "env"
    else:
        settings = read_settings(os.path.join(agent_dir, SETTINGS_FILE_NAME))
        project = read_settings(os.path.join(cwd, CONFIG_DIR_NAME, SETTINGS_FILE_NAME))
        value = project["sessionDir"] if "sessionDir" in project else settings.get("sessionDir")
        if truthy(value):
            if not isinstance(value, str):
                raise ContractViolation(
                    Code.HOST_SETTINGS_INVALID, f"settings sessionDir must be a string, got {json.dumps(value)}"
                )
            raw, source = value, "settings"
    if raw is None:
        return default_session_dir(agent_dir, cwd), source
    return resolve_like_node(normalize_pi_path(raw, home), cwd), source


def resolve_host(*, home: str, cwd: str, env: Mapping[str, str], argv: Sequence[str]) -> HostFacts:
    """All host facts for a ``pi [argv]`` session started in ``cwd`` (a new or continued session).

    ``home`` stands for both ``os.homedir()`` and ``$HOME``; ``cwd`` for ``process.cwd()``.
    """
    for name, value in (("home", home), ("cwd", cwd)):
        if not value or not os.path.isabs(value):
            raise ContractViolation(Code.INVALID_PARAMS, f"{name} must be an absolute path, got {value!r}")
    resolved_cwd = os.path.normpath(cwd)
    args = parse_pi_args(argv)
    agent_dir = resolve_agent_dir(home=home, cwd=resolved_cwd, env=env)
    session_dir, session_source = resolve_session_dir(
        home=home, cwd=resolved_cwd, env=env, agent_dir=agent_dir, flag=args.session_dir
    )
    trusted, trust_source = resolve_project_trust(
        cwd=resolved_cwd, home=home, agent_dir=agent_dir, trust_override=args.trust_override
    )
    return HostFacts(
        agent_dir=agent_dir,
        sessions_root=os.path.join(agent_dir, "sessions"),
        session_dir=session_dir,
        session_dir_source=session_source,
        project_trusted=trusted,
        trust_source=trust_source,
        config_dir_name=CONFIG_DIR_NAME,
        global_config_path=os.path.join(agent_dir, CONFIG_FILE_NAME),
        project_config_path=os.path.join(resolved_cwd, CONFIG_DIR_NAME, CONFIG_FILE_NAME),
    )


_PARAM_KEYS: Final = frozenset({"home", "cwd", "env", "argv"})


def op_host_facts(params: dict[str, Any]) -> dict[str, Any]:
    """Adapter operation ``host.facts``: ``{home, cwd, env?, argv?}`` → the facts as camelCase JSON."""
    if not isinstance(params, dict):
        raise ContractViolation(Code.INVALID_PARAMS, "params must be an object")
    unknown = sorted(set(params) - _PARAM_KEYS)
    if unknown:
        raise ContractViolation(Code.INVALID_PARAMS, f"unknown params: {', '.join(unknown)}")
    home, cwd = params.get("home"), params.get("cwd")
    env = params.get("env", {})
    argv = params.get("argv", [])
    if not isinstance(home, str) or not isinstance(cwd, str):
        raise ContractViolation(Code.INVALID_PARAMS, "home and cwd must be strings")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise ContractViolation(Code.INVALID_PARAMS, "env must be an object of strings")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise ContractViolation(Code.INVALID_PARAMS, "argv must be an array of strings")
    return resolve_host(home=home, cwd=cwd, env=env, argv=argv).to_json()
