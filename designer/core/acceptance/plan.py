"""``acceptance_plan(project, result)``: the tests to run on the built cluster and the band
each measured figure should land in, from this design's own estimate.

nccl-tests (all_reduce_perf, all_gather_perf, alltoall_perf) over every node and rail, then
one all_reduce_perf per rail (one GPU per node, that rail's HCA only), predicted with the
estimate's public collective model (``collective_times``: NCCL's algorithm and protocol
choice, the design's rails, NVLink, oversubscription and path latency); perftest
(ib_write_bw, ib_write_lat) between leaf pairs, predicted from the port rate and the design's
latency for that pair's switch hops. Bands follow ``bands.band``. The same function predicts
any run's figures (``predict_collective``), so a result with another rank count is judged
against its own prediction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from designer.core.acceptance.bands import band, latency_band, rule_text
from designer.core.acceptance.cluster import Cluster, cluster_of, switch_hops
from designer.core.acceptance.collective_test import CollectiveTest, Row
from designer.core.acceptance.kpis import Kpi, plan_kpis
from designer.core.acceptance.predict import predict_collective
from designer.core.analysis.estimates import settings_of
from designer.core.analysis.fabric import FabricView, fabric_view
from designer.core.analysis.workload import Workload
from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.solver import Result

# nccl-tests binary -> the estimate's operation name
TESTS: dict[str, str] = {"all_reduce_perf": "all-reduce", "all_gather_perf": "all-gather",
                         "alltoall_perf": "all-to-all"}
MIN_BYTES, MAX_BYTES = 1 << 10, 1 << 34  # nccl-tests -b 1K -e 16G -f 2
RAIL_MIN, RAIL_MAX = 1 << 26, 1 << 32
# RDMA write payload per wire byte at MTU 4096: InfiniBand LRH 8 + BTH 12 + ICRC 4 + VCRC 2
# (IBTA vol. 1); RoCEv2 adds Ethernet 14 + FCS 4 + preamble and gap 20 + IPv4 20 + UDP 8
# around BTH 12 + ICRC 4 (IBTA RoCEv2 annex)
MTU = 4096
WIRE_OVERHEAD = {"ib": 26, "eth": 82}
MAX_PAIRS = 4096


@dataclass(frozen=True)
class PairTest:
    test: str  # ib_write_bw or ib_write_lat
    server: str
    client: str
    leaf_a: str
    leaf_b: str
    rail: int
    hops: int
    predicted: float
    low: float
    high: float
    unit: str  # "Gb/s" or "us"
    server_command: str
    client_command: str

    def to_json(self) -> dict:
        return {"test": self.test, "server": self.server, "client": self.client,
                "leaf_a": self.leaf_a, "leaf_b": self.leaf_b, "rail": self.rail,
                "switch_hops": self.hops, "predicted": round(self.predicted, 4),
                "low": round(self.low, 4), "high": round(self.high, 4), "unit": self.unit,
                "server_command": self.server_command, "client_command": self.client_command}


@dataclass(frozen=True)
class AcceptancePlan:
    design: str
    profile: str
    tech: str
    cluster: Cluster = field(repr=False)
    view: FabricView = field(repr=False)
    workload: Workload = field(repr=False)
    collectives: tuple[CollectiveTest, ...]
    pairs: tuple[PairTest, ...]
    kpis: tuple[Kpi, ...]
    latency_by_hops: dict[int, float]
    notes: tuple[str, ...]

    def to_json(self) -> dict:
        c = self.cluster
        return {"design": self.design, "profile": self.profile, "tech": self.tech,
                "nodes": len(c.nodes), "gpus_per_node": c.gpus_per_node, "rails": c.rails,
                "port_gbps": c.port_gbps, "sharp": self.view.collnet,
                "sharp_capable_switches": self.view.sharp,
                "nvls": self.view.gpu.nvls, "band_rule": rule_text(),
                "collectives": [t.to_json() for t in self.collectives],
                "perftest": [p.to_json() for p in self.pairs],
                "kpis": [k.to_json() for k in self.kpis], "notes": list(self.notes)}


def _rows(view: FabricView, op: str, sizes: np.ndarray, ranks: int, stride: int,
          nic_share: float = 1.0) -> tuple[Row, ...]:
    t, bus, algo = predict_collective(view, op, sizes, ranks, stride, nic_share=nic_share)
    low, high = band(bus, float(bus.max()) if bus.size else 0.0)
    return tuple(Row(int(s), float(x * 1e6), float(b), float(lo), float(hi), str(a))
                 for s, x, b, lo, hi, a in zip(sizes.tolist(), t.tolist(), bus.tolist(),
                                               low.tolist(), high.tolist(), algo.tolist(),
                                               strict=True))


def _sizes(lo: int, hi: int) -> np.ndarray:
    return 2.0 ** np.arange(int(np.log2(lo)), int(np.log2(hi)) + 1)


def _nccl_env(c: Cluster, hcas: str, collnet: bool = False) -> str:
    env = [f"-x NCCL_IB_HCA={hcas}"]
    if collnet:  # the prediction counts on IB SHARP, which NCCL runs only when asked
        env.append("-x NCCL_COLLNET_ENABLE=1")
    if c.tech == "eth":
        env.append("-x NCCL_IB_GID_INDEX=3")  # RoCEv2 GID on most hosts; check show_gids
    return " ".join(env)


def _size_arg(n: int) -> str:
    for unit, k in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << k and n % (1 << k) == 0:
            return f"{n >> k}{unit}"
    return str(n)


def acceptance_plan(project: Project, result: Result, catalog: Catalog,
                    workload: Workload | None = None) -> AcceptancePlan:
    """The plan for ``project`` as solved in ``result`` (see the module's notes)."""
    w = workload or settings_of(project).workload
    view = fabric_view(project, result, w, catalog)
    c = cluster_of(project, catalog)
    n_nodes = len(c.nodes)
    g = c.gpus_per_node
    ranks = n_nodes * g
    sizes = _sizes(MIN_BYTES, MAX_BYTES)
    tests: list[CollectiveTest] = []
    mpi = f"mpirun -np {ranks} -N {g} --hostfile hosts.txt --bind-to numa"
    for binary, op in TESTS.items():
        rows = _rows(view, op, sizes, ranks, 1)
        cmd = (f"{mpi} {_nccl_env(c, c.hcas(), view.collnet)} ./build/{binary} "
               f"-b {_size_arg(MIN_BYTES)} -e {_size_arg(MAX_BYTES)} -f 2 -g 1 -n 20 -w 5")
        tests.append(CollectiveTest(binary, op, ranks, n_nodes, g, None, rows, cmd))
    if n_nodes > 1:
        rail_sizes = _sizes(RAIL_MIN, RAIL_MAX)
        share = 1.0 / c.ports_per_gpu
        rows = _rows(view, "all-reduce", rail_sizes, n_nodes, g, nic_share=share)
        for r in range(c.rails):
            gpu = r // c.ports_per_gpu if c.ports_per_gpu else r
            cmd = (f"mpirun -np {n_nodes} -N 1 --hostfile hosts.txt -x CUDA_VISIBLE_DEVICES="
                   f"{gpu} {_nccl_env(c, c.hca(r), view.collnet)} ./build/all_reduce_perf -b "
                   f"{_size_arg(RAIL_MIN)} -e {_size_arg(RAIL_MAX)} -f 2 -g 1 -n 20 -w 5")
            tests.append(CollectiveTest("all_reduce_perf", "all-reduce", n_nodes, n_nodes, 1,
                                        r, rows, cmd))
    pairs = _pairs(project, result, c)
    by_hops = {int(k): float(v) for k, v in result.latency.by_hops_us.items()}
    kpis = plan_kpis(project, result, catalog, view, w, c, tests[0])
    notes = (
        "Bands are this design's estimate, not the IETF draft's illustrative targets "
        "(draft-calabria-bmwg-ai-fabric-training-bench says those must not be pass/fail).",
        rule_text(),
        "Rail tests use one GPU per node and one HCA: a rail that is down or slow shows "
        "there, where the all-rail run only dims.",
        "HCA names follow the as-built import (NIC port k is mlx5_<k-1>); edit NCCL_IB_HCA "
        "and the -d options to the hosts' real names (ibdev2netdev lists them).",
    )
    return AcceptancePlan(project.name, project.profile, c.tech, c, view, w, tuple(tests),
                          tuple(pairs), tuple(kpis), by_hops, notes)


def _pairs(project: Project, result: Result, c: Cluster) -> list[PairTest]:
    """perftest pairs: for each leaf, its first node and the first node of the next leaf on
    the same rail (every leaf is in two pairs), and one pair inside a leaf when a leaf has
    two nodes."""
    by_hops = result.latency.by_hops_us
    line = c.port_gbps * MTU / (MTU + WIRE_OVERHEAD[c.tech])
    bw_low, bw_high = band(np.array([line]), line)
    out: list[tuple[int, int, int]] = []  # (node a, node b, rail)
    for r in range(c.rails):
        leaves = c.leaf_of[:, r]
        ok = leaves >= 0
        if not ok.any():
            continue
        uniq, first = np.unique(leaves[ok], return_index=True)
        nodes_ok = np.flatnonzero(ok)
        firsts = nodes_ok[first[np.argsort(first)]]
        for i in range(len(firsts)):
            a, b = int(firsts[i]), int(firsts[(i + 1) % len(firsts)])
            if a != b:
                out.append((a, b, r))
        if r == 0:
            counts = np.bincount(np.searchsorted(uniq, leaves[ok]))
            if counts.max() > 1:
                lf = uniq[int(counts.argmax())]
                two = nodes_ok[leaves[ok] == lf][:2]
                out.append((int(two[0]), int(two[1]), r))
        if len(out) >= MAX_PAIRS:
            break
    out = out[:MAX_PAIRS]
    hops = switch_hops(project, [(int(c.leaf_of[a, r]), int(c.leaf_of[b, r]))
                                 for a, b, r in out])
    tests: list[PairTest] = []
    flags = " -R -x 3" if c.tech == "eth" else ""
    for (a, b, r), h in zip(out, hops, strict=True):
        la = c.switch_names[int(c.leaf_of[a, r])]
        lb = c.switch_names[int(c.leaf_of[b, r])]
        hca = c.hca(r)
        lat = float(by_hops.get(h, 0.0)) or float(result.latency.p50_us or 0.0)
        lo, hi = latency_band(lat)
        sa, sb = c.nodes[a], c.nodes[b]
        tests.append(PairTest(
            "ib_write_bw", sa, sb, la, lb, r, h, line, float(bw_low[0]),
            min(float(bw_high[0]), float(c.port_gbps)), "Gb/s",
            f"ib_write_bw -d {hca}{flags} -s 1048576 -D 10 --report_gbits",
            f"ib_write_bw -d {hca}{flags} -s 1048576 -D 10 --report_gbits {sa}"))
        tests.append(PairTest(
            "ib_write_lat", sa, sb, la, lb, r, h, lat, lo, hi, "us",
            f"ib_write_lat -d {hca}{flags} -s 2 -n 10000",
            f"ib_write_lat -d {hca}{flags} -s 2 -n 10000 {sa}"))
    return tests
