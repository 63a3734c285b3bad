"""Seeded generator of realistic Pi 0.84.3 session files (pi-session-model.md §1-§5).

Why: conformance fixtures and benchmark inputs must be reproducible byte for byte without running
Pi. Every random choice comes from one ``random.Random(seed)``, the clock is fixed, and every line
is ``JSON.stringify(entry) + "\\n"`` with the key orders Pi's ``SessionManager`` uses. Lines go to
disk as they are made, so a 200 MB benchmark file never sits in memory.

``python -m reference.fixturegen --refresh fixtures/`` regenerates the committed fixtures from
``fixtures/MANIFEST.json`` and recomputes their facts; ``--check`` only compares.
"""

from __future__ import annotations

import random
from pathlib import Path

from reference.fixturegen.growing_session import LineWriter
from reference.fixturegen.naming import BASE_CLOCK_MS, uuid7
from reference.fixturegen.options import GeneratedSession, GenOptions, ProgressCallback
from reference.fixturegen.session import SessionBuilder
from reference.primitives.jsvalues import to_iso_string
from reference.primitives.platform_ops.owner_only import create_owner_only, ensure_private_dir
from reference.primitives.platform_ops.paths import session_file_name


def generate(
    out_dir: Path, options: GenOptions, on_progress: ProgressCallback | None = None
) -> list[GeneratedSession]:
    """Write ``options.sessions`` files into ``out_dir``; same options, same bytes."""
    ensure_private_dir(out_dir)
    rng = random.Random(options.seed)
    start = BASE_CLOCK_MS
    results: list[GeneratedSession] = []
    for _ in range(options.sessions):
        session_rng = random.Random(rng.getrandbits(64))
        session_id = uuid7(session_rng, start)
        path = out_dir / session_file_name(to_iso_string(start), session_id)
        create_owner_only(path)  # 0600, as every file the project creates (decision D6)
        with path.open("wb") as fh:
            session = SessionBuilder(
                session_rng, options, LineWriter(fh, options.crlf, path, on_progress), start, session_id
            )
            session.run()
        results.append(session.result(path))
        start = session.clock + rng.randint(60_000, 3_600_000)
    return results
