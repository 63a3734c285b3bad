-- What the checks compare, once the connection is sealed (tables, made once: every check reads them):
-- which canonical file is the file of each
-- projection session, and which entry line is the line of each entry key.
CREATE OR REPLACE TEMP TABLE audited_files AS
SELECT files.session_file, files.session_id, paths.real_path, paths.folder, files.size_bytes, files.terminated,
       files.header_sha256, files.cwd, files.checkpoint_offset AS file_checkpoint_offset
FROM jsonl_files AS files JOIN audit_paths AS paths USING (session_file);

-- A projection session and its file: the audited file with its header id, the one at the path the
-- projection names when there are several.
CREATE OR REPLACE TEMP TABLE audited_sessions AS
SELECT ids.session_id,
       arg_min(files.session_file, CASE WHEN files.real_path = state.session_file
                                         OR files.session_file = state.session_file THEN 0 ELSE 1 END)
           AS session_file
FROM (SELECT session_id FROM proj_sessions UNION SELECT session_id FROM proj_state) AS ids
JOIN audited_files AS files USING (session_id)
LEFT JOIN proj_state AS state USING (session_id)
GROUP BY ids.session_id;

-- The entry lines of each audited session; of lines with the same id the later one is the entry
-- (Pi's id index), the others are shadowed; before_cursor: the projection has caught up with it.
CREATE OR REPLACE TEMP TABLE audited_lines AS
SELECT lines.*, lines.line_no < max(lines.line_no) OVER (PARTITION BY lines.session_file, lines.entry_id) AS shadowed,
       coalesce(lines.end_offset <= state.checkpoint_offset, false) AS before_cursor
FROM jsonl_entries AS lines
JOIN audited_sessions AS sessions USING (session_file)
LEFT JOIN proj_state AS state ON state.session_id = sessions.session_id
WHERE lines.pi_entry;

-- Each entry row of an audited session with the line that is its entry, if any; line_role is the
-- role the contract projects (§3.4: the message's role, custom for custom messages, summary).
CREATE OR REPLACE TEMP TABLE audited_rows AS
SELECT rows.*, lines.session_file, lines.line_no, lines.start_offset AS line_start, lines.end_offset AS line_end,
       lines.sha256 AS line_sha256, lines.entry_id AS line_entry_id, lines.parent_id AS line_parent_id,
       lines.entry_type AS line_entry_type,
       CASE lines.entry_type WHEN 'message' THEN nullif(lines.role, '') WHEN 'custom_message' THEN 'custom'
                             WHEN 'compaction' THEN 'summary' WHEN 'branch_summary' THEN 'summary' END AS line_role, lines.timestamp_ms AS line_timestamp_ms,
       lines.session_id AS line_session_id
FROM proj_entries AS rows
JOIN audited_sessions AS sessions USING (session_id)
LEFT JOIN audited_lines AS lines ON lines.entry_key = rows.entry_key AND NOT lines.shadowed;

-- The projection sessions of the audited folders: by their file's id, or by the folder they name.
CREATE OR REPLACE TEMP TABLE audited_session_ids AS
SELECT session_id FROM audited_sessions
UNION
SELECT session_id FROM proj_sessions
WHERE parse_dirpath(session_file, 'both_slash') IN (SELECT DISTINCT folder FROM audit_paths)
   OR parse_dirpath(session_file, 'both_slash') IN (SELECT DISTINCT folder FROM audit_folder_entries);
