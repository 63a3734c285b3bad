-- The physical lines of one block of a session file, read by DuckDB from the bytes, located,
-- hashed and classified as Pi's loader treats them (the header is told apart in the jsonl_lines
-- view), with the entry fields a projection stores. Blocks are independent: several run at once.
--
-- $block: the file's bytes from offset $block_start, cut just after an LF (or at the end of the
-- file); $lines_before: the lines of the file before it. The block is a column (VALUES), not the
-- parameter itself: DuckDB folds an expression of a parameter once per statement whether or not
-- its CASE branch is taken, so both readings below would run on every block. A block of valid
-- UTF-8 (the usual one) is decoded once and split on LF as text; each line's text is its bytes
-- (sha256 and strlen of a VARCHAR read its UTF-8 bytes), so no line is encoded or decoded again.
-- Any other block is split in its lossless escaped text (a BLOB cast to VARCHAR writes every LF
-- as \x0A and every backslash as \x5C, so \x0A can only be an LF) and each line cast back to its
-- exact bytes (raw). Lines are located by cumulative lengths. A line that is not valid UTF-8 is
-- decoded with '?' for each invalid sequence where JavaScript puts U+FFFD (DuckDB's decode has no
-- other replacement): utf8_valid says which lines those are. The last LF-terminated line of a
-- block also gets the index cursor's hash (contract §5.1): the SHA-256 of at most its last
-- $checkpoint_hash_bytes bytes, its LF included, from tail_hash_start (hex is two characters a
-- byte, so a substring of it is a byte range). Costly tests sit in CASE branches, never in an AND
-- or OR, whose both sides DuckDB evaluates on every row.
INSERT INTO canonical_records
WITH block AS (
    SELECT bytes, TRY(decode(bytes)) AS block_text FROM (VALUES ($block)) AS input(bytes)
), split AS (
    SELECT block_text IS NOT NULL AS utf8,
           CASE WHEN block_text IS NOT NULL THEN string_split(block_text, chr(10))
                ELSE string_split(bytes::VARCHAR, '\x0A') END AS parts
    FROM block
), pieces AS (
    SELECT utf8, unnest(parts) AS piece, generate_subscripts(parts, 1) AS piece_no, len(parts) AS piece_count
    FROM split
), lines AS (
    SELECT utf8, $lines_before + piece_no AS line_no, piece_no = piece_count - 1 AS last_terminated,
           piece, CASE WHEN NOT utf8 THEN piece::BLOB END AS raw,
           piece_no < piece_count AS terminated,
           ends_with(piece, CASE WHEN utf8 THEN chr(13) ELSE '\x0D' END) AS crlf
    FROM pieces
    WHERE piece_no < piece_count OR piece <> ''
), located AS (
    SELECT *, ($block_start + sum(data_bytes + terminated::INTEGER)
                   OVER (ORDER BY line_no ROWS UNBOUNDED PRECEDING))::BIGINT AS end_offset
    FROM (SELECT *, CASE WHEN utf8 THEN strlen(piece) ELSE octet_length(raw) END AS data_bytes FROM lines)
), decoded AS (
    SELECT *, data_bytes + terminated::INTEGER > $record_limit AS oversize,
           CASE WHEN data_bytes + terminated::INTEGER > $record_limit THEN NULL
                WHEN utf8 THEN piece
                ELSE decode(raw, 'replace') END AS text,
           CASE WHEN utf8 THEN true ELSE TRY(decode(raw)) IS NOT NULL END AS utf8_valid,
           CASE WHEN last_terminated THEN greatest(start_offset, end_offset - $checkpoint_hash_bytes) END
               AS tail_hash_start
    FROM (SELECT *, end_offset - data_bytes - terminated::INTEGER AS start_offset FROM located)
), validated AS (
    SELECT *, canonical_json(text, valid) AS json_text FROM (SELECT *, json_valid(text) AS valid FROM decoded)
), classified AS (
    SELECT *,
           CASE
               WHEN oversize THEN 'oversize'
               WHEN canonical_blank(text) THEN 'blank'
               WHEN NOT canonical_parses(json_text, valid) THEN 'malformed'
               WHEN NOT canonical_truthy(json_text) THEN 'falsy'
               ELSE 'entry'
           END AS parsed_kind
    FROM validated
), fielded AS (
    SELECT *, json_extract(CASE WHEN parsed_kind = 'entry' THEN json_text END,
                           ['$.type', '$.id', '$.parentId', '$.timestamp', '$.message.role',
                            '$.firstKeptEntryId', '$.version', '$.cwd']) AS fields
    FROM classified
)
SELECT $session_file, line_no, start_offset, end_offset, terminated, crlf,
       CASE WHEN utf8 THEN sha256(piece) ELSE sha256(raw) END, parsed_kind,
       CASE WHEN parsed_kind <> 'entry' THEN false
            WHEN starts_with(json_text, '{') THEN true
            ELSE starts_with(ltrim(json_text, E' \t\r\n'), '{') END AS is_object,
       canonical_string(fields[1]), canonical_string(fields[2]), canonical_string(fields[3]),
       canonical_fragment_type(fields[3]), canonical_string(fields[4]), canonical_string(fields[5]),
       canonical_string(fields[6]), fields[7]::VARCHAR, canonical_string(fields[8]), utf8_valid,
       tail_hash_start,
       CASE WHEN last_terminated THEN sha256(unhex(substring(CASE WHEN utf8 THEN hex(piece) ELSE hex(raw) END || '0A',
                                                             2 * (tail_hash_start - start_offset) + 1))) END
FROM fielded;
