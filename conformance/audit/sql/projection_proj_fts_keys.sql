-- Which full-text row stands for which entry (contract §5.1 `entries_fts_keys`); the text itself stays out.
CREATE TABLE proj_fts_keys (
  fts_rowid BIGINT,
  entry_key VARCHAR
);
