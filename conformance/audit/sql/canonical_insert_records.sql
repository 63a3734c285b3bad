-- Every staged line of canonical_raw_lines hashed and classified as Pi's loader treats it (the
-- header is told apart in the jsonl_lines view), with the entry fields a projection stores. A line
-- that is not valid UTF-8 is decoded with '?' for each invalid sequence where JavaScript puts
-- U+FFFD (DuckDB's decode has no other replacement): utf8_valid says which lines those are.
INSERT INTO canonical_records
WITH decoded AS (
    SELECT *, octet_length(data) + terminated::INTEGER > $record_limit AS oversize,
           CASE WHEN octet_length(data) + terminated::INTEGER <= $record_limit THEN decode(data, 'replace') END
               AS text,
           TRY(decode(data)) IS NOT NULL AS utf8_valid
    FROM canonical_raw_lines
), classified AS (
    SELECT *,
           CASE
               WHEN oversize THEN 'oversize'
               WHEN NOT starts_with(text, '{') AND canonical_blank(text) THEN 'blank'
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
SELECT session_file, line_no, start_offset, end_offset, terminated, crlf, sha256(data), parsed_kind,
       parsed_kind = 'entry' AND starts_with(ltrim(json_text, E' \t\r\n'), '{') AS is_object,
       canonical_string(fields[1]), canonical_string(fields[2]), canonical_string(fields[3]),
       canonical_fragment_type(fields[3]), canonical_string(fields[4]), canonical_string(fields[5]),
       canonical_string(fields[6]), fields[7]::VARCHAR, canonical_string(fields[8]), utf8_valid
FROM fielded
ORDER BY session_file, line_no;
