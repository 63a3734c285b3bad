-- One row per projected checkpoint (contract §5.3 `rebase_checkpoints`); the handoff text stays out.
CREATE TABLE proj_checkpoints (
  checkpoint_id VARCHAR,
  session_id VARCHAR,          -- the target session that carries it
  source_session_id VARCHAR,
  source_leaf_id VARCHAR,
  source_size BIGINT,
  source_hash VARCHAR,
  created_at BIGINT            -- ms since the epoch
);
