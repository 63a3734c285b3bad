"""``python -m conformance`` is the ``recall-rebase`` console script."""

from __future__ import annotations

from conformance.cli import main

raise SystemExit(main())
