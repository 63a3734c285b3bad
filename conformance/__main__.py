"""``python -m conformance``: the toolkit alone (``run``, ``check``, ``list``)."""

from __future__ import annotations

from conformance.cli import main

raise SystemExit(main())
