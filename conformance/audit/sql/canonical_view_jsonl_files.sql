-- jsonl_files: one row per session file: its size (the bytes read), its line count, whether it
-- ends with LF (an empty file does), and its header's line, session id, version and cwd (NULL
-- without a header).
CREATE OR REPLACE TEMP VIEW jsonl_files AS
SELECT files.session_file,
       coalesce(max(lines.end_offset), 0) AS size_bytes,
       count(lines.line_no) AS line_count,
       coalesce(arg_max(lines.terminated, lines.line_no), true) AS terminated,
       min(lines.line_no) FILTER (WHERE lines.kind = 'header') AS header_line_no,
       any_value(records.entry_id) FILTER (WHERE lines.kind = 'header') AS session_id,
       any_value(records.version_json) FILTER (WHERE lines.kind = 'header') AS version,
       any_value(records.cwd) FILTER (WHERE lines.kind = 'header') AS cwd
FROM canonical_files AS files
LEFT JOIN jsonl_lines AS lines USING (session_file)
LEFT JOIN canonical_records AS records USING (session_file, line_no)
GROUP BY files.session_file;
