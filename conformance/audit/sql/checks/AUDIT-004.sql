-- A row's content hash is not the SHA-256 of its line's bytes (without the LF, any CR kept).
SELECT rows.entry_key, rows.session_file, rows.line_no, rows.line_start, rows.line_end,
       rows.content_hash AS stored_hash, rows.line_sha256 AS line_hash
FROM audited_rows AS rows
WHERE rows.line_no IS NOT NULL AND rows.content_hash IS DISTINCT FROM rows.line_sha256
ORDER BY rows.session_file, rows.line_no
