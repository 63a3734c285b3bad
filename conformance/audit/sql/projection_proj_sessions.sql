-- One row per session the projection knows (contract §5.1 `sessions`).
CREATE TABLE proj_sessions (
  session_id VARCHAR,    -- the session header's id
  session_file VARCHAR,  -- the path the projection read it from
  cwd VARCHAR,           -- the header's cwd, or NULL
  header_hash VARCHAR    -- SHA-256 hex of the header line's bytes
);
