"""Pi 0.84.3's own reading of a session file, JavaScript-faithful and byte by byte: the oracle every
other reading is tested against, and the fallback of the session model (:mod:`reference.pi.model`)."""
