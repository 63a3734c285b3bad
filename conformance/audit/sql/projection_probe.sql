-- Touch the schema once, so that a file that is not an SQLite database fails at open.
SELECT count(*) FROM sqlite_schema;
