"""The header version policy (``reference.pi.exact.header``): one table of what each version value is,
and what each reader refuses, checked against literal expectations."""

from __future__ import annotations

from typing import Any

import pytest

from reference.pi.exact.header import (
    VersionStatus,
    is_current_version,
    legacy_version,
    refuse_unindexable_version,
    require_current_version,
    version_status,
)
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import UNDEFINED

TABLE: list[tuple[Any, VersionStatus]] = [
    (UNDEFINED, VersionStatus.LEGACY_1), (None, VersionStatus.LEGACY_1), (0, VersionStatus.LEGACY_1),
    (1, VersionStatus.LEGACY_1), (1.9, VersionStatus.LEGACY_1), (2, VersionStatus.LEGACY_2),
    (2.5, VersionStatus.LEGACY_2), (3, VersionStatus.CURRENT), (3.0, VersionStatus.CURRENT),
    (3.5, VersionStatus.NEWER), (4, VersionStatus.NEWER), (float("nan"), VersionStatus.NOT_A_NUMBER),
    ("3", VersionStatus.NOT_A_NUMBER), ("4", VersionStatus.NOT_A_NUMBER), (True, VersionStatus.NOT_A_NUMBER),
    (False, VersionStatus.NOT_A_NUMBER), ({}, VersionStatus.NOT_A_NUMBER), ([3], VersionStatus.NOT_A_NUMBER),
]


@pytest.mark.parametrize(("version", "status"), TABLE)
def test_each_version_value_has_one_status(version: Any, status: VersionStatus) -> None:
    assert version_status(version) is status
    assert legacy_version(version) == {VersionStatus.LEGACY_1: 1, VersionStatus.LEGACY_2: 2}.get(status)
    assert is_current_version(version) == (status is VersionStatus.CURRENT)


@pytest.mark.parametrize(("version", "status"), TABLE)
def test_a_rebase_source_needs_exactly_version_3(version: Any, status: VersionStatus) -> None:
    if status is VersionStatus.CURRENT:
        require_current_version(version)
        return
    with pytest.raises(ContractViolation) as refused:
        require_current_version(version)
    assert refused.value.code == "unsupported-source-version"


@pytest.mark.parametrize(("version", "status"), TABLE)
def test_the_index_refuses_legacy_and_newer_numbers_only(version: Any, status: VersionStatus) -> None:
    if status in (VersionStatus.CURRENT, VersionStatus.NOT_A_NUMBER):
        refuse_unindexable_version(version, "/s.jsonl")
        return
    with pytest.raises(ContractViolation) as refused:
        refuse_unindexable_version(version, "/s.jsonl")
    assert refused.value.code == "unsupported-source-version"
    assert ("legacy" in refused.value.message) == (status is not VersionStatus.NEWER)
