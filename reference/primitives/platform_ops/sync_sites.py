"""The places in the reference that ask for an fsync, each named (issue 28, deliverable 4).

Every :func:`.steps.sync_file` and :func:`.steps.sync_folder` call passes the site that asked for
it, and the recorded :class:`~.recorder.SyncFile` / :class:`~.recorder.SyncFolder` keeps it, so
``tools/crashstates.py --drop-syncs`` can remove one site's syncs from a trace and show what a
power loss then breaks (docs/rebase-durability.md, "Every fsync, and what removing it breaks").
A value names the function that asked and what it syncs: ``file`` (the temporary's bytes before
it takes its name), ``folder`` (the entry just renamed or linked), ``new folders`` (each folder
the call created, synced into its parent).
"""

from __future__ import annotations

from enum import StrEnum


class SyncSite(StrEnum):
    """One place in the reference that makes a file or a folder durable."""

    INSTALL_FILE = "durable.install_no_overwrite: file"
    INSTALL_FOLDER = "durable.install_no_overwrite: folder"
    INSTALL_NEW_FOLDERS = "durable.install_no_overwrite: new folders"
    REPLACE_FILE = "durable.durable_replace: file"
    REPLACE_FOLDER = "durable.durable_replace: folder"
    REPLACE_NEW_FOLDERS = "durable.durable_replace: new folders"
    LOCK_NEW_FOLDERS = "rebase.lock: new folders"
    REMOVE_TEMPORARIES_FOLDER = "durable.remove_temporaries: folder"
    CONFIG_FILE = "owner_only.replace_keeping_mode: file"
    CONFIG_FOLDER = "owner_only.replace_keeping_mode: folder"
