-- One row per projected entry, key columns only: never the searchable text (contract §5.1 `entries`).
CREATE TABLE proj_entries (
  session_id VARCHAR,
  entry_key VARCHAR,     -- "<sessionId>:<entryId>"
  entry_id VARCHAR,
  parent_id VARCHAR,     -- NULL for a root entry
  entry_type VARCHAR,
  role VARCHAR,          -- the message role, or NULL
  created_at BIGINT,     -- ms since the epoch from the entry's ISO timestamp, or NULL
  content_hash VARCHAR   -- SHA-256 hex of the physical line without its LF (any CR kept)
);
