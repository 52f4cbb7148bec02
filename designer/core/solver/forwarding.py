"""Cross-rail traffic on a rail-only fabric, forwarded through the scale-up domain.

A rail-only fabric (arXiv 2307.12169) has one network per rail and nothing joining them: a
GPU reaches a GPU of another rail only by first moving the data over its scale-up domain
(NVLink) to the GPU of its own domain that sits on the destination's rail, which then sends it
over that rail. The rules here, and what they give:

* **Which GPU forwards.** A flow from GPU s to GPU d on another rail leaves from the GPU of
  s's domain that is on d's rail (the sender side forwards, as the paper's all-to-all does).
  One NVLink hop, one rail; flows already on d's rail are untouched.
* **Bisection with forwarding.** A balanced cut that keeps domains whole cuts every rail in
  a balanced cut of that rail's GPUs (a domain has as many GPUs on each rail), so the design's
  bisection is at least the sum over rails of each rail's own bisection, and equal to it
  when the rails are alike (a generated design): the solver's layered certificate per rail
  with the rail's own GPUs halved.
* **All-to-all overhead.** In a uniform all-to-all over R rails, (R-1)/R of a GPU's bytes are
  on other rails and cross NVLink once before the NIC; the forwarding adds that share of the
  bytes at the NVLink rate to the NIC-bound time, a relative overhead of
  (R-1)/R x NIC rate / NVLink rate. For a DGX H100 (400G NICs, NVLink 450 GB/s each way) this
  is 9.7% at 8 rails, 8.3% at 4 and 11.1% as R grows: the paper's measured 8.2% to 11.2%.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.solver.certificates import layered_bound
from designer.core.solver.compile import Compiled
from designer.core.solver.cuts import components

SOURCE = "Wang et al., Rail-only, arXiv 2307.12169"


@dataclass(frozen=True)
class RailForwarding:
    """What a rail-only design gives once the scale-up domains forward between rails."""

    rails: int  # fabric components the GPUs of one domain are spread over
    domains: int
    bisection_gbps: float  # with forwarding (a lower bound; exact when the rails are alike)
    full_gbps: float  # N/2 x the per-GPU rate
    nic_gbps: float  # one GPU's network rate
    nvlink_gbytes_s: float  # one GPU's scale-up rate, one direction (0: not known)
    method: str

    @property
    def fraction_of_full(self) -> float:
        return self.bisection_gbps / self.full_gbps if self.full_gbps > 0 else 0.0

    @property
    def a2a_overhead(self) -> float:
        return a2a_overhead(self.rails, self.nic_gbps, self.nvlink_gbytes_s)

    def to_json(self) -> dict:
        return {"rails": self.rails, "domains": self.domains,
                "bisection_gbps": round(self.bisection_gbps, 3),
                "fraction_of_full": round(self.fraction_of_full, 6),
                "nic_gbps": self.nic_gbps, "nvlink_gbytes_s": self.nvlink_gbytes_s,
                "all_to_all_overhead": round(self.a2a_overhead, 6), "method": self.method,
                "source": SOURCE}


def a2a_overhead(rails: int, nic_gbps: float, nvlink_gbytes_s: float) -> float:
    """Extra time of a uniform all-to-all from forwarding: (R-1)/R x NIC rate / NVLink rate
    (both per GPU, one direction); 0 when the NVLink rate is not known."""
    if rails <= 1 or nvlink_gbytes_s <= 0:
        return 0.0
    return (rails - 1) / rails * (nic_gbps / 8.0) / nvlink_gbytes_s


def rail_of_gpus(c: Compiled) -> tuple[int, np.ndarray] | None:
    """(rails, rail of every GPU, -1 when unattached) when the design is rail-only shaped:
    every GPU's links lie in one fabric component, and some scale-up domain has GPUs in more
    than one. None otherwise (a connected fabric, or multi-plane NICs in every plane)."""
    n_comp, comp = components(c)
    cl = c.classes
    if n_comp < 2 or c.n_gpus == 0 or cl.n == 0 or not (c.gpu_class >= 0).any():
        return None
    att_comp = comp[cl.att_switch]
    owner = cl.owner
    lo = np.full(cl.n, n_comp, np.int64)
    hi = np.full(cl.n, -1, np.int64)
    np.minimum.at(lo, owner, att_comp)
    np.maximum.at(hi, owner, att_comp)
    if (lo != hi).any():  # a GPU in several components: planes, not rails
        return None
    g_rail = np.where(c.gpu_class >= 0, lo[np.maximum(c.gpu_class, 0)], -1)
    used = np.unique(g_rail[g_rail >= 0])
    remap = np.full(n_comp, -1, np.int64)
    remap[used] = np.arange(used.size)
    g_rail = np.where(g_rail >= 0, remap[np.maximum(g_rail, 0)], -1)
    dom = c.gpu_domain
    ok = (g_rail >= 0) & (dom >= 0)
    if not ok.any():
        return None
    pairs = np.unique(dom[ok] * used.size + g_rail[ok])
    per_dom = np.bincount(pairs // used.size, minlength=int(dom.max(initial=-1)) + 1)
    if used.size < 2 or per_dom.max(initial=0) < 2:
        return None
    return int(used.size), g_rail


def rail_forwarding(c: Compiled, nvlink_gbytes_s: float = 0.0) -> RailForwarding | None:
    """The forwarded figures of a rail-only design (None for any other design)."""
    found = rail_of_gpus(c)
    if found is None:
        return None
    rails, g_rail = found
    _, comp = components(c)
    cl = c.classes
    # rail k's switches: the components its GPUs attach to
    first = cl.att_switch[cl.ptr[np.maximum(c.gpu_class, 0)]]
    total, methods = 0.0, set()
    rates = cl.rate[np.maximum(c.gpu_class, 0)]
    for k in range(rails):
        mine = g_rail == k
        if not mine.any():
            continue
        in_comp = comp == comp[first[np.flatnonzero(mine)[0]]]
        b = layered_bound(c, in_comp, n_total=int(mine.sum()))
        if b is None:
            methods.add("none")
            continue
        total += b.gbps
        methods.add(b.method)
    ok = c.gpu_class >= 0
    rate = float(np.median(rates[ok])) if ok.any() else 0.0
    full = (c.n_gpus // 2) * rate
    dom = int(c.gpu_domain.max(initial=-1)) + 1
    method = ("sum of each rail's bisection, domains kept whole (" + ", ".join(sorted(methods))
              + ")")
    return RailForwarding(rails, dom, min(total, full), full, rate, nvlink_gbytes_s, method)


def forward_sources(c: Compiled, src: np.ndarray, dst: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """Sources after forwarding: a flow whose destination is on another rail leaves from the
    GPU of its source's domain on the destination's rail; and which flows were forwarded.
    None when the design is not rail-only shaped."""
    found = rail_of_gpus(c)
    if found is None:
        return None
    rails, g_rail = found
    dom = c.gpu_domain
    n_dom = int(dom.max(initial=-1)) + 1
    g_rail = np.where(dom >= 0, g_rail, -1)
    # the first GPU of each (domain, rail): a dense table, domains x rails
    none = np.iinfo(np.int64).max
    table = np.full(n_dom * rails, none, np.int64)
    ok = np.flatnonzero(g_rail >= 0)
    np.minimum.at(table, dom[ok] * rails + g_rail[ok], ok)  # the lowest-numbered GPU
    table[table == none] = -1
    s_rail, d_rail = g_rail[src], g_rail[dst]
    moved = (s_rail != d_rail) & (d_rail >= 0) & (dom[src] >= 0)
    via = table[np.where(moved, dom[src] * rails + np.maximum(d_rail, 0), 0)]
    moved &= via >= 0
    return np.where(moved, via, src), moved
