"""Lineage: verifying a chain of rebases and projecting it into the index."""
