-- One session file ($session_file) and its size, as read_blob reports it (the content is not read).
INSERT INTO canonical_files
SELECT $session_file, size
FROM read_blob($session_file);
