"""The catalog of the feature's paths: what ``/context config`` shows and edits (contract §1.5).

The loader knows the whole upstream shape (``defaults``); the catalog lists only the paths this
feature has or reads, in the upstream catalog's order.  Other keys still load, validate and
survive edits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from reference.config.defaults import CLASSIFICATIONS, DEFAULT_CONFIG, HISTORY_SCOPES
from reference.config.dotted_paths import get_path

Kind = Literal["boolean", "integer", "enum", "string-array", "enum-array", "classification-map"]

#: Bounded integers of the feature, ``path -> (min, max)``; shared by catalog, checks and schema.
INTEGER_BOUNDS: Final[Mapping[str, tuple[int, int]]] = {
    "sessionRebase.checkpointTargetTokens": (512, 24000),
    "sessionRebase.suggestAfterCompactions": (1, 100),
    "sessionRebase.suggestAboveSessionMiB": (1, 1024),
    "historyTools.maxResults": (1, 12),
    "historyTools.maxOutputTokens": (256, 6000),
    "historyTools.maxProjectSessions": (1, 500),
}


@dataclass(frozen=True)
class CatalogField:
    """One editable path: how ``set`` parses it and how ``show`` hints it."""

    path: str
    kind: Kind
    description: str
    values: tuple[str, ...] = ()
    optional: bool = False

    @property
    def default(self) -> Any:
        return get_path(DEFAULT_CONFIG, self.path)


def _field(path: str, kind: Kind, description: str, values: Sequence[str] = (), optional: bool = False) -> CatalogField:
    return CatalogField(path, kind, description, tuple(values), optional)


#: In the upstream catalog's order, so ``show`` groups sections the same way.
CATALOG: Final[tuple[CatalogField, ...]] = (
    _field("enabled", "boolean", "Master switch; when false the history tools and rebase answer disabled."),
    _field("context.mode", "enum", "observer only records; managed plans the context and runs the memory manager.",
           ("observer", "managed")),
    _field("sessionRebase.enabled", "boolean", "Allow the manual /context rebase command (on by default)."),
    _field("sessionRebase.mode", "enum", "Rebase starts only when the user asks; manual is the only mode.", ("manual",)),
    _field("sessionRebase.suggestAfterCompactions", "integer",
           "Reserved suggestion threshold, 1 to 100 compactions; checked but not acted on."),
    _field("sessionRebase.suggestAboveSessionMiB", "integer",
           "Reserved session-size threshold, 1 to 1024 MiB; checked but not acted on."),
    _field("sessionRebase.checkpointTargetTokens", "integer",
           "Budget the whole handoff must fit, 512 to 24000 chars-v1 tokens."),
    _field("sessionRebase.preserveSource", "boolean", "Must stay true: the source session file is never cut or deleted."),
    _field("historyTools.enabled", "boolean", "Activate the three context_history_* tools at session start (on by default)."),
    _field("historyTools.defaultScope", "enum", "Scope of a recall that names none; project scope is always explicit.",
           HISTORY_SCOPES),
    _field("historyTools.maxResults", "integer", "Hits per recall and cap on a request's limit, 1 to 12."),
    _field("historyTools.maxOutputTokens", "integer",
           "Result budget and cap on a request's budget, 256 to 6000 chars-v1 tokens."),
    _field("historyTools.allowProjectScope", "boolean", "Permit explicit project-scope recall in a trusted project only."),
    _field("historyTools.includeSummaries", "boolean", "Default for returning summaries as derived, unconfirmed evidence."),
    _field("historyTools.maxProjectSessions", "integer", "Sibling session files one project recall examines, 1 to 500."),
    _field("retrieval.exact", "boolean", "Exact-match lexical search; explicit recall honours it."),
    _field("retrieval.fts", "boolean", "Full-text lexical search; explicit recall honours it."),
    _field("retrieval.semantic", "boolean", "Vector candidates for automatic retrieval; explicit recall ignores it."),
    _field("memory.enabled", "boolean", "Pins and durable memory; with managed mode this is rebase's memory bridge."),
    _field("privacy.enabled", "boolean", "Privacy policy for automatic context; history tools apply the lists anyway."),
    _field("privacy.defaultClassification", "enum", "Classification of content without a marker.", CLASSIFICATIONS),
    _field("privacy.localProviders", "string-array", "Providers treated as local (JSON array of names)."),
    _field("privacy.remoteDefaultAllowed", "enum-array",
           "Classifications any remote provider may receive (JSON array).", CLASSIFICATIONS),
    _field("privacy.remoteProviders", "classification-map",
           "Allowed classifications per remote provider (JSON object name -> array).", optional=True),
    _field("privacy.redactSecrets", "boolean", "Redact secret-like strings even when privacy.enabled is false."),
)


def find_field(path: str) -> CatalogField | None:
    """The catalog entry of ``path``, or None when the feature does not edit it."""
    return next((item for item in CATALOG if item.path == path), None)
