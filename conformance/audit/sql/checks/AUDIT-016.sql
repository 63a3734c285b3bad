-- An operation row says what its journal does not: it has no journal, or it is as new as its
-- journal (updatedAt) and differs from it. A row older than its journal is one phase behind (the
-- contract ignores a failed projection write) and is not a finding.
WITH scoped AS (
    SELECT operations.* FROM proj_operations AS operations
    WHERE operations.operation_id IN (SELECT operation_id FROM journals)
       OR operations.source_session_id IN (SELECT session_id FROM audited_files)
       OR parse_dirpath(operations.target_session_file, 'both_slash') IN (SELECT folder FROM audit_paths)
)
SELECT operation_id, file, problem, fields
FROM (
    SELECT scoped.operation_id, journals.file,
           CASE WHEN journals.file IS NULL THEN 'no-journal' ELSE 'differs' END AS problem,
           list_filter([
               CASE WHEN scoped.phase IS DISTINCT FROM journals.phase THEN 'phase' END,
               CASE WHEN scoped.source_session_id IS DISTINCT FROM journals.source_session_id THEN 'source_session_id' END,
               CASE WHEN scoped.source_size IS DISTINCT FROM journals.source_size THEN 'source_size' END,
               CASE WHEN scoped.source_hash IS DISTINCT FROM journals.source_hash THEN 'source_hash' END,
               CASE WHEN scoped.target_session_id IS DISTINCT FROM journals.target_session_id THEN 'target_session_id' END,
               CASE WHEN scoped.target_session_file IS DISTINCT FROM journals.target_session_file
                    THEN 'target_session_file' END,
               CASE WHEN scoped.target_hash IS DISTINCT FROM journals.target_hash THEN 'target_hash' END,
               CASE WHEN scoped.target_size IS DISTINCT FROM journals.target_size THEN 'target_size' END,
               CASE WHEN scoped.updated_at IS DISTINCT FROM journals.updated_at THEN 'updated_at' END,
               CASE WHEN scoped.payload_json IS DISTINCT FROM journals.raw_text THEN 'payload_json' END
           ], lambda field: field IS NOT NULL) AS fields,
           journals.problem AS journal_problem, journals.updated_at AS journal_updated_at,
           scoped.updated_at AS row_updated_at
    FROM scoped LEFT JOIN journals USING (operation_id)
)
WHERE journal_problem IS NULL
  AND (problem = 'no-journal' OR (len(fields) > 0 AND NOT coalesce(row_updated_at < journal_updated_at, false)))
ORDER BY operation_id
