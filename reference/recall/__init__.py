"""Explicit history recall: the SQLite projection, retrieval, refs, verification and the three history tools."""
