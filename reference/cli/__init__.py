"""The product commands and the interactive host."""
