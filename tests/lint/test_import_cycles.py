"""No import cycle in ``reference/``, ``conformance/`` or ``tools/``, counting every import form.

The graph is read from the source with :mod:`ast`, so it sees what Python would run at any
moment and what a type checker reads: module-level imports, imports inside a function or a
method, and imports under ``if TYPE_CHECKING:``. A cycle is a strongly connected component of
that graph with more than one module; the failure names its modules and every import line that
closes it (``path:line: statement``). Each tree is its own test id, so one tree's cycle does not
hide the state of the others. ``tools/`` is a folder of scripts, not a package: Python puts it
first on ``sys.path``, so its modules are named from there (``mutation.judge``), as they import
each other. import-linter's ``acyclic_siblings`` contract (pyproject.toml) says the same of
``conformance`` from grimp's graph (grimp cannot see ``tools/``: ``mutation`` is not importable
from the checkout); this test is the one that prints each cycle's import lines.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

#: Each tree and the folder its module names start from: a package from the root, the scripts from
#: their own folder.
TREES = ("reference", "conformance", "tools")
SCRIPT_FOLDERS = frozenset({"tools"})


@dataclass(frozen=True)
class ImportLine:
    """One import statement of one module that reaches another module of the trees."""

    importer: str
    imported: str
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def module_files(root: Path, trees: Iterable[str]) -> dict[str, Path]:
    """Every module of the trees under ``root`` by its dotted name (a package by its folder's)."""
    found: dict[str, Path] = {}
    for tree in trees:
        start = root / tree if tree in SCRIPT_FOLDERS else root
        for path in sorted((root / tree).rglob("*.py")):
            parts = list(path.relative_to(start).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def tree_of(path: str) -> str:
    """The tree a module's file (relative to the root) stands in."""
    return path.split("/", 1)[0]


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    """The longest dotted prefix of ``name`` that is a module of the trees."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
             modules: Mapping[str, Path]) -> set[str]:
    """The modules of the trees one import statement loads (``from p import m`` loads ``p.m``)."""
    if isinstance(node, ast.Import):
        return {found for alias in node.names if (found := _known(alias.name, modules))}
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, *([base] if base else [])])
    found_targets: set[str] = set()
    for alias in node.names:
        found = _known(f"{base}.{alias.name}", modules) or _known(base, modules)
        if found:
            found_targets.add(found)
    return found_targets


def import_lines(root: Path, trees: Iterable[str]) -> list[ImportLine]:
    """Every import between two modules of the trees, wherever in its module the statement stands."""
    modules = module_files(root, trees)
    lines: list[ImportLine] = []
    for module, path in modules.items():
        source = path.read_text(encoding="utf-8")
        text = source.splitlines()
        for node in ast.walk(ast.parse(source, filename=str(path))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for imported in sorted(_targets(node, module, path.name == "__init__.py", modules) - {module}):
                lines.append(ImportLine(module, imported, path.relative_to(root).as_posix(), node.lineno,
                                        text[node.lineno - 1].strip()))
    return lines


def cycles(lines: Iterable[ImportLine]) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted (Tarjan, iterative)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for line in lines:
        graph[line.importer].add(line.imported)
        graph.setdefault(line.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def cycle_report(component: list[str], lines: Iterable[ImportLine]) -> str:
    """A cycle's modules, then the import lines between them."""
    members = set(component)
    inside = sorted((line for line in lines if line.importer in members and line.imported in members),
                    key=lambda line: (line.path, line.line, line.imported))
    return "\n".join([f"import cycle of {len(component)} modules: {', '.join(component)}",
                      *(f"    {line}   ({line.importer} -> {line.imported})" for line in inside)])


def tree_cycles(root: Path, tree: str) -> list[str]:
    """The report of every cycle with a module in ``tree`` (the graph spans every tree)."""
    lines = import_lines(root, TREES)
    trees = {line.importer: tree_of(line.path) for line in lines}
    return [cycle_report(component, lines) for component in cycles(lines)
            if any(trees.get(member) == tree for member in component)]


@pytest.mark.parametrize("tree", TREES)
def test_the_tree_has_no_import_cycle(tree: str) -> None:
    found = tree_cycles(REPO_ROOT, tree)
    assert not found, f"{tree}/ has {len(found)} import cycle(s):\n" + "\n".join(found)


# The check itself, on planted trees: each import form closes a cycle it must see.

def _plant(root: Path, files: Mapping[str, str]) -> Path:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    for tree in TREES:
        (root / tree).mkdir(exist_ok=True)
    return root


@pytest.mark.parametrize(
    ("closing", "form"),
    [
        ("from conformance.b import x\n", "module level"),
        ("def f() -> None:\n    from conformance.b import x  # noqa\n", "function-local"),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from conformance.b import x\n", "TYPE_CHECKING"),
        ("class C:\n    def m(self) -> None:\n        import conformance.b\n", "method-local plain import"),
        ("from . import b\n", "relative"),
    ],
)
def test_every_import_form_closes_a_cycle(tmp_path: Path, closing: str, form: str) -> None:
    root = _plant(tmp_path, {"conformance/__init__.py": "", "conformance/a.py": closing,
                             "conformance/b.py": "from conformance.a import y\n"})
    found = tree_cycles(root, "conformance")
    assert len(found) == 1, form
    assert "conformance.a, conformance.b" in found[0]
    assert "conformance/a.py:" in found[0] and "conformance/b.py:1: from conformance.a import y" in found[0]
    assert tree_cycles(root, "reference") == [] and tree_cycles(root, "tools") == []


def test_a_chain_without_a_way_back_is_no_cycle(tmp_path: Path) -> None:
    root = _plant(tmp_path, {"tools/a.py": "import b\n", "tools/b.py": "def f() -> None:\n    from m import c  # noqa\n",
                             "tools/m/__init__.py": "", "tools/m/c.py": "import json\n"})
    assert tree_cycles(root, "tools") == []


def test_the_scripts_are_named_from_their_own_folder(tmp_path: Path) -> None:
    root = _plant(tmp_path, {"tools/run.py": "from m import c\n", "tools/m/__init__.py": "",
                             "tools/m/c.py": "def f() -> None:\n    import run  # noqa\n"})
    (found,) = tree_cycles(root, "tools")
    assert found.splitlines()[0] == "import cycle of 2 modules: m.c, run"
    assert "tools/m/c.py:2: import run" in found


def test_a_longer_cycle_names_every_module_once(tmp_path: Path) -> None:
    root = _plant(tmp_path, {"reference/__init__.py": "", "reference/p/__init__.py": "",
                             "reference/p/a.py": "from reference.p import b\n",
                             "reference/p/b.py": "from reference.p.c import z\n",
                             "reference/p/c.py": "def g() -> None:\n    import reference.p.a  # noqa\n",
                             "reference/p/d.py": "import reference.p.a\n"})
    (found,) = tree_cycles(root, "reference")
    assert found.splitlines()[0] == "import cycle of 3 modules: reference.p.a, reference.p.b, reference.p.c"
    assert "reference/p/c.py:2: import reference.p.a" in found
    assert "reference.p.d" not in found
