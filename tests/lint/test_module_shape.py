"""The house rules a reader relies on: small modules, and none named like a standard-library one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

MAX_LINES = 400
MODULES = sorted(p for package in ("reference", "conformance") for p in (REPO_ROOT / package).rglob("*.py")
                 if "_suite" not in p.parts)


def _name(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


@pytest.mark.parametrize("module", MODULES, ids=_name)
def test_a_module_can_be_read_in_one_sitting(module: Path) -> None:
    lines = len(module.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{_name(module)} has {lines} lines: split it by concept"


@pytest.mark.parametrize("module", MODULES, ids=_name)
def test_no_module_shadows_the_standard_library(module: Path) -> None:
    if module.stem in {"__init__", "__main__"}:
        return
    assert module.stem not in sys.stdlib_module_names, f"{_name(module)} shadows the standard library's {module.stem}"


ARCHITECTURE = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("module", MODULES, ids=_name)
def test_every_module_is_in_the_architecture_map(module: Path) -> None:
    if module.stem in {"__init__", "__main__"}:
        return
    package = module.parent.relative_to(REPO_ROOT).as_posix()
    top, _, sub = package.partition("/") if package.startswith("conformance/") else (package, "", "")
    name = f"{sub}/{module.stem}" if sub else module.stem
    heading = f"### `{top}/`"
    section = ARCHITECTURE.split(heading, 1)[-1].split("\n### ", 1)[0] if heading in ARCHITECTURE else ""
    assert f"| `{name}` |" in section, f"docs/architecture.md does not list {_name(module)} under {heading}"


def _mapped_modules() -> list[tuple[str, str]]:
    """Every ``| `name` |`` row of the architecture map, with the package heading it stands under."""
    rows: list[tuple[str, str]] = []
    for section in ARCHITECTURE.split("\n### `")[1:]:
        package, _, body = section.partition("/`")
        body = body.split("\n## ", 1)[0]
        rows.extend((package, line.split("`")[1]) for line in body.splitlines() if line.startswith("| `"))
    return rows


@pytest.mark.parametrize(("package", "name"), _mapped_modules(), ids=lambda value: str(value))
def test_every_module_in_the_architecture_map_exists(package: str, name: str) -> None:
    """The map names no module that moved or was removed (its row would mislead a reader)."""
    assert (REPO_ROOT / package / f"{name}.py").is_file(), f"docs/architecture.md lists {package}/{name}, which is gone"
