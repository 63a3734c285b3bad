-- An entry row of a session whose file is audited has no entry line with its key in that file.
SELECT rows.session_id, rows.entry_key, rows.entry_id, rows.content_hash
FROM audited_rows AS rows
WHERE rows.line_no IS NULL
ORDER BY rows.session_id, rows.entry_key
