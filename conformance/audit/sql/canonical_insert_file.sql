-- One session file ($session_file), so that a file without a line (an empty one) has its row too.
INSERT INTO canonical_files VALUES ($session_file);
