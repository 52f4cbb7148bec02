"""Hop counts and latency over all pairs of GPUs in different scale-up domains (servers, or
the NVL72 racks of their trays), without a pair loop.

GPUs that attach the same way form a class (all GPUs under one ToR leaf), and every GPU of a
class sees the same distances. One shortest-path search on the switch graph from a class's
switches gives its distances to every class; the pair counts between classes (minus pairs in
the same server, which talk over NVLink) weight them. Classes with the same colour under
colour refinement are searched once and the answer is checked on two more members of the
colour; where a member differs, every class of that colour is searched.

A path is the one with fewest switches and, among those, the lowest latency: twice the NIC
latency, every switch's latency, propagation over every cable, and serialization of the
message once (cut-through) at the slower of the two GPU ports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import csr_matrix

from designer.core.solver import path_methods, switch_pairs
from designer.core.solver.compile import HOP_WEIGHT, TECHS, Compiled
from designer.core.solver.control import Control
from designer.core.solver.layered import layered_distances
from designer.core.solver.symmetry import ball2_sizes, class_colours
from designer.core.sources.figures import IDLE_STATIC, latency_figures

SCOPE = ("ordered pairs of GPUs in different scale-up domains (servers or NVLink racks), "
         "counted once per unordered pair")
SAMPLES = 16  # other members of each colour checked against its representative
SEARCH_BUDGET = 1500  # class searches allowed after symmetry failed on the first try
SEARCH_ALL_WORK = 4_000_000  # classes x switch-graph entries below which every class is searched
BATCH_MAX = 64  # sources per shortest-path call, at most
LINKS_PER_BATCH = 400_000  # links walked per call: 10-30 ms between cancel checks
# Up to this many switch links the searches go level by level in numpy (layered.py): a solve
# then never imports scipy.sparse.csgraph (0.1-0.15 s of start-up, more than a 1,024-GPU
# solve); past it scipy's Dijkstra is faster (1.4-1.7x at 8,192-65,536 GPUs) and the import
# is small beside the solve
LAYERED_MAX_LINKS = 20_000
PREFETCH = 16  # colours whose picked classes are searched together
FORCE_SWITCH_PAIRS: bool | None = None  # tests: force (True) or forbid (False) that method


@dataclass(frozen=True)
class HopStats:
    min: int | None
    mean: float | None
    p50: float | None
    p99: float | None
    max: int | None
    histogram: dict[int, int]  # switches traversed -> unordered GPU pairs
    pairs: int
    unreachable_pairs: int
    scope: str = SCOPE

    def to_json(self) -> dict:
        return {
            "min": self.min,
            "mean": None if self.mean is None else round(self.mean, 6),
            "p50": self.p50,
            "p99": self.p99,
            "max": self.max,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
            "pairs": self.pairs,
            "unreachable_pairs": self.unreachable_pairs,
            "scope": self.scope,
        }


@dataclass(frozen=True)
class LatencyStats:
    min_us: float | None
    mean_us: float | None
    p50_us: float | None
    p99_us: float | None
    max_us: float | None
    edges_us: tuple[float, ...]  # histogram bin edges
    counts: tuple[int, ...]  # unordered GPU pairs per bin
    by_hops_us: dict[int, float]  # mean latency per switch count
    assumptions: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "min": r(self.min_us),
            "mean": r(self.mean_us),
            "p50": r(self.p50_us),
            "p99": r(self.p99_us),
            "max": r(self.max_us),
            "histogram": {"edges_us": [round(e, 4) for e in self.edges_us],
                          "pairs": list(self.counts)},
            "mean_by_hops": {str(k): round(v, 4) for k, v in sorted(self.by_hops_us.items())},
            "assumptions": self.assumptions,
        }


@dataclass(frozen=True)
class PathStats:
    hops: HopStats
    latency: LatencyStats
    searches: int  # shortest-path searches run
    colours: int  # classes of alike GPU classes
    verified: bool  # every sampled member agreed with its representative
    method: str = ""  # how the classes were searched


class _Accumulator:
    """Weighted hop histogram and weighted latency values (kept exact, merged by value)."""

    def __init__(self) -> None:
        self.hops = np.zeros(8)
        self.hop_lat = np.zeros(8)
        self.vals: list[np.ndarray] = []
        self.wts: list[np.ndarray] = []
        self.size = 0
        self.unreachable = 0.0

    def add(self, hops: np.ndarray, lat_ns: np.ndarray, w: np.ndarray, reach: np.ndarray) -> None:
        self.unreachable += float(w[~reach].sum())
        keep = reach & (w > 0)
        h, lat, w = hops[keep], lat_ns[keep], w[keep]
        if not w.size:
            return
        hb = np.bincount(h, weights=w)
        self._grow(hb.size)
        self.hops[: hb.size] += hb
        self.hop_lat[: hb.size] += np.bincount(h, weights=w * lat)
        v, inv = np.unique(np.round(lat, 3), return_inverse=True)
        self._push(v, np.bincount(inv.reshape(-1), weights=w))

    def _grow(self, n: int) -> None:
        if n > self.hops.size:
            self.hops = np.r_[self.hops, np.zeros(n - self.hops.size)]
            self.hop_lat = np.r_[self.hop_lat, np.zeros(n - self.hop_lat.size)]

    def _push(self, v: np.ndarray, w: np.ndarray) -> None:
        self.vals.append(v)
        self.wts.append(w)
        self.size += v.size
        if self.size > 200_000:
            self.compact()

    def compact(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.vals:
            return np.empty(0), np.empty(0)
        v = np.concatenate(self.vals)
        w = np.concatenate(self.wts)
        uv, inv = np.unique(v, return_inverse=True)
        uw = np.bincount(inv.reshape(-1), weights=w)
        self.vals, self.wts, self.size = [uv], [uw], uv.size
        return uv, uw

    def merge(self, other: _Accumulator, times: float) -> None:
        self._grow(other.hops.size)
        self.hops[: other.hops.size] += other.hops * times
        self.hop_lat[: other.hop_lat.size] += other.hop_lat * times
        self.unreachable += other.unreachable * times
        v, w = other.compact()
        if v.size:
            self._push(v, w * times)

    def signature(self) -> tuple:
        v, w = self.compact()
        h = np.trim_zeros(np.round(self.hops).astype(np.int64), "b")
        return h.tobytes(), v.tobytes(), np.round(w).astype(np.int64).tobytes(), round(
            self.unreachable)


def _graph(c: Compiled) -> csr_matrix:
    S = c.n_switches
    w = HOP_WEIGHT + c.adj_prop_ns + c.switch_ns[c.sw][c.indices]
    return csr_matrix((w, c.indices, c.indptr), shape=(S, S))


def same_domain_pairs(c: Compiled) -> csr_matrix:
    """Classes x classes: ordered GPU pairs inside one scale-up domain (each GPU with itself
    included), the pairs that talk over NVLink and never reach the fabric."""
    cl = c.classes
    n_dom = int(cl.dom_id.max()) + 1 if cl.dom_id.size else 0
    m = csr_matrix((cl.dom_count.astype(np.float64), (cl.dom_id, cl.dom_class)),
                   shape=(n_dom, cl.n))
    return (m.T @ m).tocsr()


def path_stats(c: Compiled, control: Control | None = None) -> PathStats:
    ctl = control or Control()
    cl = c.classes
    st = c.project.analysis
    assumptions = _assumptions(c)
    if cl.n == 0 or c.n_switches == 0:
        return PathStats(_hop_stats(_Accumulator()), _latency_stats(_Accumulator(), assumptions),
                         0, 0, True)
    graph = _graph(c)
    same = same_domain_pairs(c)
    ser_bits = st.message_bytes * 8.0
    owner = cl.owner
    count = cl.count.astype(np.float64)

    def row(u: int, dist_of: dict[int, np.ndarray]) -> _Accumulator:
        lo, hi = cl.ptr[u], cl.ptr[u + 1]
        xs = cl.att_switch[lo:hi]
        off = HOP_WEIGHT + cl.att_prop_ns[lo:hi] + c.switch_ns[c.sw[xs]]
        d = np.stack([dist_of[int(x)] for x in xs])  # n_att(u) x S
        val = d[:, cl.att_switch] + off[:, None] + cl.att_prop_ns[None, :]
        bi = np.argmin(val, axis=0)
        best = val[bi, np.arange(val.shape[1])]
        speed = np.minimum(cl.att_cap[lo:hi][bi], cl.att_cap)
        per = np.minimum.reduceat(best, cl.ptr[:-1])
        at_min = best <= per[owner] + 1e-6
        path_speed = np.maximum.reduceat(np.where(at_min, speed, 0.0), cl.ptr[:-1])
        reach = np.isfinite(per)
        hops = np.where(reach, np.floor(per / HOP_WEIGHT + 1e-9), 0).astype(np.int64)
        lat = np.where(reach, per - hops * HOP_WEIGHT, 0.0)
        ser = np.where(path_speed > 0, ser_bits / np.maximum(path_speed, 1e-9), 0.0)
        total = lat + cl.nic_ns[u] + cl.nic_ns + ser
        # ordered pairs of GPUs in different domains: all pairs minus same-domain pairs (the
        # same-domain count includes each GPU with itself)
        w = count[u] * count
        srow = same.getrow(u)
        w[srow.indices] -= srow.data
        acc = _Accumulator()
        acc.add(hops, total, w, reach)
        return acc

    cache: dict[int, np.ndarray] = {}
    searches = 0

    def ensure(classes: list[int]) -> None:
        nonlocal searches
        need = sorted({int(x) for u in classes
                       for x in cl.att_switch[cl.ptr[u]:cl.ptr[u + 1]]} - set(cache))
        # sources per call: a search walks every link once, so a batch is sources x links
        batch = max(1, min(BATCH_MAX, LINKS_PER_BATCH // max(1, graph.nnz)))
        for i in range(0, len(need), batch):
            part = need[i:i + batch]
            res = None
            if graph.nnz <= LAYERED_MAX_LINKS:
                res = layered_distances(graph.indptr, graph.indices, graph.data - HOP_WEIGHT,
                                        np.asarray(part))
            if res is None:  # a large fabric, or more latency than one hop's weight
                from scipy.sparse.csgraph import dijkstra  # brings scipy.linalg: 0.1 s

                res = dijkstra(graph, directed=True, indices=part)
            for x, r in zip(part, np.atleast_2d(res), strict=True):
                cache[x] = r
            searches += len(part)
            ctl.check()

    def by_colour(colours: np.ndarray, final: bool):
        """Search one class per colour and check it on other members. On a disagreement:
        first pass, give up (None); final pass, search the colour class by class when the
        search budget allows, else estimate it from the members searched."""
        total = _Accumulator()
        order = np.argsort(colours, kind="stable")
        bounds = np.flatnonzero(np.r_[True, np.diff(colours[order]) != 0, True])
        n_col = bounds.size - 1
        per_colour = SAMPLES if not final else max(
            1, min(SAMPLES, SEARCH_BUDGET // max(n_col, 1)))
        split, estimated = 0, 0

        def picks_of(gi: int) -> np.ndarray:
            members = order[bounds[gi]:bounds[gi + 1]]
            k = min(per_colour, members.size - 1)
            # random members (fixed seed): evenly spaced picks can alias with the structure
            rng = np.random.default_rng(1_000_003 * gi + 17)
            return np.r_[0, 1 + rng.choice(members.size - 1, size=k, replace=False)] \
                if k > 0 else np.zeros(1, np.int64)

        for gi in range(n_col):
            members = order[bounds[gi]:bounds[gi + 1]]
            picks = picks_of(gi)
            if gi % PREFETCH == 0:
                # search the next colours' picks together: fewer, fuller native calls
                _trim(cache, force=True)
                ahead = [int(order[bounds[g]:bounds[g + 1]][i])
                         for g in range(gi, min(n_col, gi + PREFETCH))
                         for i in picks_of(g).tolist()]
                ensure(ahead)
            accs = []
            agree = True
            for i in picks.tolist():
                u = int(members[i])
                ensure([u])
                accs.append(row(u, cache))
                _evict(cache, cl, u)
                if accs[-1].signature() != accs[0].signature():
                    agree = False
                    if not final:
                        return None  # refine the colours and start again
            if agree:
                total.merge(accs[0], float(members.size))
            elif searches + members.size * _per_class(cl) <= SEARCH_BUDGET + SAMPLES:
                split += 1
                for u in members.tolist():
                    ensure([u])
                    total.merge(row(u, cache), 1.0)
                    _evict(cache, cl, u)
            else:
                estimated += 1
                for acc in accs:
                    total.merge(acc, members.size / len(accs))
            _trim(cache)
            ctl.step((gi + 1) / n_col)
        note = f"one search per colour, checked on up to {per_colour} other member(s) each"
        if split:
            note += f"; {split} colour(s) searched class by class"
        if estimated:
            note += (f"; {estimated} colour(s) too large to search class by class: estimated "
                     "from the members searched")
        return total, n_col, note, estimated == 0

    colours = class_colours(c, control=ctl)
    n_colours = int(colours.max()) + 1 if colours.size else 0
    if path_methods.prefer_switch_pairs(c, n_colours, SAMPLES, FORCE_SWITCH_PAIRS):
        # cables of their own lengths (a floor plan) make alike classes differ: build the
        # pair distribution from attachment-switch distances and cable-length counts instead
        try:
            sp = switch_pairs.pair_distribution(c, same, ser_bits, ctl)
        except switch_pairs.OutOfRange:
            sp = None  # a path over 134 us (km of cable): the class search below
        if sp is not None:
            total = _Accumulator()
            total.add(sp.hops, sp.lat_ns, sp.weight, np.ones(sp.weight.size, bool))
            total.unreachable += sp.unreachable
            return PathStats(_hop_stats(total), _latency_stats(total, assumptions),
                             sp.searches, n_colours, True, sp.method)
    if path_methods.prefer_table_rows(c, n_colours, SAMPLES, FORCE_SWITCH_PAIRS):
        # GPUs on several cables (planes) with cables of their own lengths: every class's row
        # from one table of attachment-switch distances, no search per class
        try:
            total = path_methods.rows_from_table(c, row, ctl, _Accumulator)
        except switch_pairs.OutOfRange:
            total = None
        if total is not None:
            return PathStats(_hop_stats(total), _latency_stats(total, assumptions), 0,
                             n_colours, True, "every GPU class, from a table of "
                             "attachment-switch distances (min-plus chain)")
    if cl.n * max(1, c.indices.size) <= SEARCH_ALL_WORK and cl.n <= n_colours * (1 + SAMPLES):
        # no more searches than one per colour and its checks: search from every class,
        # exact without any symmetry argument (more classes than that: a 4,096-GPU fat tree
        # has 128 classes of one colour, and searched them all, slower than 16,384 GPUs)
        total = _Accumulator()
        for u in range(cl.n):
            ensure([u])
            total.merge(row(u, cache), 1.0)
            _evict(cache, cl, u)
            ctl.step((u + 1) / cl.n)
        return PathStats(_hop_stats(total), _latency_stats(total, assumptions), searches,
                         cl.n, True, "searched from every GPU class")

    out = by_colour(colours, final=False)
    if out is None:
        # colour refinement merged classes that differ. Split the colours by a stronger
        # invariant (switches within two links) of their switches, first without refining
        # further (few colours), then refined (many colours, the last resort)
        ball = ball2_sizes(c, ctl)
        att = np.zeros(cl.n, np.int64)
        np.add.at(att, owner, ball[cl.att_switch] * 1_000_003 + cl.att_switch.size)
        split = np.unique(np.stack([colours, att], 1), axis=0, return_inverse=True)[1]
        out = by_colour(split.reshape(-1), final=False)
        if out is None:
            out = by_colour(class_colours(c, control=ctl, extra=ball), final=True)
    total, n_col, note, verified = out
    return PathStats(_hop_stats(total), _latency_stats(total, assumptions), searches, n_col,
                     verified, note)


def _per_class(cl) -> int:
    return max(1, round(cl.att_switch.size / max(cl.n, 1)))


def _evict(cache: dict, cl, u: int) -> None:
    if len(cache) > 256:
        for x in cl.att_switch[cl.ptr[u]:cl.ptr[u + 1]].tolist():
            cache.pop(int(x), None)


def _trim(cache: dict, force: bool = False) -> None:
    if force or len(cache) > 512:
        cache.clear()


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    cum = np.cumsum(weights)
    if cum.size == 0 or cum[-1] <= 0:
        return float("nan")
    i = int(np.searchsorted(cum, q * cum[-1], side="left"))
    return float(values[min(i, values.size - 1)])


def _hop_stats(acc: _Accumulator) -> HopStats:
    h = np.round(acc.hops / 2).astype(np.int64)  # ordered pairs -> unordered
    nz = np.flatnonzero(h)
    unreachable = round(acc.unreachable / 2)
    if nz.size == 0:
        return HopStats(None, None, None, None, None, {}, 0, unreachable)
    vals = np.arange(h.size)
    total = int(h.sum())
    mean = float((vals * h).sum() / total)
    return HopStats(
        min=int(nz[0]),
        mean=mean,
        p50=_weighted_quantile(vals, h, 0.5),
        p99=_weighted_quantile(vals, h, 0.99),
        max=int(nz[-1]),
        histogram={int(k): int(h[k]) for k in nz},
        pairs=total,
        unreachable_pairs=unreachable,
    )


def _latency_stats(acc: _Accumulator, assumptions: dict, bins: int = 40) -> LatencyStats:
    ns, w = acc.compact()
    keep = w > 0
    ns, w = ns[keep], w[keep]
    if not w.size:
        return LatencyStats(None, None, None, None, None, (), (), {}, assumptions)
    lo, hi = float(ns[0]), float(ns[-1])
    edges = np.linspace(lo, hi, bins + 1) if hi > lo else np.array([lo, lo + 1.0])
    counts = np.histogram(ns, bins=edges, weights=w)[0]
    hop_mean = {int(k): float(acc.hop_lat[k] / acc.hops[k] / 1000.0)
                for k in np.flatnonzero(acc.hops)}
    p99 = _weighted_quantile(ns, w, 0.99)
    if hi > lo and p99 >= hi:
        # not a flaw of the percentile: more than 1% of the pairs share the slowest path
        share = float(w[ns >= hi].sum() / w.sum())
        why = ("the most switches over cables of the default length: give cables their "
               "lengths, or place the racks on the floor, to see a spread"
               if assumptions.get("cables_at_default_length") else
               "the most switches over the longest cables")
        assumptions = {**assumptions, "tail": (
            f"p99 is the worst path: {share:.0%} of the pairs share the slowest path ({why})")}
    return LatencyStats(
        min_us=lo / 1000.0,
        mean_us=float((ns * w).sum() / w.sum()) / 1000.0,
        p50_us=_weighted_quantile(ns, w, 0.5) / 1000.0,
        p99_us=p99 / 1000.0,
        max_us=hi / 1000.0,
        edges_us=tuple(float(e) / 1000.0 for e in edges),
        counts=tuple(round(float(x) / 2) for x in counts),
        by_hops_us=hop_mean,
        assumptions=assumptions,
    )


def _assumptions(c: Compiled) -> dict:
    st = c.project.analysis
    present = np.unique(c.cable_layer).tolist() if c.cable_layer.size else []
    lengths = {c.layers[i]: st.length_for(c.layers[i]) for i in present}
    t = c.table
    models: dict[str, float] = {}
    used: list[tuple[str, str]] = []
    for g, i in zip(*t.first_of(c.is_switch), strict=True):
        models.setdefault(t.choices[g][0], float(c.switch_ns[i]))
    nics: dict[str, float] = {}
    for g, i in zip(*t.first_of(c.is_server), strict=True):
        model, _, nic, _ = t.choices[g]
        nics.setdefault(nic or c.catalog.server(model).nic, float(c.nic_ns[i]))
    # every (model, technology) the design runs: a NIC's latency depends on the technology
    # of the switch it is cabled to
    for mask in (c.is_switch, c.is_server):
        idx = np.flatnonzero(mask & (c.tech >= 0))
        if idx.size:
            # (gear, technology) as one integer each, not a row-wise unique (axis=0), which
            # sorts structured rows and held the interpreter 50 ms at 37,752 devices
            width = int(c.tech[idx].max()) + 1
            keys = np.unique(t.gear[idx].astype(np.int64) * width + c.tech[idx])
            for g, k in zip((keys // width).tolist(), (keys % width).tolist(), strict=True):
                model, _, nic, _ = t.choices[g]
                gear = model if mask is c.is_switch else (nic or c.catalog.server(model).nic)
                used.append((gear, TECHS[k]))
    return {
        "message_bytes": st.message_bytes,
        "propagation_ns_per_m": st.propagation_ns_per_m,
        "default_length_m": lengths,
        "cables_at_default_length": c.default_lengths,
        "switch_latency_ns": models,
        "nic_latency_ns": nics,
        "path": "fewest switches, then lowest latency; NIC x 2 + switches + propagation + "
                "serialization once (cut-through) at the slower GPU port",
        "scope": SCOPE,
        "kind": IDLE_STATIC,
        "figures": latency_figures(c.project, c.catalog, used),
    }
