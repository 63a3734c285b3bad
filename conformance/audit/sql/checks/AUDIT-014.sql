-- A rebase target file (ds4-rebase_<32 hex>.jsonl) in a session folder that no journal names.
SELECT entries.folder, entries.name
FROM audit_folder_entries AS entries
WHERE regexp_full_match(entries.name, 'ds4-rebase_[0-9a-f]{32}\.jsonl')
  AND NOT EXISTS (
      SELECT 1 FROM journals
      WHERE 'ds4-' || journals.operation_id || '.jsonl' = entries.name
         OR parse_filename(journals.target_session_file, false, 'both_slash') = entries.name)
ORDER BY entries.folder, entries.name
