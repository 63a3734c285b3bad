"""The error codes of ``/context config`` and the loader's refusal of a candidate.

docs/configuration.md explains each code; a :class:`ConfigError` is what the loader turns into
a "configuration ignored" warning and what ``set``/``unset`` report as ``config-invalid``.
"""

from __future__ import annotations

from typing import Final

CODE_UNKNOWN_PATH: Final = "config-unknown-path"
CODE_INVALID_VALUE: Final = "config-invalid-value"
CODE_PROJECT_UNTRUSTED: Final = "config-project-untrusted"
CODE_FILE_MALFORMED: Final = "config-file-malformed"
CODE_INVALID: Final = "config-invalid"
CODE_NOT_SET: Final = "config-not-set"
CODE_UNKNOWN_OPTION: Final = "config-unknown-option"
CODE_USAGE: Final = "config-usage"
CODE_IO: Final = "config-io-error"


class ConfigError(ValueError):
    """A configuration candidate or file the extension refuses; ``str()`` is the message."""
