"""Session rebase: preconditions, source archive checks, phases, crash points, durable writes, lock, service."""
