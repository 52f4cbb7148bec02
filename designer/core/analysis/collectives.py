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

from designer.core.analysis.fabric import FabricView
from designer.core.analysis.workload import WorkloadError

OPS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv")
ALGORITHMS = ("auto", "ring", "tree", "sharp", "nvls", "direct")

# NVIDIA/nccl src/graph/tuning.cc: base latency and per-step hardware latency (us) per algorithm
# and protocol, and each protocol's share of the link bandwidth (LL carries 4 data bytes in 8,
# LL128 120 in 128).
PROTOCOLS = ("LL", "LL128", "Simple")
PROTO_BW = {"LL": 0.5, "LL128": 120 / 128, "Simple": 1.0}
BASE_US = {"ring": {"LL": 6.6, "LL128": 14.0, "Simple": 8.4},
           "tree": {"LL": 6.8, "LL128": 14.0, "Simple": 0.0}}
NVL_STEP_US = {"ring": {"LL": 0.6, "LL128": 1.9, "Simple": 3.4},
               "tree": {"LL": 0.6, "LL128": 1.25, "Simple": 4.0}}
NET_STEP_US = {"ring": {"LL": 2.7, "LL128": 4.0, "Simple": 14.0},
               "tree": {"LL": 5.0, "LL128": 8.5, "Simple": 14.0}}
RING_MULTINODE_SIMPLE = 1.4  # NCCL's latency refinement for multi-node ring Simple
TREE_BW = 0.92 * 0.5  # NCCL: tree bus bandwidth 0.92 of ring's, algbw half the bus bandwidth
NVLS_EFFICIENCY = 0.85  # NVLS vs its 2(g-1)/(g+1) ideal (nccl-tests issue 212 figures)
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
    return Layout(per_domain, domains, max(slow_ring, 1.0), max(slow_a2a, 1.0))


def _latency(view: FabricView, algo: str, proto: str, nvl_steps: float,
             net_steps: float) -> float:
    # a step waits for the slowest of its concurrent transfers: the tail (p99) path counts
    extra = max(0.0, view.latency_p99_us - REFERENCE_PATH_US)
    net = (NET_STEP_US[algo][proto] + extra) if view.latency_p99_us > 0 else 0.0
    return BASE_US[algo][proto] + nvl_steps * NVL_STEP_US[algo][proto] + net_steps * net


def collective_times(view: FabricView, op: str, sizes: np.ndarray, comm: Communicator, *,
                     algorithm: str = "auto", job_gpus: int | None = None,
                     placement: str = "contiguous", network_slowdown: float = 1.0,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seconds for each size, and the algorithm and protocol chosen (least time, as NCCL)."""
    if op not in OPS:
        raise WorkloadError(f"collective: unknown operation '{op}' (known: {', '.join(OPS)})")
    if algorithm not in ALGORITHMS:
        raise WorkloadError(f"algorithm: unknown '{algorithm}' (known: {', '.join(ALGORITHMS)})")
    if comm.n < 1 or comm.n * comm.stride > view.gpus:
        raise WorkloadError(f"group: {comm.name} of {comm.n:,} GPUs does not fit the design's "
                            f"{view.gpus:,} GPUs")
    S = np.asarray(sizes, dtype=np.float64)
    n = comm.n
    if n == 1:
        return np.zeros_like(S), np.full(S.shape, "none", object), np.full(S.shape, "-", object)
    lay = layout(view, comm, job_gpus or view.gpus, placement)
    g, N = lay.per_domain, lay.domains
    nvl = view.nvlink_gbytes_s * 1e9
    nic = view.nic_gbytes_s * 1e9 / max(network_slowdown, 1e-9)
    multi = N > 1
    # per-rank bus bandwidth of a ring: NVLink inside a domain, the domain's rails across
    ring_bw = min(nvl if g > 1 else np.inf, g * nic / lay.slow_ring) if multi else nvl
    cands: dict[str, dict[str, np.ndarray]] = {}

    def add(algo: str, fn) -> None:
        cands[algo] = {p: fn(p) for p in PROTOCOLS}

    if op in ("all-reduce", "all-gather", "reduce-scatter"):
        k = 2 if op == "all-reduce" else 1
        vol = k * (n - 1) / n

        def ring(p: str) -> np.ndarray:
            lat = _latency(view, "ring", p, k * (n - N), k * (N - 1))
            if multi and p == "Simple":
                lat *= RING_MULTINODE_SIMPLE
            return lat * 1e-6 + vol * S / (ring_bw * PROTO_BW[p])
        add("ring", ring)
    if op == "all-reduce" and multi:
        def tree(p: str) -> np.ndarray:
            lat = _latency(view, "tree", p, 2 * (g - 1), 2 * np.log2(N))
            return lat * 1e-6 + S / (ring_bw * TREE_BW * PROTO_BW[p])
        add("tree", tree)
        if view.sharp:
            intra = nvl * (_nvls_gain(g) if view.gpu.nvls else 1.0)

            def sharp(p: str) -> np.ndarray:
                lat = _latency(view, "ring", "Simple", 2, 2)
                t_in = (2 * (g - 1) / g) * S / intra if g > 1 else 0 * S
                t_net = S / (g * nic / lay.slow_ring)
                return lat * 1e-6 + np.maximum(t_in, t_net)
            cands["sharp"] = {"Simple": sharp("Simple")}
    if op == "all-reduce" and not multi and view.gpu.nvls and n > 2:
        def nvls(p: str) -> np.ndarray:
            lat = _latency(view, "ring", "Simple", 2, 0)
            return lat * 1e-6 + (2 * (n - 1) / n) * S / (nvl * _nvls_gain(n))
        cands["nvls"] = {"Simple": nvls("Simple")}
    if op == "all-to-all":
        def direct(p: str) -> np.ndarray:
            steps_net = 1 if multi else 0
            lat = _latency(view, "ring", p, 1, steps_net)
            t_in = (g - 1) / n * S / nvl
            t_net = (n - g) / n * S / (nic / lay.slow_a2a) if multi else 0 * S
            return lat * 1e-6 + np.maximum(t_in, t_net) / PROTO_BW[p]
        add("direct", direct)
    if op == "send-recv":
        def p2p(p: str) -> np.ndarray:
            remote = comm.stride >= view.domain
            lat = _latency(view, "ring", p, 0 if remote else 1, 1 if remote else 0)
            bw = nic / lay.slow_ring if remote else nvl
            return lat * 1e-6 + S / (bw * PROTO_BW[p])
        add("direct", p2p)
    if algorithm != "auto":
        if algorithm not in cands:
            raise WorkloadError(f"algorithm: '{algorithm}' does not run {op} on this group "
                                f"(available: {', '.join(cands)})")
        cands = {algorithm: cands[algorithm]}
    names = [(a, p) for a, ps in cands.items() for p in ps]
    times = np.vstack([cands[a][p] for a, p in names])
    best = np.argmin(times, axis=0)
    algo = np.array([names[i][0] for i in best.tolist()], dtype=object)
    proto = np.array([names[i][1] for i in best.tolist()], dtype=object)
    return times[best, np.arange(S.size)], algo, proto


def _nvls_gain(g: int) -> float:
    """NVLS bus bandwidth over ring's inside an NVLink domain: 2(g-1)/(g+1) x efficiency."""
    return max(1.0, 2 * (g - 1) / (g + 1) * NVLS_EFFICIENCY)


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
        if op == "all-reduce" and algo[i] in ("sharp", "nvls"):
            note = ("in-network reduction: busbw uses 2(n-1)/n as nccl-tests does and may "
                    "exceed the wire rate")
        rows.append(CollectiveRow(op, str(algo[i]), str(proto[i]), comm.name, comm.n,
                                  int(S[i]), float(t[i] * 1e6), alg, alg * F, note))
    return rows


def size_sweep() -> np.ndarray:
    """1 KiB to 16 GiB in powers of two (the busbw-vs-size chart)."""
    return 2.0 ** np.arange(10, 35)
