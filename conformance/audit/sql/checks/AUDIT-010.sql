-- A lineage or checkpoint row whose target session is audited has no checkpoint and link on the
-- active branch of the target's file with its identity (operation, checkpoint and its hash, source
-- session and leaf, target; contract §6.8, §6.13). The source prefix a row names is AUDIT-011's.
WITH branch_entries AS (
    SELECT custom.custom_type, custom.data_json, files.session_id
    FROM jsonl_custom AS custom JOIN audited_files AS files USING (session_file)
    WHERE custom.on_active_branch
), links AS (
    SELECT session_id, data_json FROM branch_entries WHERE custom_type = 'ds4-rebase-link-v1'
), checkpoints AS (
    SELECT session_id, data_json FROM branch_entries WHERE custom_type = 'ds4-rebase-checkpoint-v1'
), in_scope AS (
    SELECT session_id FROM audited_session_ids UNION SELECT session_id FROM audited_files
)
SELECT 'lineage' AS row_kind, lineage.target_session_id AS session_id, lineage.checkpoint_id, lineage.operation_id,
       CASE
           WHEN lineage.target_session_id NOT IN (SELECT session_id FROM audited_files) THEN 'no-target-file'
           WHEN NOT EXISTS (
               SELECT 1 FROM links
               WHERE links.session_id = lineage.target_session_id
                 AND json_extract_string(links.data_json, '$.operationId') IS NOT DISTINCT FROM lineage.operation_id
                 AND json_extract_string(links.data_json, '$.checkpointId') IS NOT DISTINCT FROM lineage.checkpoint_id
                 AND json_extract_string(links.data_json, '$.checkpointHash') IS NOT DISTINCT FROM lineage.checkpoint_hash
                 AND json_extract_string(links.data_json, '$.sourceSessionId') IS NOT DISTINCT FROM lineage.source_session_id
                 AND json_extract_string(links.data_json, '$.sourceLeafId') IS NOT DISTINCT FROM lineage.source_leaf_id
                 AND json_extract_string(links.data_json, '$.targetSessionId')
                     IS NOT DISTINCT FROM lineage.target_session_id) THEN 'no-matching-link'
           WHEN NOT EXISTS (
               SELECT 1 FROM checkpoints
               WHERE checkpoints.session_id = lineage.target_session_id
                 AND json_extract_string(checkpoints.data_json, '$.id') IS NOT DISTINCT FROM lineage.checkpoint_id)
               THEN 'no-matching-checkpoint'
       END AS problem
FROM proj_lineage AS lineage
WHERE lineage.target_session_id IN (SELECT session_id FROM in_scope)
  AND problem IS NOT NULL
UNION ALL
SELECT 'checkpoint', rows.session_id, rows.checkpoint_id, NULL,
       CASE
           WHEN rows.session_id NOT IN (SELECT session_id FROM audited_files) THEN 'no-target-file'
           WHEN NOT EXISTS (
               SELECT 1 FROM checkpoints
               WHERE checkpoints.session_id = rows.session_id
                 AND json_extract_string(checkpoints.data_json, '$.id') IS NOT DISTINCT FROM rows.checkpoint_id
                 AND json_extract_string(checkpoints.data_json, '$.sourceSessionId')
                     IS NOT DISTINCT FROM rows.source_session_id
                 AND json_extract_string(checkpoints.data_json, '$.sourceLeafId')
                     IS NOT DISTINCT FROM rows.source_leaf_id
                 AND TRY_CAST(json_extract(checkpoints.data_json, '$.createdAt') AS BIGINT)
                     IS NOT DISTINCT FROM rows.created_at) THEN 'no-matching-checkpoint'
       END AS problem
FROM proj_checkpoints AS rows
WHERE rows.session_id IN (SELECT session_id FROM in_scope)
  AND problem IS NOT NULL
ORDER BY 2, 1
