"""What a network costs per endpoint, with and without the NIC side, and the InfiniBand premium
one design pair implies.

Papers count cost per endpoint differently: DeepSeek's ISCA 2025 comparison (arXiv 2505.09343)
counts the fabric (switches, optics, cables); a buyer's quote adds the NICs and the optics
that sit in them. Both are given. The premium splits the difference of two designs' network
bills by category, so a user sees where it comes from (the published range, 15-30%, is for
the network as bought).
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.catalog import Catalog, MediumSpec
from designer.core.errors import DesignerError
from designer.core.solver import Result

PUBLISHED_PREMIUM = (0.15, 0.30)  # InfiniBand over Ethernet, as the articles put it
PUBLISHED_PREMIUM_SOURCE = ("seed article 'GPU Cluster Networking: InfiniBand vs. RoCE' and "
                            "DOMAIN.md: InfiniBand often carries a 15-30% premium over RoCE")
CATEGORIES = ("switch", "nic_side", "fabric_links")


def endpoints(result: Result) -> int:
    """Fabric ports of the endpoints (a GPU on two planes has two)."""
    n = sum(v for k, v in result.links.by_layer.items() if k.startswith("endpoint"))
    return n or result.gpus


def split(result: Result, catalog: Catalog) -> dict[str, float]:
    """The network bill by category: switches, the NIC side (NICs and the optics in them) and
    the fabric's links (the other optics, cables, fibres)."""
    out = dict.fromkeys(CATEGORIES, 0.0)
    for line in result.bom.lines:
        if line.category == "switch":
            out["switch"] += line.total_usd
        elif line.category == "nic":
            out["nic_side"] += line.total_usd
        elif line.category in ("transceiver", "cable", "fiber", "fibre"):
            try:
                spec = catalog.get(line.catalog_id)
            except DesignerError:
                spec = None
            nic = isinstance(spec, MediumSpec) and spec.host == "nic"
            out["nic_side" if nic else "fabric_links"] += line.total_usd
        else:
            out["fabric_links"] += line.total_usd
    return out


def cost_per_endpoint(result: Result, catalog: Catalog) -> tuple[float, float]:
    """(with the NIC side, fabric only) per endpoint port."""
    parts = split(result, catalog)
    n = endpoints(result)
    total = sum(parts.values())
    return total / n, (total - parts["nic_side"]) / n


@dataclass(frozen=True)
class Premium:
    """InfiniBand's network capex over Ethernet's, in all and by category (fractions)."""

    total: float
    by_category: dict[str, float]

    def text(self) -> str:
        lo, hi = PUBLISHED_PREMIUM
        where = "inside" if lo <= self.total <= hi else "below" if self.total < lo else "above"
        parts = ", ".join(f"{k.replace('_', ' ')} {v:+.0%}" for k, v in self.by_category.items())
        if self.total < 0:
            return (f"InfiniBand costs {-self.total:.1%} less on network capex ({parts}); the "
                    f"published premium is {lo:.0%}-{hi:.0%} more")
        return (f"InfiniBand premium {self.total:+.1%} on network capex ({parts}); {where} the "
                f"published {lo:.0%}-{hi:.0%}")

    def to_json(self) -> dict:
        return {"total": round(self.total, 6),
                "by_category": {k: round(v, 6) for k, v in self.by_category.items()},
                "published_range": list(PUBLISHED_PREMIUM)}


def premium(ib: Result, eth: Result, catalog: Catalog) -> Premium:
    a, b = split(ib, catalog), split(eth, catalog)
    by = {k: (a[k] / b[k] - 1) if b[k] > 0 else 0.0 for k in CATEGORIES}
    tb = sum(b.values())
    return Premium(sum(a.values()) / tb - 1 if tb > 0 else 0.0, by)
