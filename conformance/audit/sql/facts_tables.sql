-- What the audit learns of the files themselves, besides their lines (conformance/audit/facts.py).
CREATE TABLE audit_paths (
  session_file VARCHAR,   -- a session file as the audit was given it (jsonl_files.session_file)
  real_path VARCHAR,      -- its real path (symbolic links resolved): what journals and projections name
  folder VARCHAR          -- the real path of the folder it was found in
);
CREATE TABLE audit_folder_entries (
  folder VARCHAR,         -- a session folder or its .ds4-rebase/operations folder (real path)
  name VARCHAR,
  real_path VARCHAR,
  is_file BOOLEAN
);
CREATE TABLE audit_files (
  path VARCHAR,           -- a projection or journal file, or a folder of them
  role VARCHAR,           -- index, index-wal, index-shm, journal, operations-folder
  mode INTEGER            -- permission bits; NULL where the OS has none (Windows)
);
CREATE TABLE audit_hashes (
  path VARCHAR,           -- a file as a journal, lineage row or cursor names it
  start_offset BIGINT,
  end_offset BIGINT,
  sha256 VARCHAR,         -- SHA-256 hex of [start_offset, end_offset) of that file, or NULL:
  problem VARCHAR         -- missing, shorter, bad-range, unreadable, not-audited (outside the audited folders)
);
CREATE TABLE audit_integrity (
  source VARCHAR,         -- 'PRAGMA quick_check', or a statement of the mapping's [integrity]
  ok BOOLEAN,
  message VARCHAR
);
CREATE TABLE jsonl_custom (
  session_file VARCHAR,
  line_no BIGINT,
  entry_id VARCHAR,
  custom_type VARCHAR,    -- the entry's customType
  data_json VARCHAR,      -- its data member, as JSON
  on_active_branch BOOLEAN  -- an ancestor of (or is) the file's last entry, Pi's leaf on open
);
