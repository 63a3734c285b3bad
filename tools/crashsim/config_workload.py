"""The ``config-set`` workload: a configuration file is the old one or the new one, never a mix."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from crashsim.running import Broken, Checked, Outcome, no_traceback, run_cli


class ConfigSet:
    """``recall-rebase config set sessionRebase.enabled true --global`` over an existing file."""

    name = "config-set"
    OLD: Final = b'{\n  "sessionRebase": {\n    "enabled": false\n  },\n  "historyTools": {\n    "enabled": true\n  }\n}\n'

    def __init__(self) -> None:
        self.new: bytes | None = None

    @staticmethod
    def _file(root: Path) -> Path:
        return root / "home" / ".pi" / "agent" / "ds4-context.json"

    def prepare(self, root: Path) -> None:
        self._file(root).parent.mkdir(parents=True)
        (root / "project").mkdir()
        self._file(root).write_bytes(self.OLD)

    def _set(self, root: Path) -> Outcome:
        return run_cli(root, ["config", "set", "sessionRebase.enabled", "true", "--global", "--cwd",
                              str(root / "project")])

    def run(self, root: Path) -> None:
        outcome = self._set(root)
        if outcome.code != 0:
            raise RuntimeError(f"the workload itself failed: {outcome}")
        self.new = self._file(root).read_bytes()

    def check(self, root: Path) -> Checked:
        path = self._file(root)
        data = path.read_bytes() if path.is_file() else None
        broken = []
        if data not in (self.OLD, self.new):
            shown = "absent" if data is None else f"{len(data)} bytes {data[:40]!r}"
            broken.append(Broken("config-old-or-new", f"the configuration file is {shown}"))
        show = run_cli(root, ["config", "show", "--json", "--cwd", str(root / "project")])
        return Checked(tuple(broken + no_traceback(show)), "traceback" if show.traceback else f"show exit {show.code}")
