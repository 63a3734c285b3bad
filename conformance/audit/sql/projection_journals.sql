-- One row per file matching <sessions dir>/.ds4-rebase/operations/*.json, readable or not (contract §6.5).
CREATE TABLE journals (
  file VARCHAR,                -- absolute path of the journal file
  operations_dir VARCHAR,      -- the folder it was found in
  size_bytes BIGINT,
  mode INTEGER,                -- permission bits (st_mode & 0o777)
  problem VARCHAR,             -- NULL, or why the file is not a usable journal (too-large, not-utf-8, not-json, ...)
  schema_version BIGINT,       -- the parsed fields: NULL when absent or of the wrong JSON type
  operation_id VARCHAR,
  phase VARCHAR,
  project_path VARCHAR,
  source_session_id VARCHAR,
  source_session_file VARCHAR,
  source_leaf_id VARCHAR,
  source_size BIGINT,
  source_hash VARCHAR,
  target_session_id VARCHAR,
  target_session_file VARCHAR,
  target_hash VARCHAR,
  target_size BIGINT,
  created_at BIGINT,
  updated_at BIGINT,
  error_code VARCHAR,
  raw_text VARCHAR,            -- the file's text (NULL when it is not UTF-8)
  schema_error VARCHAR         -- NULL, or the first way it is invalid against schemas/rebase/journal.schema.json
);
