-- A session row of an audited folder differs from its file's header (hash, cwd), or has no file.
SELECT sessions.session_id, sessions.session_file AS projected_file, files.session_file,
       sessions.header_hash AS stored_hash, files.header_sha256 AS header_hash,
       CASE WHEN files.session_file IS NULL THEN 'no-file'
            WHEN sessions.header_hash IS DISTINCT FROM files.header_sha256 THEN 'header-hash'
            ELSE 'cwd' END AS problem
FROM proj_sessions AS sessions
LEFT JOIN audited_sessions AS audited USING (session_id)
LEFT JOIN audited_files AS files ON files.session_file = audited.session_file
WHERE sessions.session_id IN (SELECT session_id FROM audited_session_ids)
  AND (files.session_file IS NULL OR sessions.header_hash IS DISTINCT FROM files.header_sha256
       OR sessions.cwd IS DISTINCT FROM files.cwd)
ORDER BY sessions.session_id
