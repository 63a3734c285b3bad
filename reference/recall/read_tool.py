"""``context_history_read`` (contract §3.3): resolve a live reference, check that its entry is
still in the reference's scope, verify the source, classify the entry for the current provider
and return a line window of its text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.privacy.entry import classify_entry
from reference.privacy.policy import ProviderPolicy
from reference.recall.envelope import ReadResult
from reference.recall.history_state import HistoryState
from reference.recall.read_window import read_envelope
from reference.recall.refs import SourceRef
from reference.recall.request import check_reference, validate_read_range
from reference.recall.scope import ResolvedScope
from reference.recall.searchable import searchable_text
from reference.recall.source_verify import entry_locator, verify_source


def run_read(service: HistoryState, params: Mapping[str, Any]) -> ReadResult:
    with service.connection() as conn:  # runtime access first: step 1 comes before the reference's steps
        ref_text = check_reference(params)
        ref = service.refs.resolve(ref_text, service.host.session_id)
        if ref is None:
            raise ContractViolation(Code.REFERENCE_EXPIRED, "the reference expired or was never issued here")
        scope = service.scopes.resolve(conn, ref.scope, service.host)
        if not _in_scope(ref, scope):
            raise ContractViolation(Code.REFERENCE_OUT_OF_SCOPE, "the entry is no longer in the reference's scope")
        window = validate_read_range(params, service.history_config)
        locator = entry_locator(conn, f"{ref.session_id}:{ref.entry_id}")
    if locator is None:
        raise ContractViolation(Code.SOURCE_UNAVAILABLE, "the entry has no locator in the index")
    entry = verify_source(
        session_file=ref.session_file,
        session_id=ref.session_id,
        project_path=ref.project_path,
        entry_id=ref.entry_id,
        content_hash=ref.content_hash,
        start=locator[0],
        end=locator[1],
    )
    service.settle_provider()
    privacy_config = service.host.config["privacy"]
    policy = ProviderPolicy.from_config(privacy_config, service.host.provider)
    text = searchable_text(entry)
    private = classify_entry(entry, text, policy=policy, privacy_config=privacy_config,
                             ref_classification=ref.classification, content_hash=ref.content_hash,
                             findings=service.findings)
    if private.omitted:
        raise ContractViolation(Code.PRIVACY_OMITTED, "the current provider may not receive this entry")
    service.refs.raise_classification(ref.ref, private.classification)
    return read_envelope(ref, private.classification, private.text, window.start_line, window.max_lines,
                         window.budget)


def _in_scope(ref: SourceRef, scope: ResolvedScope) -> bool:
    return any(s.session_id == ref.session_id and s.session_file == ref.session_file
               and ref.entry_id in s.authorized_ids for s in scope.sources)
