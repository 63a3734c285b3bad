"""The harness's own view of the rebase file layout agrees with the reference's (contract §0.3, §6.5-§6.8).

The toolkit never imports the reference; this test holds the two independent derivations together.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from conformance import interop_layout
from reference.artifacts import ids
from reference.rebase.lock import lock_path

SOURCE = b'{"type":"session","id":"s-1"}\n{"type":"message","id":"e-1"}\n'


def test_operation_and_checkpoint_ids_match_the_reference() -> None:
    operation = interop_layout.operation_id("s-1", "e-1", SOURCE)
    assert operation == ids.operation_id("s-1", "e-1", hashlib.sha256(SOURCE).hexdigest())
    assert interop_layout.OPERATION_ID.fullmatch(operation)
    assert interop_layout.checkpoint_id(operation) == ids.checkpoint_id("s-1", "e-1", hashlib.sha256(SOURCE).hexdigest())


def test_journal_target_and_lock_paths_match_the_reference(tmp_path: Path) -> None:
    source = tmp_path / "session.jsonl"
    source.write_bytes(SOURCE)
    canonical = os.path.realpath(source)
    folder = Path(canonical).parent
    operation = interop_layout.operation_id("s-1", "e-1", SOURCE)
    assert interop_layout.journal_path(folder, operation) == ids.journal_path(canonical, operation)
    assert str(interop_layout.target_path(folder, operation)) == ids.target_file_path(canonical, operation)
    assert interop_layout.target_name(operation) == ids.target_file_name(operation)
    assert interop_layout.target_path(folder, operation).match(interop_layout.TARGET_GLOB)
    assert interop_layout.lock_path(canonical) == lock_path(source)
    assert interop_layout.operations_folder(folder) == interop_layout.journal_path(folder, operation).parent
