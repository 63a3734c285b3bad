-- A catch-up cursor disagrees with its file. A file that grew past what the cursor saw is not a
-- finding (the next catch-up reads on): ahead = it claims bytes the file does not have, or an
-- offset that is not the end of a line; stale = its hashes are not the file's; torn tail = it
-- saw the file at its present size but recorded the last line's LF otherwise.
SELECT session_id, session_file, file_size AS recorded_size, size_bytes AS file_size, checkpoint_offset, problem
FROM (
    SELECT state.session_id, files.session_file, state.file_size, files.size_bytes, state.checkpoint_offset,
           CASE
               WHEN state.file_size > files.size_bytes OR state.checkpoint_offset > state.file_size
                   OR state.checkpoint_offset > files.size_bytes THEN 'ahead'
               WHEN state.checkpoint_offset > 0 AND state.checkpoint_offset NOT IN (
                   SELECT end_offset FROM jsonl_lines AS lines
                   WHERE lines.session_file = files.session_file AND lines.terminated) THEN 'ahead'
               WHEN state.header_hash IS DISTINCT FROM files.header_sha256 THEN 'stale-header'
               WHEN state.checkpoint_offset > 0 AND hashes.sha256 IS DISTINCT FROM state.checkpoint_hash
                   THEN 'stale-hash'
               WHEN state.file_size = files.size_bytes
                   AND state.tail_unterminated IS DISTINCT FROM (files.size_bytes > files.file_checkpoint_offset)
                   THEN 'torn-tail'
           END AS problem
    FROM proj_state AS state
    JOIN audited_sessions AS audited USING (session_id)
    JOIN audited_files AS files ON files.session_file = audited.session_file
    LEFT JOIN audit_hashes AS hashes ON hashes.path = files.session_file
        AND hashes.start_offset = state.checkpoint_hash_start AND hashes.end_offset = state.checkpoint_offset
)
WHERE problem IS NOT NULL
ORDER BY session_id
