-- The physical lines of one block of a session file, read by DuckDB from the bytes, located,
-- hashed and classified as Pi's loader treats them (the header is told apart in the jsonl_lines
-- view), with the entry fields a projection stores. Blocks are independent: several run at once.
--
-- $block: the file's bytes from offset $block_start, cut just after an LF (or at the end of the
-- file); $lines_before: the lines of the file before it. A block of valid UTF-8 (the usual one)
-- is split on LF as text and each line encoded back to its exact bytes. Any other block is split
-- in its lossless escaped text (a BLOB cast to VARCHAR writes every LF as \x0A and every
-- backslash as \x5C, so \x0A can only be an LF) and each line cast back to its exact bytes.
-- Lines are located by cumulative lengths. A line that is not valid UTF-8 is decoded with '?' for
-- each invalid sequence where JavaScript puts U+FFFD (DuckDB's decode has no other replacement):
-- utf8_valid says which lines those are. The last LF-terminated line of a block also gets the
-- index cursor's hash (contract §5.1): the SHA-256 of at most its last $checkpoint_hash_bytes
-- bytes, its LF included, from tail_hash_start (hex is two characters a byte, so a substring of
-- it is a byte range).
INSERT INTO canonical_records
WITH block AS (
    SELECT TRY(decode($block)) IS NOT NULL AS utf8
), split AS (
    SELECT utf8, CASE WHEN utf8 THEN string_split(decode($block), chr(10))
                      ELSE string_split($block::VARCHAR, '\x0A') END AS parts
    FROM block
), pieces AS (
    SELECT utf8, unnest(parts) AS piece, generate_subscripts(parts, 1) AS piece_no, len(parts) AS piece_count
    FROM split
), lines AS (
    SELECT utf8, $lines_before + piece_no AS line_no, piece_no = piece_count - 1 AS last_terminated,
           CASE WHEN utf8 THEN encode(piece) ELSE piece::BLOB END AS data,
           piece_no < piece_count AS terminated,
           ends_with(piece, CASE WHEN utf8 THEN chr(13) ELSE '\x0D' END) AS crlf
    FROM pieces
    WHERE piece_no < piece_count OR piece <> ''
), located AS (
    SELECT utf8, line_no, last_terminated, data, terminated, crlf, octet_length(data) AS data_bytes,
           ($block_start + sum(octet_length(data) + terminated::INTEGER)
               OVER (ORDER BY line_no ROWS UNBOUNDED PRECEDING))::BIGINT AS end_offset
    FROM lines
), decoded AS (
    SELECT *, octet_length(data) + terminated::INTEGER > $record_limit AS oversize,
           CASE WHEN octet_length(data) + terminated::INTEGER <= $record_limit THEN decode(data, 'replace') END
               AS text,
           utf8 OR TRY(decode(data)) IS NOT NULL AS utf8_valid,
           CASE WHEN last_terminated THEN greatest(start_offset, end_offset - $checkpoint_hash_bytes) END
               AS tail_hash_start
    FROM (SELECT *, end_offset - data_bytes - terminated::INTEGER AS start_offset FROM located)
), classified AS (
    SELECT *,
           CASE
               WHEN oversize THEN 'oversize'
               WHEN canonical_blank(text) THEN 'blank'
               WHEN NOT canonical_parses(json_text) THEN 'malformed'
               WHEN NOT canonical_truthy(json_text) THEN 'falsy'
               ELSE 'entry'
           END AS parsed_kind
    FROM (SELECT *, canonical_json(text) AS json_text FROM decoded)
), fielded AS (
    SELECT *, json_extract(CASE WHEN parsed_kind = 'entry' THEN json_text END,
                           ['$.type', '$.id', '$.parentId', '$.timestamp', '$.message.role',
                            '$.firstKeptEntryId', '$.version', '$.cwd']) AS fields
    FROM classified
)
SELECT $session_file, line_no, start_offset, end_offset, terminated, crlf, sha256(data), parsed_kind,
       parsed_kind = 'entry' AND starts_with(ltrim(json_text, E' \t\r\n'), '{') AS is_object,
       canonical_string(fields[1]), canonical_string(fields[2]), canonical_string(fields[3]),
       canonical_fragment_type(fields[3]), canonical_string(fields[4]), canonical_string(fields[5]),
       canonical_string(fields[6]), fields[7]::VARCHAR, canonical_string(fields[8]), utf8_valid,
       tail_hash_start,
       CASE WHEN last_terminated THEN sha256(unhex(substring(hex(data || '\x0A'::BLOB),
                                                             2 * (tail_hash_start - start_offset) + 1))) END
FROM fielded;
