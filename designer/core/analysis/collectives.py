"""Collective time on this fabric: alpha-beta terms with NCCL's latencies and choice.

For a communicator of ``n`` GPUs laid out with ``stride`` (Megatron order: TP fastest, then CP,
DP, PP), the members per NVLink domain and per subtree of each oversubscribed tier follow from
the placement; bandwidth comes from the GPU's rails and NVLink, reduced by the oversubscription
the communicator's traffic meets; latency from NCCL's per-step constants plus the design's own
path latency beyond a reference. Every size of a sweep is one numpy row (no Python loop over
sizes). Conventions are nccl-tests': ``algbw = S / t``, ``busbw = algbw x F``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.analysis import nccl_model as nm
from designer.core.analysis.fabric import FabricView
from designer.core.analysis.gpus import NVLS_TREE_MAX_CH, TREE_MAX_CH
from designer.core.analysis.workload import WorkloadError
from designer.core.transport.fabric import all_to_all_spread

OPS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv")
ALGORITHMS = ("auto", "ring", "tree", "nvls", "nvls-tree", "sharp", "direct")
ALGORITHM_LABELS = {"ring": "ring", "tree": "tree (double binary)", "nvls": "NVLS (NVLink SHARP)",
                    "nvls-tree": "NVLS-tree", "sharp": "IB SHARP (CollNet)",
                    "direct": "direct"}
REFERENCE_PATH_US = 2.0  # one-way path NCCL's constants already contain (3-hop IB)


def bus_factor(op: str, n: int) -> float:
    """nccl-tests' busbw / algbw factor (doc/PERFORMANCE.md)."""
    if n <= 1:
        return 1.0
    if op == "all-reduce":
        return 2 * (n - 1) / n
    if op in ("all-gather", "reduce-scatter", "all-to-all"):
        return (n - 1) / n
    return 1.0


@dataclass(frozen=True)
class Communicator:
    name: str  # all, dp, tp, pp, ep, cp
    n: int
    stride: int = 1  # GPUs between consecutive members


@dataclass(frozen=True)
class Layout:
    """Where a communicator's members sit: per NVLink domain and per oversubscribed subtree."""

    per_domain: int
    domains: int
    slow_ring: float  # bandwidth divisor for ring/tree traffic from oversubscription
    slow_a2a: float  # the same for all-to-all traffic


def layout(view: FabricView, comm: Communicator, job_gpus: int, placement: str) -> Layout:
    n, s = comm.n, max(comm.stride, 1)
    per_domain = min(n, max(1, view.domain // s)) if s < view.domain else 1
    domains = -(-n // per_domain)
    slow_ring = slow_a2a = 1.0
    top = view.levels[-1].gpus if view.levels else view.gpus
    pods = max(1, view.gpus // max(top, 1))
    for lv in view.levels:
        if placement == "scattered":
            inside = max(view.gpus_per_server, job_gpus * lv.gpus // max(view.gpus, 1))
        elif placement == "by-pod":
            inside = min(lv.gpus, max(view.gpus_per_server, -(-job_gpus // pods)))
        else:
            inside = min(lv.gpus, job_gpus)
        members = min(n, max(1, inside // s))
        if members >= n:
            continue
        a2a = (n - members) / (n - 1)
        ring = a2a if placement == "scattered" else 1 / members
        load = lv.ratio * inside / lv.gpus
        slow_ring = max(slow_ring, load * ring)
        slow_a2a = max(slow_a2a, load * a2a)
    if n * s >= view.gpus // 2 and view.bisection_fraction < 0.5:
        # a uniform exchange across the design sends half its bytes over the bisection
        slow_a2a = max(slow_a2a, 0.5 / view.bisection_fraction)
    if view.rail_forward and domains > 1:
        # rail-only: bytes bound for other rails cross NVLink once before the NIC
        slow_a2a = max(slow_a2a, 1.0) * (1.0 + view.rail_forward)
    return Layout(per_domain, domains, max(slow_ring, 1.0), max(slow_a2a, 1.0))


def _extra_us(view: FabricView) -> float:
    """The design's path beyond the reference NCCL's network latencies contain; a step waits
    for the slowest of its concurrent transfers, so the tail (p99) path counts."""
    return max(0.0, view.latency_p99_us - REFERENCE_PATH_US) if view.latency_p99_us > 0 else 0.0


def collective_times(view: FabricView, op: str, sizes: np.ndarray, comm: Communicator, *,
                     algorithm: str = "auto", job_gpus: int | None = None,
                     placement: str = "contiguous", network_slowdown: float = 1.0,
                     tree_slowdown: float | None = None,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seconds for each size, and the algorithm and protocol chosen (least time, as NCCL).

    ``network_slowdown`` scales the network terms (a routing model's factor), and
    ``tree_slowdown`` those of the tree and NVLS-tree when their flows meet the fabric
    differently (None: the same factor). NCCL picks from its own model of the fabric, which
    knows nothing of hash collisions: the choice is made without the factors, and the chosen
    algorithm then runs at its slowed time."""
    if op not in OPS:
        raise WorkloadError(f"collective: unknown operation '{op}' (known: {', '.join(OPS)})")
    if algorithm not in ALGORITHMS:
        raise WorkloadError(f"algorithm: unknown '{algorithm}' (known: {', '.join(ALGORITHMS)})")
    if comm.n < 1 or comm.n * comm.stride > view.gpus:
        raise WorkloadError(f"group: {comm.name} of {comm.n:,} GPUs does not fit the design's "
                            f"{view.gpus:,} GPUs")
    S = np.asarray(sizes, dtype=np.float64)
    if comm.n == 1:
        return np.zeros_like(S), np.full(S.shape, "none", object), np.full(S.shape, "-", object)
    lay = layout(view, comm, job_gpus or view.gpus, placement)
    ring_f = max(network_slowdown, 1e-9)
    tree_f = ring_f if tree_slowdown is None else max(tree_slowdown, 1e-9)
    cands = _candidates(view, op, S, comm, lay, ring_f, tree_f)
    ideal = cands if ring_f == tree_f == 1.0 else _candidates(view, op, S, comm, lay, 1.0, 1.0)
    if algorithm != "auto":
        if algorithm not in cands:
            raise WorkloadError(f"algorithm: '{algorithm}' does not run {op} on this group "
                                f"(available: {', '.join(cands)})")
        cands = {algorithm: cands[algorithm]}
    names = [(a, p) for a, ps in cands.items() for p in ps]
    times = np.vstack([cands[a][p] for a, p in names])
    best = np.argmin(np.vstack([ideal[a][p] for a, p in names]), axis=0)
    algo = np.array([names[i][0] for i in best.tolist()], dtype=object)
    proto = np.array([names[i][1] for i in best.tolist()], dtype=object)
    return times[best, np.arange(S.size)], algo, proto


def _candidates(view: FabricView, op: str, S: np.ndarray, comm: Communicator, lay: Layout,
                slowdown: float, tree_slowdown: float) -> dict[str, dict[str, np.ndarray]]:
    n, g, N = comm.n, lay.per_domain, lay.domains
    gen = view.gpu.generation or "hopper"
    nvl = view.nvlink_gbytes_s * 1e9
    nic = view.nic_gbytes_s * 1e9 / slowdown
    multi = N > 1
    extra = _extra_us(view)
    ni = nm.node_index(N)
    tune = nm.tuning(gen)
    # a ring's bus bandwidth: the scale-up fabric inside a domain, the domain's rails across.
    # Across domains each ring channel enters a domain on one rail and makes g-1 hops inside
    # it, so a GPU's ring bytes go g-1 parts in g over the scale-up links and one over its
    # rail: the scale-up cap is g/(g-1) of one domain's own ring (8 x MI300X on 400G rails:
    # 8 x 48 = 384 GB/s of NICs, not the one-node xGMI ring's 336)
    inside = nvl * g / (g - 1) if g > 1 else np.inf
    ring_bw = min(inside, g * nic / lay.slow_ring) if multi else nvl
    nic_tree = view.nic_gbytes_s * 1e9 / tree_slowdown
    tree_bw = min(inside, g * nic_tree / lay.slow_ring) if multi else nvl
    channels = max(2, view.channels_per_nic * g) if multi else max(2, 2 * n)
    ll_cap = (nm.LL_MAX["cpu"] if multi else nm.LL_MAX.get(gen, nm.LL_MAX["hopper"]))[ni] * 1e9
    ll128_cap = channels * nm.RING_LL128_MAX_CH.get(gen, 36.7) * 1e9
    out: dict[str, dict[str, np.ndarray]] = {}

    def ring_proto_bw(p: int) -> float:
        bw = ring_bw * nm.PROTO_BW[p] * tune.ring_ratio[p]
        return min(bw, ll_cap) if p == 0 else min(bw, ll128_cap) if p == 1 else bw

    if op in ("all-reduce", "all-gather", "reduce-scatter"):
        k = 2 if op == "all-reduce" else 1
        steps = k * (n - 1)
        inter = k * (N - 1) if multi else 0
        ring: dict[str, np.ndarray] = {}
        for p, name in enumerate(nm.PROTOCOLS):
            if not tune.ring_ratio[p]:
                continue  # a protocol the library does not use here (RCCL's LL128 on MI300)
            intra = tune.nvl["ring"][p]
            if multi:
                intra = max(intra, nm.NET_OVERHEAD_US * (3 if p == 2 else 1))
            net = (tune.net["tree" if g == 1 else "ring"][p] + extra) if multi else 0.0
            hop = ((steps - inter) * intra + inter * net) / steps
            plateau = op == "all-reduce" and multi and p == 2
            hop_s = np.where(plateau & (S / (channels * n) >= 64), hop * tune.ring_plateau,
                             hop)
            bw = ring_proto_bw(p)
            ring[name] = tune.base["ring"][p] * 1e-6 + _ring(S, n, steps, channels, bw,
                                                              hop_s, p)
        out["ring"] = ring
    if op == "all-reduce" and multi:
        out["tree"] = _tree(view, S, g, N, tree_bw, channels, gen, extra, tune)
        if view.gpu.nvls and g > 1:
            out["nvls-tree"] = {"Simple": _nvls_tree(view, S, n, g, N, nic_tree, lay, nvl,
                                                     extra)}
        if view.collnet:
            out["sharp"] = {"Simple": _collnet(view, S, g, N, nic, lay, nvl, extra)}
    if op == "all-reduce" and not multi and view.gpu.nvls and n > 2:
        lat = nm.NVL_US["nvls"][2] * 1e-6
        out["nvls"] = {"Simple": lat + (2 * (n - 1) / n) * S / nvls_busbw(view, n)}
    if op == "all-to-all":
        direct: dict[str, np.ndarray] = {}
        for p, name in enumerate(nm.PROTOCOLS):
            if not tune.ring_ratio[p]:
                continue
            lat = tune.base["ring"][p] + tune.nvl["ring"][p] + (
                _p2p_net_us(tune, p) + extra if multi else 0.0)
            t_in = (g - 1) / n * S / nvl
            spread = a2a_spread(view, comm, lay)
            t_net = (n - g) / n * S / (nic / (lay.slow_a2a * spread)) if multi else 0 * S
            direct[name] = lat * 1e-6 + np.maximum(t_in, t_net) / nm.PROTO_BW[p]
        out["direct"] = direct
    if op == "send-recv":
        remote = comm.stride >= view.domain
        p2p: dict[str, np.ndarray] = {}
        for p, name in enumerate(nm.PROTOCOLS):
            if not tune.ring_ratio[p]:
                continue
            lat = tune.base["ring"][p] + (_p2p_net_us(tune, p) + extra if remote
                                          else tune.nvl["ring"][p])
            bw = nic / lay.slow_ring if remote else nvl
            p2p[name] = lat * 1e-6 + S / (bw * nm.PROTO_BW[p])
        out["direct"] = p2p
    return out


def _p2p_net_us(tune: nm.Tuning, p: int) -> float:
    """One network step of a point-to-point transfer. NCCL's ring step is one; RCCL's ring
    Simple step on MI300 (320 us) folds its ring pipeline into the step, so a single
    transfer takes RCCL's tree step (one hop, 25 us) instead."""
    return tune.net["ring" if tune.library == "NCCL" else "tree"][p]


def a2a_spread(view: FabricView, comm: Communicator, lay: Layout | None = None) -> float:
    """The transport's factor on an all-to-all's network term: hashing's hottest uplink over
    the fluid split (1.0 when the transport sprays or the group stays under one leaf)."""
    if not view.hashed or not view.levels:
        return 1.0
    leaf = view.levels[0]
    under = max(1, leaf.gpus // max(comm.stride, 1))
    return all_to_all_spread(True, comm.n, under, leaf.ratio, view.qps_per_connection,
                             view.gpus)[0]


def _ring(S: np.ndarray, n: int, steps: int, channels: int, bw: float, hop_us: np.ndarray,
          p: int) -> np.ndarray:
    """The pipelined ring (``nccl_model.ring_pipeline``) with a per-size hop latency."""
    hops = np.broadcast_to(hop_us, S.shape)
    out = np.empty_like(S)
    for h in np.unique(hops):
        sel = hops == h
        out[sel] = nm.ring_pipeline(S[sel], n, steps, channels, bw / channels, float(h), p)
    return out


def _tree(view: FabricView, S: np.ndarray, g: int, N: int, ring_bw: float, channels: int,
          gen: str, extra: float, tune: nm.Tuning = nm.NCCL) -> dict[str, np.ndarray]:
    """NCCL's tree: bus bandwidth 0.92 of the ring's, capped per channel by its tables, half
    of it as algorithm bandwidth, corrected at medium sizes; latency over log2 of the nodes."""
    ni = nm.node_index(N)
    cap = channels * gpu_tree_cap(gen, ni) * 1e9
    ll_cap = nm.LL_MAX["cpu"][ni] * 1e9
    out = {}
    ratio = tune.tree_ratio[0 if N <= 2 else 1]
    for p, name in enumerate(nm.PROTOCOLS):
        if not ratio[p]:
            continue
        bus = min(ring_bw * ratio[p] * nm.TREE_BW, cap)
        if p == 0:
            bus = min(bus / 3.8, ll_cap)
        elif p == 1:
            ll128 = channels * nm.TREE_LL128_MAX_CH.get(gen, (36.7, 36.7, 29.0))[ni] * 1e9
            bus = min(bus * 120 / 128, ll128)
        alg = bus * 0.5 * nm.tree_correction(S, p)
        lat = tune.base["tree"][p] + 2 * ((g - 1) * tune.nvl["tree"][p]
                                          + np.log2(N) * (tune.net["tree"][p] + extra))
        out[name] = lat * 1e-6 + S / alg
    return out


def gpu_tree_cap(gen: str, index: int) -> float:
    return TREE_MAX_CH.get(gen, TREE_MAX_CH["hopper"])[index]


def _nvls_tree(view: FabricView, S: np.ndarray, n: int, g: int, N: int, nic: float,
               lay: Layout, nvl: float, extra: float) -> np.ndarray:
    """NVLS inside each NVLink domain, a tree across them (no IB SHARP needed), as NCCL's
    tuning models it: per channel (one per head GPU) the least of NVLS inside, the domain's
    rails over the channels (twice with two domains: each sends half) and the generation's
    per-channel NVLS-tree cap (perChMaxNVLSTreeBws); algorithm bandwidth n / 2(n-1) of it."""
    gen = view.gpu.generation
    c = nm.nvls_channels(g)
    intra = nvls_busbw(view, g) / c
    inter = g * nic / lay.slow_ring / c * (2 if N == 2 else 1)
    cap = NVLS_TREE_MAX_CH.get(gen, (45.5, 45.5))[0 if N <= 2 else 1] * 1e9
    bus = c * min(intra, inter, cap)
    alg = bus * n / (2 * (n - 1))
    lat = nm.NVL_US["nvls-tree"][2] + 2 * np.log2(N) * (nm.NET_US["nvls-tree"][2] + extra)
    return lat * 1e-6 + S / alg


def _collnet(view: FabricView, S: np.ndarray, g: int, N: int, nic: float, lay: Layout,
             nvl: float, extra: float) -> np.ndarray:
    """IB SHARP through NCCL's CollNet: each GPU's NIC sends S/g up and receives S/g reduced
    (half a ring's network bytes). With NVLS, NCCL reduces inside the domain in the switch
    (NVLS + SHARP); without, CollNet Direct moves the data through NVLink, modelled as NCCL
    does (2 S over NVLink, 0.85 on Hopper and later)."""
    t_net = S / (g * nic / lay.slow_ring)
    if view.gpu.nvls and g > 1:
        t_in = (2 * (g - 1) / g) * S / nvls_busbw(view, g)
        lat = nm.NVL_US["nvls"][2] + nm.NET_US["nvls"][2] + extra
    elif g > 1:
        eff = nm.COLLNET_HOPPER if view.gpu.generation in ("hopper", "blackwell") else 1.0
        t_in = 2 * S / (nvl * eff)
        lat = 2 * (nm.NVL_US["collnet"][2] + (g - 1) * 0.4) + nm.NET_US["collnet"][2] + extra
    else:
        t_in = 0 * S
        lat = nm.NET_US["collnet"][2] + extra
    return lat * 1e-6 + np.maximum(t_in, t_net)


def nvls_busbw(view: FabricView, g: int) -> float:
    """NVLS all-reduce bus bandwidth (bytes/s, nccl-tests' busbw) over ``g`` GPUs of one
    NVLink domain, NCCL's rule (``nccl_model.nvls_channel_speed``): channels x speed x
    nvlsEfficiency x (channels - 1)/channels x 2. 8 x H100: 476 GB/s (480 measured); 8 x B200:
    829 (830+); 72 x GB200: 918 (835-847 measured on a full NVL72 rack)."""
    gen = view.gpu.generation or "hopper"
    c = nm.nvls_channels(g)
    nominal = view.nvlink_gbytes_s / max(view.gpu.ring_efficiency, 1e-9)
    speed = nm.nvls_channel_speed(gen, nominal, c)
    return 2 * view.gpu.nvls_efficiency * (c - 1) * speed * 1e9


IN_NETWORK_NOTE = ("in-network reduction: busbw uses 2(n-1)/n as nccl-tests does and may "
                   "exceed the wire rate")
# NCCL's NVLS model past its 32 heads, against a measured full NVL72 rack (CoreWeave
# nccl-tests pull request 43: 835-847 GB/s busbw at 4-8 GB on 72 GB200)
WIDE_NVLS_NOTE = ("NVLS over more than 32 GPUs follows NCCL's tuning model (32 heads), about "
                  "9% above the 835-847 GB/s measured on a full GB200 NVL72 rack")


@dataclass(frozen=True)
class CollectiveRow:
    op: str
    algorithm: str
    protocol: str
    group: str
    gpus: int
    bytes: int
    time_us: float
    algbw_gbytes_s: float
    busbw_gbytes_s: float
    note: str = ""

    def to_json(self) -> dict:
        return {"op": self.op, "algorithm": self.algorithm, "protocol": self.protocol,
                "group": self.group, "gpus": self.gpus, "bytes": self.bytes,
                "time_us": round(self.time_us, 3),
                "algbw_gbytes_s": round(self.algbw_gbytes_s, 3),
                "busbw_gbytes_s": round(self.busbw_gbytes_s, 3), "note": self.note}


def collective_rows(view: FabricView, op: str, sizes, comm: Communicator,
                    **kw) -> list[CollectiveRow]:
    S = np.atleast_1d(np.asarray(sizes, dtype=np.float64))
    t, algo, proto = collective_times(view, op, S, comm, **kw)
    F = bus_factor(op, comm.n)
    rows = []
    for i in range(S.size):
        alg = S[i] / t[i] / 1e9 if t[i] > 0 else 0.0
        note = ""
        if op == "all-reduce" and algo[i] in ("sharp", "nvls", "nvls-tree"):
            note = IN_NETWORK_NOTE
        if algo[i] in ("nvls", "nvls-tree") and min(comm.n, view.domain) > nm.NVLS_MAX_ARITY:
            note += "; " + WIDE_NVLS_NOTE
        rows.append(CollectiveRow(op, str(algo[i]), str(proto[i]), comm.name, comm.n,
                                  int(S[i]), float(t[i] * 1e6), alg, alg * F, note))
    return rows


def size_sweep() -> np.ndarray:
    """1 KiB to 16 GiB in powers of two (the busbw-vs-size chart)."""
    return 2.0 ** np.arange(10, 35)
