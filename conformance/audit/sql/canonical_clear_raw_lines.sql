-- The staged bytes of a file, dropped once its lines are classified.
DELETE FROM canonical_raw_lines;
