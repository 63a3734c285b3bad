-- The catch-up cursor of each session (contract §5.1 `session_index_state`).
CREATE TABLE proj_state (
  session_id VARCHAR,
  session_file VARCHAR,
  header_hash VARCHAR,
  file_size BIGINT,               -- the size the last catch-up saw
  file_mtime_ns BIGINT,
  checkpoint_offset BIGINT,       -- the byte just after the last LF-terminated line
  checkpoint_hash_start BIGINT,   -- where the checkpoint hash starts (at most 64 KiB before the offset)
  checkpoint_hash VARCHAR,        -- SHA-256 hex of [checkpoint_hash_start, checkpoint_offset)
  indexed_entries BIGINT,
  malformed_lines BIGINT,
  tail_unterminated BOOLEAN       -- the last line had no LF when it was indexed
);
