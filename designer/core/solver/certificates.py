"""Lower bounds on the bisection that prove a found cut optimal.

Cut capacity adds up over the switch graph's connected components (planes), so the lower
bound is a sum of per-component bounds. Two certificates:

* **Layered (Clos) fabrics, hose routing.** Route every GPU's traffic up the tiers, each
  switch spreading what it forwards over its uplinks in proportion to their capacity, and back
  down the mirror image. If every switch that holds GPUs reaches the top tier with the same
  distribution, this is a valid routing of *any* traffic in which each GPU sends and receives
  at most rho times its own link rate, where 1/rho is the worst product of down/up capacity
  ratios on the way up. For a balanced cut (S, T), pair the GPUs of S with those of T: each
  pair's flow crosses the cut, so the cut carries at least rho x (sum of the N/2 smallest GPU
  rates). Exact for non-blocking and uniformly oversubscribed trees, and after removing
  whole spines of a 2-tier fabric. After damage the argument runs on a repaired copy: a
  cut of the real fabric is at least the same cut of a copy with capacity added, minus what
  was added. Repairs: a switch whose uplinks are spread unlike its peers' gets them evened
  out (a removed link: exact again); a switch short of uplink gets them scaled up; and when
  GPU switches reach the top tier differently (a removed spine of a 3-tier fabric), only the
  share of the top tier they all reach is used (rho scaled by that share).
* **Dragonflies.** Every cut either keeps a group whole on one side or splits it. Counting
  only links that must be cut (all global links between whole groups on opposite sides, the
  local links and GPU links a split group cuts, and the global links a split group cannot
  absorb on its own side) gives a bound that is minimised over the number of whole groups on
  each side, split groups relaxed to their convex envelope. Exact on balanced dragonflies
  (floor(g/2) x ceil(g/2) global links).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

from designer.core.model import Role
from designer.core.solver.compile import ROLE_CODE, Compiled, mix64
from designer.core.solver.components import connected_labels

REL_TOL = 1e-9
DP_WORK = 4_000_000  # exact split-group arithmetic below this many operations per case
DP_TOTAL = 20_000_000  # ... and in all


@dataclass(frozen=True)
class Bound:
    gbps: float
    method: str


def smallest_half_sum(values: np.ndarray, counts: np.ndarray, n_total: int) -> float:
    """Sum of the floor(N/2) smallest per-GPU values; GPUs not listed count 0."""
    k = n_total // 2
    missing = n_total - int(counts.sum())
    vals = np.r_[0.0, values]
    cnts = np.r_[max(missing, 0), counts]
    order = np.argsort(vals, kind="stable")
    vals, cnts = vals[order], cnts[order]
    cum = np.cumsum(cnts)
    full = int(np.searchsorted(cum, k, side="right"))
    total = float((vals[:full] * cnts[:full]).sum())
    rest = k - (int(cum[full - 1]) if full else 0)
    if rest > 0 and full < vals.size:
        total += float(vals[full]) * rest
    return total


def _component_rates(c: Compiled, in_comp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per GPU class: link capacity into the component; and terminal capacity per switch."""
    cl = c.classes
    here = in_comp[cl.att_switch]
    rate = np.bincount(cl.owner, weights=np.where(here, cl.att_cap, 0.0), minlength=cl.n)
    term = np.bincount(
        cl.att_switch,
        weights=np.where(here, cl.att_cap * cl.count[cl.owner], 0.0),
        minlength=c.n_switches,
    )
    return rate, term


def _up_edges(c: Compiled, in_comp: np.ndarray):
    tier = c.switch_tier.astype(np.int64)
    eu, ev, cap = c.edge_u, c.edge_v, c.edge_cap
    sel = in_comp[eu] & (tier[eu] != tier[ev])
    lo = np.where(tier[eu] < tier[ev], eu, ev)[sel]
    hi = np.where(tier[eu] < tier[ev], ev, eu)[sel]
    return lo, hi, cap[sel].astype(np.float64)


def _spreading_rho(c: Compiled, in_comp: np.ndarray, term: np.ndarray, entries: np.ndarray,
                   lo: np.ndarray, hi: np.ndarray, cap: np.ndarray,
                   seed: int) -> tuple[float, bool] | None:
    """(rho of the proportional up/down routing on these up-links, whether every GPU switch
    reaches the top tier with the same distribution); None when GPUs sit on a top switch."""
    S = c.n_switches
    tier = c.switch_tier.astype(np.int64)
    up = np.bincount(lo, weights=cap, minlength=S)
    top = in_comp & (up <= 0)
    if top[entries].any():
        return None  # GPUs on a top switch: the spreading argument does not apply
    tiers = np.unique(tier[in_comp]).tolist()
    mu = np.zeros(S)
    for t in tiers:
        at = in_comp & (tier == t) & (up > 0)
        inflow = np.bincount(hi, weights=cap * mu[lo], minlength=S)
        mu[at] = (term[at] + inflow[at]) / up[at]
    worst = float(mu.max()) if mu.size else 0.0
    rho = 1.0 if worst <= 1.0 else 1.0 / worst
    # every GPU switch must reach the top tier with the same distribution (random projections)
    rng = np.random.default_rng(seed)
    share = cap / up[lo]
    for _ in range(3):
        f = np.where(top, rng.standard_normal(S) + 2.0, 0.0)
        for t in sorted(tiers, reverse=True):
            at = in_comp & (tier == t) & (up > 0)
            if at.any():
                val = np.bincount(lo, weights=share * f[hi], minlength=S)
                f[at] = val[at]
        fe = f[entries]
        if not np.isfinite(fe).all() or np.ptp(fe) > REL_TOL * max(1.0, float(np.abs(fe).max())):
            return rho, False
    return rho, True


def _scale_up(c: Compiled, in_comp: np.ndarray, term: np.ndarray, lo: np.ndarray,
              hi: np.ndarray, cap: np.ndarray) -> float:
    """Capacity to add so that no switch forwards more up than it can (rho = 1): each switch
    short of uplink gets all its uplinks scaled up alike (its distribution is kept).
    A cut of the real fabric is then at least the full bisection minus what was added."""
    S = c.n_switches
    tier = c.switch_tier.astype(np.int64)
    scale = np.ones(S)
    up = np.bincount(lo, weights=cap, minlength=S)
    added = 0.0
    for t in np.unique(tier[in_comp]).tolist():
        at = in_comp & (tier == t) & (up > 0)
        down = term + np.bincount(hi, weights=cap * scale[lo], minlength=S)
        short = at & (down > up * (1 + REL_TOL))
        scale[short] = down[short] / up[short]
        added += float((down[short] - up[short]).sum())
    return added


def _common_share(c: Compiled, in_comp: np.ndarray, entries: np.ndarray, lo: np.ndarray,
                  hi: np.ndarray, cap: np.ndarray, max_cells: int = 20_000_000) -> float | None:
    """beta = sum over top switches of the least share any GPU switch sends there.

    Every source can route a beta fraction of its traffic along the common distribution
    (each top switch t gets min over sources of D(t)), each link then carrying at most 1/beta
    of its proportional load: the hose rate scales by beta."""
    S = c.n_switches
    up = np.bincount(lo, weights=cap, minlength=S)
    tops = np.flatnonzero(in_comp & (up <= 0))
    if tops.size == 0 or entries.size * tops.size > max_cells:
        return None
    step = csr_matrix((np.r_[cap / up[lo], np.ones(tops.size)],
                       (np.r_[lo, tops], np.r_[hi, tops])), shape=(S, S))
    mass = csr_matrix((np.ones(entries.size), (np.arange(entries.size), entries)),
                      shape=(entries.size, S))
    for _ in range(8):  # tiers are few; mass settles on the top switches
        mass = mass @ step
    dist = mass[:, tops].toarray()
    return float(dist.min(axis=0).sum())


def _augment(c: Compiled, lo: np.ndarray, hi: np.ndarray, cap: np.ndarray):
    """``_augment_tier`` on the up-links of each tier in turn."""
    tier = c.switch_tier.astype(np.int64)
    parts = []
    added = 0.0
    for t in np.unique(tier[lo]).tolist():
        sel = tier[lo] == t
        lo_t, hi_t, cap_t, add_t = _augment_tier(c, lo[sel], hi[sel], cap[sel])
        parts.append((lo_t, hi_t, cap_t))
        added += add_t
    if not parts:
        return lo, hi, cap, 0.0
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]), added)


def _augment_tier(c: Compiled, lo: np.ndarray, hi: np.ndarray, cap: np.ndarray):
    """Up-links of one tier made regular: in every block of switches sharing uplink targets,
    each switch spreads its uplinks the way most of the block does, with capacity added where
    it is short.
    Returns the new up-links and the capacity added (a cut of the real fabric is at least the
    same cut of this one minus the added capacity)."""
    S = c.n_switches
    if lo.size == 0:
        return lo, hi, cap, 0.0
    # blocks: connected components of the lower-to-upper bipartite graph
    _, block = connected_labels(S, lo, hi)
    up = np.bincount(lo, weights=cap, minlength=S)
    share = cap / up[lo]
    key = mix64(hi.astype(np.uint64) ^ mix64(np.round(share * 1e9).astype(np.uint64)))
    with np.errstate(over="ignore"):
        sig = np.zeros(S, np.uint64)
        np.add.at(sig, lo, key)
    lows = np.unique(lo)
    # the most common signature in each block, weighted by switch count
    pair = np.stack([block[lows], sig[lows].view(np.int64)], axis=1)
    uniq, inv, cnt = np.unique(pair, axis=0, return_inverse=True, return_counts=True)
    inv = inv.reshape(-1)
    best_of_block: dict[int, int] = {}
    for k in np.argsort(-cnt, kind="stable").tolist():
        best_of_block.setdefault(int(uniq[k, 0]), k)
    chosen = np.array([best_of_block[int(block[x])] for x in lows.tolist()])
    model_sw = np.full(uniq.shape[0], -1, np.int64)
    model_sw[inv] = lows  # any switch carrying that signature
    ref_lo = model_sw[chosen]  # per low switch: the switch whose pattern it should follow
    # pi of the reference switch, looked up per (low switch, target)
    pi_key = lo * S + hi
    order = np.argsort(pi_key)
    sk = pi_key[order]
    # targets of every low switch's reference
    lo_sorted_idx = np.argsort(lo, kind="stable")
    starts = np.searchsorted(lo[lo_sorted_idx], ref_lo)
    n_out = np.bincount(lo, minlength=S)
    lens = n_out[ref_lo]
    rows = np.repeat(starts, lens) + (np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens,
                                                                      lens))
    src_e = lo_sorted_idx[rows]  # reference edges
    new_lo = np.repeat(lows, lens)
    new_hi = hi[src_e]
    new_pi = share[src_e]
    # the low switch's own capacity to each target (0 when it has no link there)
    want = new_lo * S + new_hi
    pos = np.searchsorted(sk, want)
    pos = np.minimum(pos, sk.size - 1)
    have = np.where(sk[pos] == want, cap[order][pos], 0.0)
    need_total = np.zeros(S)
    np.maximum.at(need_total, new_lo, have / new_pi)
    new_cap = need_total[new_lo] * new_pi
    added = float((new_cap - have).sum())
    keep = new_cap > 0
    return new_lo[keep], new_hi[keep], new_cap[keep], max(0.0, added)


def layered_bound(c: Compiled, in_comp: np.ndarray, seed: int = 7,
                  n_total: int | None = None) -> Bound | None:
    """``n_total``: the GPUs a balanced cut halves (default: all of the design's; a rail of
    a rail-only design halves its own GPUs, since a cut keeps scale-up domains whole)."""
    rate, term = _component_rates(c, in_comp)
    cl = c.classes
    if not (rate > 0).any():
        return Bound(0.0, "no GPUs")
    entries = np.flatnonzero(term > 0)
    if n_total is None:
        base = smallest_half_sum(rate, cl.count, c.n_gpus)
    else:  # only this component's own GPUs are halved
        here = rate > 0
        base = smallest_half_sum(rate[here], cl.count[here], n_total)
    if entries.size == 1:
        return Bound(base, "single switch")
    lo, hi, cap = _up_edges(c, in_comp)
    plain = _spreading_rho(c, in_comp, term, entries, lo, hi, cap, seed)
    if plain is None:
        return None  # GPUs on a top switch: the spreading argument does not apply
    rho, same = plain
    found: list[Bound] = []
    if same:
        found.append(Bound(rho * base, "layered hose routing" if rho >= 1 else
                           f"layered hose routing at {rho:.4g} of line rate"))
        if rho < 1:  # a damaged switch may hold rho down: top up its uplinks instead
            extra = _scale_up(c, in_comp, term, lo, hi, cap)
            found.append(Bound(max(0.0, base - extra), "layered hose routing after adding "
                                                       f"{extra:,.0f} Gb/s of uplink"))
        return max(found, key=lambda b: b.gbps)
    # irregular uplinks (a link removed): regularise, then subtract what was added
    lo2, hi2, cap2, added = _augment(c, lo, hi, cap)
    regular = _spreading_rho(c, in_comp, term, entries, lo2, hi2, cap2, seed)
    if regular is not None and regular[1]:
        found.append(Bound(max(0.0, regular[0] * base - added),
                           f"layered hose routing after regularising uplinks "
                           f"({added:,.0f} Gb/s added)"))
        if regular[0] < 1:
            extra = added + _scale_up(c, in_comp, term, lo2, hi2, cap2)
            found.append(Bound(max(0.0, base - extra), "layered hose routing after adding "
                                                       f"{extra:,.0f} Gb/s of uplink"))
    # a switch removed: only the distribution every GPU switch shares is used
    beta = _common_share(c, in_comp, entries, lo, hi, cap)
    if beta is not None and beta > 0:
        found.append(Bound(beta * rho * base, f"layered hose routing over the common {beta:.4g}"
                                              " of the top tier"))
    return max(found, key=lambda b: b.gbps) if found else None


def _lower_hull(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the lower convex envelope of points (monotone chain)."""
    order = np.lexsort((ys, xs))
    hx: list[float] = []
    hy: list[float] = []
    for x, y in zip(xs[order].tolist(), ys[order].tolist(), strict=True):
        if hx and x == hx[-1]:
            continue  # same x: the first (lowest) y was kept
        while len(hx) >= 2 and (hy[-1] - hy[-2]) * (x - hx[-2]) >= (y - hy[-2]) * (hx[-1] - hx[-2]):
            hx.pop()
            hy.pop()
        hx.append(x)
        hy.append(y)
    return np.array(hx), np.array(hy)


def _min_plus(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    """h[y] = min over x of f[y - x] + g[x]."""
    out = np.full(f.size + g.size - 1, np.inf)
    for x in range(g.size):
        np.minimum(out[x : x + f.size], f + g[x], out=out[x : x + f.size])
    return out


def _dragonfly_min(g: int, a: int, p: int, r: float, c_l: float, m_cap: float, H: np.ndarray,
                   N: int, max_refine: int) -> float:
    """Minimise the counted cost over the number of whole groups on each side.

    A group is A-whole (all routers on A), B-whole, or split (0 < k < a routers on A). GPUs
    may sit on the other side of their router at cost r each. Counted: global capacity
    between A-whole and B-whole groups, the local cut k(a-k) c_l of split groups, moved
    GPUs, and the global links from whole groups that a split group cannot take on its own
    side (its k routers hold at most H[k]).
    """
    n = a * p
    K = N // 2
    fa = np.arange(g + 1)[:, None]
    fb = np.arange(g + 1)[None, :]
    s = g - fa - fb
    ok = s >= 0
    base = m_cap * fa * fb
    need = np.broadcast_to(K - fa * n, s.shape)  # GPUs on A beyond the A-whole groups
    k = np.arange(1, a)  # split states
    local = c_l * k * (a - k)
    # GPUs that split groups cannot hold must be moved off their routers
    moved = r * np.maximum(0, np.maximum(-need, need - s * n))
    if k.size:
        glob = (np.maximum(0.0, m_cap * fa[..., None] - H[k])
                + np.maximum(0.0, m_cap * fb[..., None] - H[a - k]))
        cheapest = (local + glob).min(axis=-1)
    else:
        glob = np.zeros((*s.shape, 0))
        cheapest = np.full(s.shape, np.inf)
    cheap = np.where(ok, base + np.where(s > 0, s * cheapest, 0.0) + moved, np.inf)
    flat = cheap.reshape(-1)
    order = np.argsort(flat, kind="stable")
    target = np.inf
    xs_k = np.repeat(k, 3)
    xs = np.stack([np.zeros_like(k), p * k, np.full_like(k, n)], axis=1).reshape(-1)
    y_all = np.arange(n + 1)
    dp_spent = 0
    for count, idx in enumerate(order.tolist()):
        val = flat[idx]
        if not np.isfinite(val) or val >= target:
            break
        if count >= max_refine:
            return min(target, val)  # the cheap bound of the rest is still a valid bound
        i, j = divmod(idx, g + 1)
        si, ni = int(s[i, j]), int(need[i, j])
        if si == 0:
            exact = base[i, j] + moved[i, j]
        elif si == 1:
            gk = glob[i, j]
            phi = (local + gk)[None, :] + r * np.abs(y_all[:, None] - p * k[None, :])
            exact = base[i, j] + float((phi.min(axis=1) + r * np.abs(ni - y_all)).min())
        elif si * si * n * n <= DP_WORK and dp_spent + si * si * n * n <= DP_TOTAL:
            dp_spent += si * si * n * n
            # small enough for the exact integer split: min-plus convolution of s groups
            gk = glob[i, j]
            phi = ((local + gk)[None, :] + r * np.abs(y_all[:, None] - p * k[None, :])).min(1)
            f = phi
            for _ in range(si - 1):
                f = _min_plus(f, phi)
            y = np.arange(f.size)
            exact = base[i, j] + float((f + r * np.abs(ni - y)).min())
        else:
            gk = glob[i, j]
            ys = local[xs_k - 1] + gk[xs_k - 1] + r * np.abs(xs - p * xs_k)
            hx, hy = _lower_hull(xs.astype(float), ys)
            cands = np.unique(np.r_[si * hx, np.clip(ni, 0, si * n)])
            vals = si * np.interp(cands / si, hx, hy) + r * np.abs(ni - cands)
            exact = base[i, j] + float(vals.min())
        target = min(target, exact)
    return float(target)


def dragonfly_bound(c: Compiled, in_comp: np.ndarray, max_refine: int = 400) -> Bound | None:
    labels = c.groups.get("group")
    if labels is None:
        return None
    nodes = np.flatnonzero(in_comp)
    if nodes.size == 0 or (c.role[c.sw[nodes]] != ROLE_CODE[Role.ROUTER]).any():
        return None
    lab = labels[c.sw].astype(np.int64)
    if (lab[nodes] <= 0).any():
        return None
    cl = c.classes
    here = in_comp[cl.att_switch]
    n_here = np.bincount(cl.owner, weights=here.astype(float), minlength=cl.n)
    if (n_here != 1).any() or int(cl.count.sum()) != c.n_gpus:
        return None  # every GPU must hang off exactly one router of this component
    att_caps = cl.att_cap[here]
    r = float(att_caps[0])
    if not np.allclose(att_caps, r):
        return None
    per_router = np.bincount(cl.att_switch[here], weights=cl.count[cl.owner[here]],
                             minlength=c.n_switches)[nodes]
    p = int(per_router[0])
    if p <= 0 or (per_router != p).any():
        return None
    group_ids, g_of = np.unique(lab[nodes], return_inverse=True)
    g = group_ids.size
    a_counts = np.bincount(g_of)
    a = int(a_counts[0])
    if g < 2 or (a_counts != a).any():
        return None
    pos = np.full(c.n_switches, -1, np.int64)
    pos[nodes] = g_of
    eu, ev, ecap = c.edge_u, c.edge_v, c.edge_cap
    sel = in_comp[eu]
    gu, gv, ecap = pos[eu[sel]], pos[ev[sel]], ecap[sel]
    su, sv = eu[sel], ev[sel]
    local = gu == gv
    c_l = float(ecap[local][0]) if local.any() else 0.0
    if a > 1 and (local.sum() != g * a * (a - 1) // 2 or not np.allclose(ecap[local], c_l)):
        return None
    pair = np.minimum(gu, gv)[~local] * g + np.maximum(gu, gv)[~local]
    pair_cap = np.bincount(pair, weights=ecap[~local], minlength=g * g).reshape(g, g)
    iu = np.triu_indices(g, 1)
    m_cap = float(pair_cap[iu][0])
    if not np.allclose(pair_cap[iu], m_cap):
        return None
    gcap = np.bincount(np.r_[su[~local], sv[~local]], weights=np.r_[ecap[~local], ecap[~local]],
                       minlength=c.n_switches)[nodes]
    # H[k]: most global capacity any k routers of one group hold
    per_group = np.sort(gcap.reshape(-1)[np.argsort(g_of, kind="stable")].reshape(g, a), axis=1)
    H = np.r_[0.0, np.cumsum(per_group[:, ::-1], axis=1).max(axis=0)]
    lb = _dragonfly_min(g, a, p, r, c_l, m_cap, H, c.n_gpus, max_refine)
    if not np.isfinite(lb):
        return None
    return Bound(lb, "dragonfly group counting")
