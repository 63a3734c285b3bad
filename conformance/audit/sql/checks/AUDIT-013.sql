-- A usable journal's phase disagrees with the files: from TargetCreated on the target exists and its
-- staged prefix [0, targetSize) hashes to targetHash (CheckpointReady: if it exists); except when
-- Recoverable, the source prefix [0, sourceSize) hashes to sourceHash.
WITH usable AS (
    SELECT * FROM journals WHERE problem IS NULL AND schema_error IS NULL
), judged AS (
    SELECT usable.file, usable.operation_id, usable.phase, 'target' AS side, usable.target_session_file AS path,
           targets.problem, targets.sha256 IS DISTINCT FROM usable.target_hash AS differs
    FROM usable
    LEFT JOIN audit_hashes AS targets ON targets.path = usable.target_session_file AND targets.start_offset = 0
        AND targets.end_offset = usable.target_size
    WHERE usable.phase IN ('TargetCreated', 'Activated', 'Verified')
       OR (usable.phase = 'CheckpointReady' AND targets.problem IS DISTINCT FROM 'missing')
    UNION ALL
    SELECT usable.file, usable.operation_id, usable.phase, 'source', usable.source_session_file,
           sources.problem, sources.sha256 IS DISTINCT FROM usable.source_hash
    FROM usable
    LEFT JOIN audit_hashes AS sources ON sources.path = usable.source_session_file AND sources.start_offset = 0
        AND sources.end_offset = usable.source_size
    WHERE usable.phase <> 'Recoverable'
)
SELECT file, operation_id, phase, side, path,
       CASE WHEN problem IS NOT NULL THEN side || '-' || problem ELSE side || '-hash-differs' END AS problem
FROM judged
WHERE coalesce(problem, '') <> 'not-audited' AND (problem IS NOT NULL OR differs)
ORDER BY file, side
