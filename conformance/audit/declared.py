"""The mapping an implementation declares in its hello (``auditMapping``), for ``conformance run --audit``."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from conformance.audit.mapping import MappingError, ProjectionMapping, load_mapping, reference_mapping
from conformance.protocol import ImplInfo

#: The mappings the toolkit ships, by the name a hello may give instead of a path.
SHIPPED: Final = {"reference": reference_mapping}


def declared_mapping(info: ImplInfo) -> ProjectionMapping | None:
    """The implementation's mapping, or ``None`` when it declares none; a mapping it names but that
    cannot be used raises :class:`MappingError`."""
    if info.audit_mapping is None:
        return None
    shipped = SHIPPED.get(info.audit_mapping)
    if shipped is not None:
        return shipped()
    path = Path(info.audit_mapping)
    if not path.is_absolute():
        raise MappingError(f"the hello's auditMapping {info.audit_mapping!r} is neither a shipped mapping "
                           f"({', '.join(SHIPPED)}) nor an absolute path")
    return load_mapping(path)
