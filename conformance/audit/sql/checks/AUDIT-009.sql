-- SQLite's quick_check, or an integrity statement of the mapping (FTS5's 'integrity-check'), fails.
SELECT source AS statement, message FROM audit_integrity WHERE NOT ok ORDER BY source
