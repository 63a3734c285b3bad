-- The custom entries of every session file: where their lines are, to read their data.
SELECT session_file, line_no, start_offset, end_offset, entry_id
FROM jsonl_entries
WHERE pi_entry AND entry_type = 'custom'
ORDER BY session_file, line_no
