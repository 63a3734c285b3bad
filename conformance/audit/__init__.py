"""``recall-rebase audit``: DuckDB holds the projections and journals against the canonical JSONL."""
