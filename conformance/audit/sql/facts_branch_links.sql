-- The parent links of the entries of one file, in file order (its last entry is Pi's leaf).
SELECT entry_id, parent_id FROM jsonl_entries
WHERE session_file = $session_file AND pi_entry
ORDER BY line_no
