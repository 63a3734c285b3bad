"""Secret redaction, entry classification and the provider policy."""
