-- The physical lines of one block of a session file, read by DuckDB from the bytes, staged in
-- canonical_raw_lines for canonical_insert_records.sql (which runs in parallel over all of them).
-- $block: the file's bytes from offset $block_start, cut just after an LF (or at the end of the
-- file); $lines_before: the lines of the file before it. The block is split on LF in its lossless
-- escaped text (a BLOB cast to VARCHAR writes every LF as \x0A and every backslash as \x5C, so
-- \x0A can only be an LF); each line is cast back to its exact bytes and located by cumulative
-- lengths.
INSERT INTO canonical_raw_lines
WITH split AS (
    SELECT string_split($block::VARCHAR, '\x0A') AS parts
), pieces AS (
    SELECT unnest(parts) AS escaped, generate_subscripts(parts, 1) AS piece_no, len(parts) AS piece_count
    FROM split
), lines AS (
    SELECT $lines_before + piece_no AS line_no, escaped::BLOB AS data, piece_no < piece_count AS terminated,
           ends_with(escaped, '\x0D') AS crlf
    FROM pieces
    WHERE piece_no < piece_count OR escaped <> ''
), located AS (
    SELECT line_no, data, terminated, crlf, octet_length(data) AS data_bytes,
           $block_start + sum(octet_length(data) + terminated::INTEGER)
               OVER (ORDER BY line_no ROWS UNBOUNDED PRECEDING) AS end_offset
    FROM lines
)
SELECT $session_file, line_no, end_offset - data_bytes - terminated::INTEGER, end_offset, terminated, crlf, data
FROM located;
