-- A mapping's SQL may only read the projection (the file is also opened read-only).
PRAGMA query_only = ON;
