"""The only reference code that speaks the adapter protocol."""
