-- jsonl_entries: every line Pi keeps as a session entry (kind 'entry'), with the fields a projection
-- stores: the entry key "<sessionId>:<entryId>" (session id from the file's header), ids, type,
-- message role, the timestamp as epoch ms (JavaScript Date.parse), and whether it is a valid Pi
-- entry (a string type other than "session", a string id, a string or null parentId, a string
-- timestamp), the only entries an index keeps.
CREATE OR REPLACE TEMP VIEW jsonl_entries AS
SELECT lines.session_file, lines.line_no, lines.start_offset, lines.end_offset, lines.sha256,
       headers.session_id, headers.session_id || ':' || records.entry_id AS entry_key,
       records.is_object, records.entry_id, records.parent_id, records.parent_id_json_type,
       records.entry_type, records.role, records.timestamp_text,
       canonical_date_ms(records.timestamp_text) AS timestamp_ms, records.first_kept_entry_id,
       records.is_object AND records.entry_type IS NOT NULL AND records.entry_type <> 'session'
           AND records.entry_id IS NOT NULL AND records.parent_id_json_type IN ('VARCHAR', 'NULL')
           AND records.timestamp_text IS NOT NULL AS pi_entry,
       records.utf8_valid
FROM jsonl_lines AS lines
JOIN canonical_records AS records USING (session_file, line_no)
LEFT JOIN (
    SELECT header_lines.session_file, header_records.entry_id AS session_id
    FROM jsonl_lines AS header_lines
    JOIN canonical_records AS header_records USING (session_file, line_no)
    WHERE header_lines.kind = 'header'
) AS headers USING (session_file)
WHERE lines.kind = 'entry';
