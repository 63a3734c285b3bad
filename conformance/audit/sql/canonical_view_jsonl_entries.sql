-- jsonl_entries: every line Pi keeps as a session entry (kind 'entry'), with the fields a projection
-- stores: ids, type, message role and the timestamp as epoch ms (JavaScript Date.parse).
CREATE OR REPLACE TEMP VIEW jsonl_entries AS
SELECT lines.session_file, lines.line_no, lines.start_offset, lines.end_offset, lines.sha256,
       records.is_object, records.entry_id, records.parent_id, records.parent_id_json_type,
       records.entry_type, records.role, records.timestamp_text,
       canonical_date_ms(records.timestamp_text) AS timestamp_ms, records.first_kept_entry_id,
       records.utf8_valid
FROM jsonl_lines AS lines
JOIN canonical_records AS records USING (session_file, line_no)
WHERE lines.kind = 'entry';
