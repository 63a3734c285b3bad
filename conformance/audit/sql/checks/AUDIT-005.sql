-- A row's projected fields differ from its line's: which fields, by name (values are content).
SELECT entry_key, session_file, line_no, line_start, line_end, fields
FROM (
    SELECT rows.entry_key, rows.session_file, rows.line_no, rows.line_start, rows.line_end,
           list_filter([
               CASE WHEN rows.entry_id IS DISTINCT FROM rows.line_entry_id THEN 'entry_id' END,
               CASE WHEN rows.parent_id IS DISTINCT FROM rows.line_parent_id THEN 'parent_id' END,
               CASE WHEN rows.entry_type IS DISTINCT FROM rows.line_entry_type THEN 'entry_type' END,
               CASE WHEN rows.role IS DISTINCT FROM rows.line_role THEN 'role' END,
               CASE WHEN rows.created_at IS DISTINCT FROM rows.line_timestamp_ms THEN 'created_at' END,
               CASE WHEN rows.session_id IS DISTINCT FROM rows.line_session_id THEN 'session_id' END
           ], lambda field: field IS NOT NULL) AS fields
    FROM audited_rows AS rows
    WHERE rows.line_no IS NOT NULL
)
WHERE len(fields) > 0
ORDER BY session_file, line_no
