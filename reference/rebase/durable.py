"""The rebase target's install (contract §6.5 step 6) with its two crash points (decision D11).

The no-overwrite durable write itself, and every platform branch under it, is
``reference.primitives.platform_ops.durable``; this names the points a crash test stops at.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from reference.artifacts.phases import CrashPoint
from reference.primitives import platform_ops


def install_no_overwrite(target: Path, data: bytes, *, crash: Callable[[str], None] | None = None) -> None:
    """Install ``data`` as ``target`` atomically, refusing (and changing nothing) if it exists.

    ``crash`` is called with ``TargetStaged`` and ``TargetInstalled`` (``crashpoints.reached``).
    """
    if crash is None:
        platform_ops.install_no_overwrite(target, data)
        return
    platform_ops.install_no_overwrite(
        target, data, on_staged=partial(crash, CrashPoint.TARGET_STAGED),
        on_installed=partial(crash, CrashPoint.TARGET_INSTALLED),
    )
