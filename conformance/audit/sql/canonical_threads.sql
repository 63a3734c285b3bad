-- How many threads DuckDB may use: the audit reads that many blocks at once.
SELECT current_setting('threads');
