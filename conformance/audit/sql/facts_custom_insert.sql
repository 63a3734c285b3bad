-- DuckDB reads each custom entry's customType and data from its line (a line it cannot read gives NULLs).
INSERT INTO jsonl_custom
SELECT session_file, line_no, entry_id,
       TRY(json_extract_string(line_text, '$.customType')),
       TRY(json_extract(line_text, '$.data'))::VARCHAR,
       on_active_branch
FROM jsonl_custom_lines
