"""The wrong-path matrix under pytest-xdist: each worker runs the cells of the tests it is sent.

A worker's session lists every collected test, not its share, so a fixture that ran "every
selected cell" ran the whole matrix once in every worker. The matrix now runs a batch of cells
when a test first asks for one (test_wrong_paths.Matrix); its fixture says, at teardown, how many
cells it ran, and ``-rP`` shows that line for every worker.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from testkit.paths import REPO_ROOT

SLOTS_ASKED = "audit-sql or audit-views"  # 26 cells, three batches: enough to tell shared from all-in-each


def test_two_workers_share_the_cells_instead_of_each_running_all_of_them() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "worksteal", "-rP", "-p", "no:cacheprovider",
         "tests/cli/test_wrong_paths.py", "-k", f"test_a_wrong_path_is_refused and ({SLOTS_ASKED})"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    selected = int(re.search(r"(\d+) passed", done.stdout).group(1))  # type: ignore[union-attr]
    ran = [int(n) for n in re.findall(r"wrong-path matrix: (\d+) cells in", done.stdout)]
    assert selected == 2 * 13 and len(ran) == 2, done.stdout[-3000:]
    # worksteal may move a test whose batch one worker already ran, so a cell can run twice; never
    # every cell in every worker, which is what a fixture over request.session.items did
    assert sum(ran) < 2 * selected, f"cells run per worker: {ran} of {selected}"
