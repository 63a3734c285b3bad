-- The source prefix [0, sourceSize) a lineage row names does not hash to its sourceHash (a source
-- outside the audited folders is not judged).
SELECT lineage.target_session_id, lineage.source_session_id, lineage.source_session_file, lineage.source_size,
       lineage.source_hash AS recorded_hash, hashes.sha256 AS prefix_hash,
       coalesce(hashes.problem, 'hash-differs') AS problem
FROM proj_lineage AS lineage
JOIN audit_hashes AS hashes ON hashes.path = lineage.source_session_file AND hashes.start_offset = 0
    AND hashes.end_offset = lineage.source_size
WHERE coalesce(hashes.problem, '') <> 'not-audited'
  AND (hashes.problem IS NOT NULL OR hashes.sha256 IS DISTINCT FROM lineage.source_hash)
ORDER BY lineage.target_session_id
