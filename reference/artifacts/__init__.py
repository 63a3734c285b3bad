"""What a rebase leaves behind, as formats: ids, journal, checkpoint, link, handoff and pair checks."""
