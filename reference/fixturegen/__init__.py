"""The seeded generator of Pi session fixtures and benchmark inputs."""
