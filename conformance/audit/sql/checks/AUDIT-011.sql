-- The source prefix a lineage or checkpoint row names (file, size, hash) is not what the link or
-- checkpoint on the target's active branch names, or [0, sourceSize) of that file does not hash to
-- the recorded sourceHash (a source outside the audited folders is not hashed). Rows without their
-- link or checkpoint are AUDIT-010's.
WITH branch_entries AS (
    SELECT custom.custom_type, custom.data_json, files.session_id
    FROM jsonl_custom AS custom JOIN audited_files AS files USING (session_file)
    WHERE custom.on_active_branch
), named AS (
    SELECT 'lineage' AS row_kind, lineage.target_session_id AS session_id, lineage.source_session_file,
           lineage.source_size, lineage.source_hash,
           json_extract_string(links.data_json, '$.sourceSessionFile') AS link_file,
           TRY_CAST(json_extract(links.data_json, '$.sourceSize') AS BIGINT) AS link_size,
           json_extract_string(links.data_json, '$.sourceHash') AS link_hash
    FROM proj_lineage AS lineage
    JOIN branch_entries AS links ON links.session_id = lineage.target_session_id
        AND links.custom_type = 'ds4-rebase-link-v1'
        AND json_extract_string(links.data_json, '$.operationId') IS NOT DISTINCT FROM lineage.operation_id
        AND json_extract_string(links.data_json, '$.checkpointId') IS NOT DISTINCT FROM lineage.checkpoint_id
    UNION ALL
    SELECT 'checkpoint', rows.session_id, NULL, rows.source_size, rows.source_hash, NULL,
           TRY_CAST(json_extract(checkpoints.data_json, '$.sourceSize') AS BIGINT),
           json_extract_string(checkpoints.data_json, '$.sourceHash')
    FROM proj_checkpoints AS rows
    JOIN branch_entries AS checkpoints ON checkpoints.session_id = rows.session_id
        AND checkpoints.custom_type = 'ds4-rebase-checkpoint-v1'
        AND json_extract_string(checkpoints.data_json, '$.id') IS NOT DISTINCT FROM rows.checkpoint_id
)
-- The outer WHERE names the CASE's alias: inside the joined query `problem` would be audit_hashes'
-- own column, which is NULL for a prefix that hashed, and the row would vanish. Only a lineage row
-- names a source file, so only a lineage row's prefix is hashed.
SELECT row_kind, session_id, source_session_file, source_size, recorded_hash, prefix_hash, problem
FROM (
    SELECT named.row_kind, named.session_id, named.source_session_file, named.source_size,
           named.source_hash AS recorded_hash, hashes.sha256 AS prefix_hash,
           CASE
               WHEN named.link_size IS DISTINCT FROM named.source_size
                   OR named.link_hash IS DISTINCT FROM named.source_hash
                   OR (named.row_kind = 'lineage' AND named.link_file IS DISTINCT FROM named.source_session_file)
                   THEN 'differs-from-branch'
               WHEN named.row_kind <> 'lineage' THEN NULL  -- a checkpoint names no file: its branch is all
               WHEN hashes.problem IS NOT NULL THEN hashes.problem
               WHEN hashes.sha256 IS DISTINCT FROM named.source_hash THEN 'hash-differs'
           END AS problem
    FROM named
    LEFT JOIN audit_hashes AS hashes ON named.row_kind = 'lineage' AND hashes.path = named.source_session_file
        AND hashes.start_offset = 0 AND hashes.end_offset = named.source_size
)
WHERE problem IS NOT NULL AND problem <> 'not-audited'
ORDER BY session_id, row_kind
