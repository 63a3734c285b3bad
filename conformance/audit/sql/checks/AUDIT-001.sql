-- An entry line the projection has caught up with (it ends at or before the cursor) has no entry row.
SELECT lines.session_id, lines.entry_id, lines.session_file, lines.line_no, lines.start_offset, lines.end_offset,
       lines.sha256
FROM audited_lines AS lines
WHERE lines.before_cursor AND NOT lines.shadowed
  AND lines.entry_key NOT IN (SELECT entry_key FROM proj_entries WHERE entry_key IS NOT NULL)
ORDER BY lines.session_file, lines.line_no
