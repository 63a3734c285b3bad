-- Macros of the canonical reading: JSON.parse's rules on top of DuckDB's more lenient JSON reader
-- (not TEMP: the cursors that read blocks at once are connections of their own).
-- Each macro uses its argument once where the argument is costly, so that DuckDB does not hoist a
-- regular expression out of a CASE and run it on every line.

-- What DuckDB's JSON reader accepts and JSON.parse refuses (NaN, Infinity, trailing commas),
-- looked for in the JSON's structure: string literals become "" and true/false/null become 0,
-- so a letter other than an exponent's e, or a comma before a closing bracket, is one of them.
CREATE OR REPLACE MACRO canonical_lenient(text) AS
    regexp_matches(
        regexp_replace(regexp_replace(text, '"(?:[^"\\]|\\.)*"', '""', 'g'), 'true|false|null', '0', 'g'),
        '[A-DF-Za-df-z]|,[ \t\r\n]*[\]}]');

-- Surrogate escapes (JSON.parse takes a lone one, DuckDB refuses it) turned into \u0030, after
-- every escaped backslash became \u005C so that a backslash-u after it is never misread.
CREATE OR REPLACE MACRO canonical_surrogates_neutralized(text) AS
    regexp_replace(regexp_replace(text, '\\\\', '\\u005C', 'g'),
                   '\\u[dD][89a-fA-F][0-9a-fA-F]{2}', '\\u0030', 'g');

-- The text JSON fields are read from, given json_valid(text): the line itself, or with its
-- surrogates neutralized.
CREATE OR REPLACE MACRO canonical_json(text, line_valid) AS
    CASE WHEN line_valid THEN text ELSE canonical_surrogates_neutralized(text) END;

-- Whether a text DuckDB takes as JSON may hold what it is lenient about: a NaN or Infinity literal
-- (any case, maybe after a minus) where a value starts (first, or after a colon, a bracket or a
-- comma, maybe after whitespace), or a comma before a closing bracket. Four patterns, each led
-- by one fixed byte (or anchored), which RE2 scans for quickly: one pattern led by a class of
-- bytes, or a case-insensitive nan|inf anywhere, takes twice to three times as long.
CREATE OR REPLACE MACRO canonical_maybe_lenient(json_text) AS
    regexp_matches(json_text, ',[ \t\r\n]*(?:[\]}]|-?(?:[iI]|[nN][aA]))')
    OR regexp_matches(json_text, ':[ \t\r\n]*-?(?:[iI]|[nN][aA])')
    OR regexp_matches(json_text, '\[[ \t\r\n]*-?(?:[iI]|[nN][aA])')
    OR regexp_matches(json_text, '^[ \t\r\n]*-?(?:[iI]|[nN][aA])');

-- JSON.parse's verdict on a line, given canonical_json(line, line_valid) and line_valid: DuckDB's
-- verdict (not asked again when the line itself was valid to it), then a cheap look for what it is
-- lenient about before the costly one (a CASE: DuckDB evaluates an AND's both sides on every row,
-- a CASE branch only on the rows that reach it).
CREATE OR REPLACE MACRO canonical_parses(json_text, line_valid) AS
    CASE
        WHEN NOT CASE WHEN line_valid THEN true ELSE json_valid(json_text) END THEN false
        WHEN NOT canonical_maybe_lenient(json_text) THEN true
        ELSE NOT canonical_lenient(json_text)
    END;

-- JavaScript truthiness of a parsed JSON value (an object, the usual line, is decided at once).
CREATE OR REPLACE MACRO canonical_truthy(json_text) AS
    CASE
        WHEN starts_with(json_text, '{') THEN true
        ELSE json_extract(json_text, '$')::VARCHAR NOT IN ('null', 'false', '""')
             AND TRY_CAST(json_extract(json_text, '$')::VARCHAR AS DOUBLE) IS DISTINCT FROM 0
    END;

-- Empty or JavaScript whitespace only (String.prototype.trim's set), as Pi skips a blank line;
-- a line that opens an object, the usual line, is decided at once.
CREATE OR REPLACE MACRO canonical_blank(text) AS
    CASE
        WHEN starts_with(text, '{') THEN false
        ELSE regexp_full_match(text,
            '[\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]*')
    END;

-- A JSON fragment's string value, else NULL (Pi's fields count only as strings).
CREATE OR REPLACE MACRO canonical_string(fragment) AS
    CASE WHEN starts_with(fragment::VARCHAR, '"') THEN json_extract_string(fragment, '$') END;

-- The JSON type of a fragment as json_type names it, NULL when the member is absent.
CREATE OR REPLACE MACRO canonical_fragment_type(fragment) AS
    CASE WHEN fragment IS NOT NULL THEN json_type(fragment) END;

-- JavaScript Date.parse of an ECMAScript date-time string (a date alone, or with a time and an
-- optional offset; t, z and a space tolerated as V8 does) in epoch ms, read as UTC when it has no
-- offset (as the reference reads it; V8 would use the local zone); NULL for any other form.
CREATE OR REPLACE MACRO canonical_date_ms(text) AS
    CASE
        WHEN NOT regexp_full_match(text, '\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?)?')
            THEN NULL
        WHEN regexp_matches(text, '([Zz]|[+-]\d{2}:\d{2})$')
            THEN epoch_ms(TRY_CAST(upper(text) AS TIMESTAMPTZ))
        ELSE epoch_ms(TRY_CAST(upper(text) AS TIMESTAMP))
    END;
