"""One module owns every OS-dependent primitive: no other module of ``reference/`` reaches for
the platform or for a call whose meaning differs between Linux, macOS and Windows."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

OWNER = REPO_ROOT / "reference" / "primitives" / "platform_ops"
#: What only ``platform_ops`` may name (docs/platforms.md, "One module owns every OS-dependent primitive").
PLATFORM_WORDS = re.compile(
    r"\bsys\.platform\b|\bos\.name\b|\bO_NOFOLLOW\b|\bO_NONBLOCK\b|\bO_EXCL\b|\bfcntl\b|\bmsvcrt\b|\bst_ino\b"
    r"|\bst_dev\b|\bst_ctime(_ns)?\b|\bos\.link\b|\bos\.fsync\b|\bos\.pread\b|\bos\.chmod\b|\brealpath\b|\bnormcase\b"
)
MODULES = sorted(p for p in (REPO_ROOT / "reference").rglob("*.py") if OWNER not in p.parents)


def _code_without_comments_and_strings(path: Path) -> str:
    """The module's text with every comment and string literal blanked out."""
    text = path.read_text(encoding="utf-8")
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    code = list(text)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            begin = starts[token.start[0] - 1] + token.start[1]
            end = starts[token.end[0] - 1] + token.end[1]
            code[begin:end] = " " * (end - begin)
    return "".join(code)


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_only_platform_ops_names_a_platform_primitive(module: Path) -> None:
    found = sorted({m.group(0) for m in PLATFORM_WORDS.finditer(_code_without_comments_and_strings(module))})
    assert found == [], f"{module.name} uses {found}: move it into reference/primitives/platform_ops"


def test_the_check_sees_a_platform_branch(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('import sys\n# sys.platform in a comment\nX = "os.link"\nif sys.platform == "win32":\n    pass\n')
    assert [m.group(0) for m in PLATFORM_WORDS.finditer(_code_without_comments_and_strings(module))] == ["sys.platform"]
