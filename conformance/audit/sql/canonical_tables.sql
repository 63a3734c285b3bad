-- One row per session file and one per physical line, filled block by block. A file is read once
-- (its key); its lines are unique by construction (one block each, numbered from the lines before
-- it), so canonical_records has no key: keeping an index of (session_file, line_no) cost a third
-- of a block's time, and the views' joins do not use it.
CREATE TABLE canonical_files (
    session_file VARCHAR NOT NULL PRIMARY KEY
);

CREATE TABLE canonical_records (
    session_file VARCHAR NOT NULL,
    line_no BIGINT NOT NULL,
    start_offset BIGINT NOT NULL,
    end_offset BIGINT NOT NULL,
    terminated BOOLEAN NOT NULL,
    crlf BOOLEAN NOT NULL,
    sha256 VARCHAR NOT NULL,
    parsed_kind VARCHAR NOT NULL,   -- entry, blank, malformed, falsy, oversize (header decided later)
    is_object BOOLEAN NOT NULL,
    entry_type VARCHAR,
    entry_id VARCHAR,
    parent_id VARCHAR,
    parent_id_json_type VARCHAR,    -- NULL when absent: Pi tells a missing parentId from a null one
    timestamp_text VARCHAR,
    role VARCHAR,
    first_kept_entry_id VARCHAR,
    version_json VARCHAR,
    cwd VARCHAR,
    utf8_valid BOOLEAN NOT NULL,    -- false: invalid sequences were decoded as '?' (Pi: U+FFFD)
    tail_hash_start BIGINT,         -- the last LF-terminated line of a block: the cursor hash's start
    tail_sha256 VARCHAR             -- and the SHA-256 of [tail_hash_start, end_offset)
);
