-- One row per projected rebase operation (contract §5.3 `rebase_operations`); the journal JSON is metadata only.
CREATE TABLE proj_operations (
  operation_id VARCHAR,
  phase VARCHAR,
  source_session_id VARCHAR,
  source_size BIGINT,
  source_hash VARCHAR,
  target_session_id VARCHAR,
  target_session_file VARCHAR,
  target_hash VARCHAR,
  target_size BIGINT,
  updated_at BIGINT,
  payload_json VARCHAR         -- the journal JSON as projected, to compare with the file
);
