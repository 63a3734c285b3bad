"""Pi's host: its folders, environment and small files (settings, trust store, ds4-context.json)."""
