-- Where each entry's line lies in its session file: the half-open byte range [start, end) (contract §5.2).
CREATE TABLE proj_locations (
  entry_key VARCHAR,
  start_offset BIGINT,   -- the line's first byte
  end_offset BIGINT      -- just after its LF, or the file size for an unterminated last line
);
