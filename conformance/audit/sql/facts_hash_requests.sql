-- Every byte range whose SHA-256 a check needs: the prefixes journals and lineage rows name, and
-- each catch-up cursor's hashed range in the file the cursor is for.
SELECT source_session_file AS path, 0 AS start_offset, source_size AS end_offset FROM proj_lineage
WHERE source_session_file IS NOT NULL AND source_size IS NOT NULL
UNION
SELECT source_session_file, 0, source_size FROM journals
WHERE problem IS NULL AND source_session_file IS NOT NULL AND source_size IS NOT NULL
UNION
SELECT target_session_file, 0, target_size FROM journals
WHERE problem IS NULL AND target_session_file IS NOT NULL AND target_size IS NOT NULL
UNION
SELECT files.session_file, state.checkpoint_hash_start, state.checkpoint_offset
FROM proj_state AS state
JOIN jsonl_files AS files ON files.session_id = state.session_id
WHERE state.checkpoint_hash_start IS NOT NULL AND state.checkpoint_offset IS NOT NULL
