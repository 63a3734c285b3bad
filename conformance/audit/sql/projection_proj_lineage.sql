-- One row per rebase target with a verified link (contract §5.3 `session_lineage`, key fields of the link JSON).
CREATE TABLE proj_lineage (
  target_session_id VARCHAR,
  source_session_id VARCHAR,
  source_leaf_id VARCHAR,
  checkpoint_id VARCHAR,
  operation_id VARCHAR,        -- the link's operationId
  checkpoint_hash VARCHAR,     -- the link's checkpointHash
  source_session_file VARCHAR,
  source_size BIGINT,          -- bytes of the source prefix the link names
  source_hash VARCHAR          -- SHA-256 hex of that prefix, as recorded
);
