"""Every OS-dependent primitive of the reference, each with a named branch per platform family.

One module per primitive family; :mod:`.family` is the one place that picks the branch
(:data:`CURRENT`, from ``sys.platform``), and each primitive takes ``platform=`` so a test can
ask for another family (tests/primitives/test_platform_emulation*.py, with pyfakefs).

- :mod:`.paths`: canonical paths (§0.2), Node's ``path.resolve``, Pi's session folder and file names;
- :mod:`.durable`: fsync, directory fsync, the no-overwrite durable install, the durable replace (§6.5);
- :mod:`.lock`: the SQLite writer lock the kernel drops when its holder dies (§6.12);
- :mod:`.identity`: file identity, the change stamp and the stat keys of caches (D15);
- :mod:`.owner_only`: owner-only files and folders (D6), the mode-keeping replace of a settings file;
- :mod:`.reads`: opening without following links and reading at an offset (§3.5, H7).

docs/platforms.md has the table primitive x platform x implementation x test.
"""

from __future__ import annotations

from reference.primitives.platform_ops.durable import (
    CODE_INSTALL_REFUSED,
    durable_replace,
    install_no_overwrite,
    remove_stale_temporaries,
    remove_temporaries,
    stale_temporaries,
    sync_directory,
    temporaries_in,
)
from reference.primitives.platform_ops.family import (
    CURRENT,
    IS_WINDOWS,
    MACOS,
    POSIX,
    WINDOWS,
    Platform,
    PlatformFamily,
    platform_of,
)
from reference.primitives.platform_ops.identity import (
    change_stamp,
    file_identity,
    remembers_by_stat,
    size_and_mtime,
    stat_identity,
)
from reference.primitives.platform_ops.lock import (
    ACQUIRE_STATEMENTS,
    BUSY_TIMEOUT_MS,
    acquire_writer_lock,
    release_writer_lock,
)
from reference.primitives.platform_ops.owner_only import (
    FILE_MODE,
    FOLDER_MODE,
    create_owner_only,
    ensure_private_dir,
    replace_keeping_mode,
)
from reference.primitives.platform_ops.paths import (
    canonical_path,
    default_session_dir,
    real_path,
    resolve_like_node,
    resolved_real_path,
    session_dir_name,
    session_file_name,
    without_verbatim_prefix,
)
from reference.primitives.platform_ops.reads import (
    NO_FOLLOW_READ_FLAGS,
    NONBLOCKING_READ_FLAGS,
    link_open_would_follow,
    read_at,
)

__all__ = [
    "ACQUIRE_STATEMENTS",
    "BUSY_TIMEOUT_MS",
    "CODE_INSTALL_REFUSED",
    "CURRENT",
    "FILE_MODE",
    "FOLDER_MODE",
    "IS_WINDOWS",
    "MACOS",
    "NONBLOCKING_READ_FLAGS",
    "NO_FOLLOW_READ_FLAGS",
    "POSIX",
    "WINDOWS",
    "Platform",
    "PlatformFamily",
    "acquire_writer_lock",
    "canonical_path",
    "change_stamp",
    "create_owner_only",
    "default_session_dir",
    "durable_replace",
    "ensure_private_dir",
    "file_identity",
    "install_no_overwrite",
    "link_open_would_follow",
    "platform_of",
    "read_at",
    "real_path",
    "release_writer_lock",
    "remembers_by_stat",
    "remove_stale_temporaries",
    "remove_temporaries",
    "replace_keeping_mode",
    "resolve_like_node",
    "resolved_real_path",
    "session_dir_name",
    "session_file_name",
    "size_and_mtime",
    "stale_temporaries",
    "stat_identity",
    "sync_directory",
    "temporaries_in",
    "without_verbatim_prefix",
]
