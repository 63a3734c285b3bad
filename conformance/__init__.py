"""recall-rebase conformance toolkit: runner, adapter protocol, steps, reports and audit."""

from __future__ import annotations

__version__ = "0.1.0"
