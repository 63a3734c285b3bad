"""The error codes of ``/context config`` and the loader's refusal of a candidate.

docs/configuration.md explains each code; a :class:`ConfigError` is what the loader turns into
a "configuration ignored" warning and what ``set``/``unset`` report as ``config-invalid``.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A configuration candidate or file the extension refuses; ``str()`` is the message."""
