"""Scale-up domains: GPUs joined by NVLink, Infinity Fabric or UALink that reach each other over
it and never through the scale-out fabric (an 8-GPU server, an NVL72 rack of 18 trays)."""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names
from designer.core.scaleup.domains import (
    DOMAIN_KEY,
    DomainSummary,
    DomainTable,
    domain_table,
)

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "add_system": "edit",
    "is_rack_scale": "edit",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.scaleup.edit import add_system, is_rack_scale

__all__ = [
    "DOMAIN_KEY",
    "DomainSummary",
    "DomainTable",
    "add_system",
    "domain_table",
    "is_rack_scale",
]
