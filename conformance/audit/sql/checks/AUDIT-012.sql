-- A journal that is not a usable journal: unreadable, over 32,000 bytes, not JSON, invalid against
-- schemas/rebase/journal.schema.json, or not named after its operation id.
SELECT file, size_bytes, operation_id,
       coalesce(problem, CASE WHEN schema_error IS NOT NULL THEN 'schema' ELSE 'wrong-name' END) AS problem,
       schema_error
FROM journals
WHERE problem IS NOT NULL OR schema_error IS NOT NULL
   OR parse_filename(file, false, 'both_slash') IS DISTINCT FROM operation_id || '.json'
ORDER BY file
