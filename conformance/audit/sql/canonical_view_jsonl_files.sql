-- jsonl_files: one row per session file: its size (the bytes read), its line count, whether it
-- ends with LF (an empty file does), its header (line, raw hash, session id, version, cwd; NULL
-- without one) and the catch-up cursor the file implies (contract §5.1): the offset just after
-- the last LF-terminated line, and the SHA-256 of at most the final 64 KiB up to it, starting no
-- earlier than that line.
CREATE OR REPLACE TEMP VIEW jsonl_files AS
SELECT files.session_file,
       coalesce(max(lines.end_offset), 0) AS size_bytes,
       count(lines.line_no) AS line_count,
       coalesce(arg_max(lines.terminated, lines.line_no), true) AS terminated,
       min(lines.line_no) FILTER (WHERE lines.kind = 'header') AS header_line_no,
       any_value(lines.sha256) FILTER (WHERE lines.kind = 'header') AS header_sha256,
       any_value(records.entry_id) FILTER (WHERE lines.kind = 'header') AS session_id,
       any_value(records.version_json) FILTER (WHERE lines.kind = 'header') AS version,
       any_value(records.cwd) FILTER (WHERE lines.kind = 'header') AS cwd,
       coalesce(max(lines.end_offset) FILTER (WHERE lines.terminated), 0) AS checkpoint_offset,
       arg_max(records.tail_hash_start, lines.line_no) FILTER (WHERE records.tail_sha256 IS NOT NULL)
           AS checkpoint_hash_start,
       arg_max(records.tail_sha256, lines.line_no) FILTER (WHERE records.tail_sha256 IS NOT NULL)
           AS checkpoint_hash
FROM canonical_files AS files
LEFT JOIN jsonl_lines AS lines USING (session_file)
LEFT JOIN canonical_records AS records USING (session_file, line_no)
GROUP BY files.session_file;
