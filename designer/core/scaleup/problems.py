"""Problems of a design's scale-up domains: racks with trays missing or too many, and a
``domain`` label that gathers trays of different systems."""

from __future__ import annotations

import numpy as np

from designer.core.problems import MAX_NAMED_DEVICES, Problem, Severity
from designer.core.solver.compile import Compiled, mix64


def _named(c: Compiled, domains: np.ndarray) -> tuple[str, ...]:
    devs = np.flatnonzero(np.isin(c.domains.of_device, domains))
    return tuple(c.fabric.devices[int(i)].id for i in devs[:MAX_NAMED_DEVICES].tolist())


def domain_problems(c: Compiled) -> list[Problem]:
    dom = c.domains
    out: list[Problem] = []
    if not dom.count:
        return out
    over = np.flatnonzero(dom.servers > dom.expected)
    if over.size:
        d = int(over[0])
        out.append(Problem(
            Severity.ERROR, "domain-overfull",
            f"{over.size:,} scale-up domain(s) hold more trays than their system has (a "
            f"'{dom.spec_id[d]}' rack holds {int(dom.expected[d])}; one holds "
            f"{int(dom.servers[d])}): give the extra trays another 'domain' label",
            _named(c, over)))
    short = np.flatnonzero(dom.servers < dom.expected)
    if short.size:
        d = int(short[np.argmin(dom.servers[short])])
        alone = int((dom.servers[short] == 1).sum())
        why = (f"; {alone:,} tray(s) carry no 'domain' label and count as a rack of one"
               if alone else "")
        out.append(Problem(
            Severity.WARNING, "domain-incomplete",
            f"{short.size:,} rack-scale domain(s) hold fewer trays than their system (fewest: "
            f"{int(dom.servers[d])} of {int(dom.expected[d])} '{dom.spec_id[d]}' trays){why}; "
            "their GPUs reach each other over the fabric",
            _named(c, short)))
    out.extend(_rack_rails(c))
    if dom.mixed.size:
        out.append(Problem(
            Severity.ERROR, "domain-mixed",
            f"{dom.mixed.size:,} tray(s) share a 'domain' label with trays of another system; "
            "a scale-up domain is one system's trays",
            tuple(c.fabric.devices[int(i)].id for i in dom.mixed[:MAX_NAMED_DEVICES].tolist())))
    return out


def _rack_rails(c: Compiled) -> list[Problem]:
    """A rail leaf takes the same GPU positions of every rack it serves (tray j's four GPUs of
    eight racks, say): flag rail leaves whose racks reach them from different positions."""
    dom = c.domains
    if not dom.count or not dom.summary.rack_scale:
        return []
    rail = c.groups.get("rail")
    if rail is None:
        return []
    of = dom.of_device
    multi = np.zeros(dom.count + 1, bool)
    multi[:-1] = dom.expected > 1
    a, b = c.cables["a"].astype(np.int64), c.cables["b"].astype(np.int64)
    pa, pb = c.cables["a_port"].astype(np.int64), c.cables["b_port"].astype(np.int64)
    on_a = (of[a] >= 0) & multi[of[a]] & (rail[b] > 0)
    on_b = (of[b] >= 0) & multi[of[b]] & (rail[a] > 0)
    srv = np.r_[a[on_a], b[on_b]]
    port = np.r_[pa[on_a], pb[on_b]]
    leaf = np.r_[b[on_a], a[on_b]]
    if not srv.size:
        return []
    # a tray's place in its rack: its rank among the rack's trays, in device order
    trays = np.flatnonzero(of >= 0)
    order = trays[np.lexsort((trays, of[trays]))]
    starts = np.r_[0, np.flatnonzero(np.diff(of[order])) + 1]
    rank = np.zeros(of.size, np.int64)
    rank[order] = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
    width = int(c.table.ports.max(initial=1)) + 1
    pos = rank[srv] * width + port
    key = leaf * (dom.count + 1) + of[srv]
    # summed per (leaf, rack) pair present, not in a table as long as the largest key
    # (37,752 devices x 1,821 racks: a 550 MB table, filled in one call that held the
    # interpreter 40 ms); a sum modulo 2**64 does not depend on the order it is made in
    pairs, inverse = np.unique(key, return_inverse=True)
    sig = np.zeros(pairs.size, np.uint64)
    with np.errstate(over="ignore"):
        np.add.at(sig, inverse, mix64(pos.astype(np.uint64)))
    lf = pairs // (dom.count + 1)
    lo = np.full(of.size, np.iinfo(np.uint64).max, np.uint64)
    hi = np.zeros(of.size, np.uint64)
    np.minimum.at(lo, lf, sig)
    np.maximum.at(hi, lf, sig)
    mixed = np.flatnonzero((hi > 0) & (lo != hi))
    if not mixed.size:
        return []
    return [Problem(
        Severity.WARNING, "uneven-rails",
        f"{mixed.size:,} rail leaf switch(es) take different GPU positions of the racks they "
        "serve (a rail is a GPU's position in its rack; every rack belongs on a rail leaf the "
        "same way)",
        tuple(c.fabric.devices[int(i)].id for i in mixed[:MAX_NAMED_DEVICES].tolist()))]
