"""``python -m reference.cli`` is the ``recall-rebase`` console script."""

from __future__ import annotations

from reference.cli.main import main

raise SystemExit(main())
