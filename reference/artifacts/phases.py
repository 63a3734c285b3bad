"""The journal phases of a rebase (contract §6.5) and the crash points around them (decision D11),
in one table, as the whole state machine of one operation.

A run writes the six phases in order, each a durable journal write; a failed run writes
``Recoverable``.  From ``CheckpointReady`` on, the journal holds the target fingerprint.  A crash
point is where a crash test kills the process: just after each phase is durable, and, before
``TargetCreated``, twice inside the no-overwrite write of the target (contract §6.8).  The
values are the bytes on the wire: journal ``phase`` strings and ``RECALL_REBASE_CRASH_AT`` names.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, NamedTuple


class Phase(StrEnum):
    """A journal ``phase`` value."""

    PREPARED = "Prepared"
    ARCHIVE_VERIFIED = "ArchiveVerified"
    CHECKPOINT_READY = "CheckpointReady"
    TARGET_CREATED = "TargetCreated"
    ACTIVATED = "Activated"
    VERIFIED = "Verified"
    RECOVERABLE = "Recoverable"  # a failed run


class CrashPoint(StrEnum):
    """A named crash point: each phase once durable, and two inside the target's install."""

    PREPARED = "Prepared"
    ARCHIVE_VERIFIED = "ArchiveVerified"
    CHECKPOINT_READY = "CheckpointReady"
    TARGET_STAGED = "TargetStaged"  # temporary file written and fsynced, not installed
    TARGET_INSTALLED = "TargetInstalled"  # hard link made, directory not yet synced
    TARGET_CREATED = "TargetCreated"
    ACTIVATED = "Activated"
    VERIFIED = "Verified"


class _Step(NamedTuple):
    phase: Phase
    fingerprinted: bool  # the journal holds the target fingerprint from this phase on
    crash_points_before: tuple[CrashPoint, ...]  # between the previous phase's write and this one's


#: The run, in order.  After each phase is durable there is the crash point of the same name.
RUN: Final = (
    _Step(Phase.PREPARED, False, ()),
    _Step(Phase.ARCHIVE_VERIFIED, False, ()),
    _Step(Phase.CHECKPOINT_READY, True, ()),
    _Step(Phase.TARGET_CREATED, True, (CrashPoint.TARGET_STAGED, CrashPoint.TARGET_INSTALLED)),
    _Step(Phase.ACTIVATED, True, ()),
    _Step(Phase.VERIFIED, True, ()),
)

#: The six phases of a successful run, in order; each is a durable journal write.
PHASES: Final = tuple(step.phase for step in RUN)
#: Every phase a journal may hold.
WRITTEN_PHASES: Final = (*PHASES, Phase.RECOVERABLE)
#: The phases from which the journal holds the target fingerprint.
FINGERPRINTED_PHASES: Final = tuple(step.phase for step in RUN if step.fingerprinted)
#: Every crash point, in the order a new rebase passes them.
CRASH_POINTS: Final = tuple(point for step in RUN for point in (*step.crash_points_before, CrashPoint(step.phase)))
