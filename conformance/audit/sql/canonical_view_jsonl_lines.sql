-- jsonl_lines: every physical line of every session file, as session.records reports it.
-- The header is the first line Pi keeps (a truthy JSON value) when it is a type:"session" object;
-- a later type:"session" object is an extra header, which Pi ignores.
CREATE OR REPLACE TEMP VIEW jsonl_lines AS
SELECT session_file, line_no, start_offset, end_offset, terminated, crlf, sha256,
       CASE
           WHEN parsed_kind = 'entry' AND is_object AND entry_type = 'session' THEN
               CASE WHEN line_no = min(line_no) FILTER (WHERE parsed_kind = 'entry')
                                   OVER (PARTITION BY session_file)
                    THEN 'header' ELSE 'extra-header' END
           ELSE parsed_kind
       END AS kind
FROM canonical_records;
