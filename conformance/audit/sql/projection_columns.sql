-- The columns of one audit view, in declaration order (the contract a filler must meet).
SELECT column_name, data_type
FROM duckdb_columns()
WHERE table_name = ? AND schema_name = 'main'
ORDER BY column_index;
