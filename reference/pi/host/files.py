"""Pi's small host files (settings, trust store, ds4-context.json) read as Node reads them, but
bounded (issue 12): only a regular file, and at most ``CONFIG_FILE_LIMIT`` bytes."""

from __future__ import annotations

import errno
import os
import stat
from typing import Final

from reference.primitives.platform_ops.reads import NONBLOCKING_READ_FLAGS

#: The largest configuration, settings or trust file read (issue 12): Pi's are a few KB, and
#: without a bound a symlink to ``/dev/zero`` reads until memory runs out.
CONFIG_FILE_LIMIT: Final = 4 * 1024 * 1024
#: Open without waiting for a writer, so a FIFO cannot hang the read (absent, 0, on Windows).
_OPEN_FLAGS: Final = NONBLOCKING_READ_FLAGS


def read_text(path: str) -> str:
    """Node's ``readFileSync(path, "utf-8")``: invalid UTF-8 becomes U+FFFD, it is not an error.

    Unlike Node, only a regular file of at most ``CONFIG_FILE_LIMIT`` bytes is read (issue 12): a
    FIFO, a device or a folder is an ``OSError`` saying so, never a hang or an endless read."""
    fd = os.open(path, _OPEN_FLAGS)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        data = handle.read(CONFIG_FILE_LIMIT + 1)
    if len(data) > CONFIG_FILE_LIMIT:
        raise OSError(errno.EFBIG, f"larger than {CONFIG_FILE_LIMIT} bytes", path)
    return data.decode("utf-8", errors="replace")
