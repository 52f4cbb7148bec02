"""Scale-up domains: GPUs joined by NVLink, Infinity Fabric or UALink that reach each other over
it and never through the scale-out fabric (an 8-GPU server, an NVL72 rack of 18 trays)."""

from designer.core.scaleup.domains import (
    DOMAIN_KEY,
    DomainSummary,
    DomainTable,
    domain_table,
)

__all__ = ["DOMAIN_KEY", "DomainSummary", "DomainTable", "domain_table"]
