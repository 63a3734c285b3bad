-- Compress the rows read so far: an in-memory table stays uncompressed until a checkpoint, and
-- DuckDB checkpoints on its own only when no other transaction is open, which the cursors reading
-- blocks at once seldom leave it (docs/audit.md, "How the bytes get to DuckDB, and why").
CHECKPOINT;
