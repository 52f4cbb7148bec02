"""``check_results``: measured nccl-tests and perftest runs set beside this design's bands,
with the likely causes of a miss.

Each run is judged against a prediction for exactly what it ran (its operation, rank count and
GPUs per node, read from the output), so a run on half the nodes is not held to the full
job's figures. A run passes when every bandwidth-bound size (predicted busbw at least half the
curve's peak) lands at or above its band's floor; latency-bound sizes are reported, not
judged. Causes are named from the pattern of the misses and from evidence given: the rail
count (a busbw near (k-m)/k of the prediction: m rails down), the algorithm the prediction
needed (SHARP or NVLS), the technology (RoCE collapsing at large sizes or varying run to run:
PFC or ECN off), the as-built cabling (``designer diff``) and the link rates an
``ibnetdiscover`` file reports.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from designer.core.acceptance.bands import band, latency_band
from designer.core.acceptance.plan import (
    MTU,
    WIRE_OVERHEAD,
    AcceptancePlan,
    acceptance_plan,
)
from designer.core.acceptance.predict import predict_collective as _predict_collective
from designer.core.acceptance.results import NcclRun, PerftestRun, Results, read_results
from designer.core.analysis.workload import Workload
from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.solver import Result

BW_BOUND = 0.5  # a size is bandwidth-bound when its predicted busbw is this share of the peak
COLLAPSE = 0.5  # RoCE: largest sizes below this share of the best smaller size
SPREAD = 1.3  # RoCE: runs of one size differing by more than this factor


@dataclass(frozen=True)
class Measured:
    bytes: int
    measured: float
    predicted: float
    low: float
    high: float
    verdict: str  # "in band", "worse", "better" (than the band)
    judged: bool  # bandwidth-bound: counts for the run's verdict


@dataclass(frozen=True)
class RunCheck:
    source: str
    test: str
    op: str
    ranks: int
    nodes: int
    unit: str
    rows: tuple[Measured, ...]
    verdict: str  # "pass", "miss", "above", "no data"
    algorithm: str
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"source": self.source, "test": self.test, "op": self.op, "ranks": self.ranks,
                "nodes": self.nodes, "unit": self.unit, "verdict": self.verdict,
                "algorithm": self.algorithm, "notes": list(self.notes),
                "rows": [{"bytes": r.bytes, "measured": r.measured,
                          "predicted": round(r.predicted, 4), "low": round(r.low, 4),
                          "high": round(r.high, 4), "verdict": r.verdict, "judged": r.judged}
                         for r in self.rows]}


@dataclass(frozen=True)
class Cause:
    title: str
    evidence: str
    runs: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"cause": self.title, "evidence": self.evidence, "runs": list(self.runs)}


@dataclass(frozen=True)
class CheckResult:
    plan: AcceptancePlan = field(repr=False)
    runs: tuple[RunCheck, ...]
    causes: tuple[Cause, ...]
    warnings: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return bool(self.runs) and all(r.verdict in ("pass", "above") for r in self.runs)

    def to_json(self) -> dict:
        return {"design": self.plan.design, "passed": self.passed,
                "runs": [r.to_json() for r in self.runs],
                "causes": [c.to_json() for c in self.causes],
                "warnings": list(self.warnings)}


def _judge(sizes: np.ndarray, measured: np.ndarray, pred: np.ndarray) -> list[Measured]:
    peak = float(pred.max()) if pred.size else 0.0
    low, high = band(pred, peak)
    out = []
    for s, m, p, lo, hi in zip(sizes.tolist(), measured.tolist(), pred.tolist(), low.tolist(),
                               high.tolist(), strict=True):
        v = "worse" if m < lo else ("better" if m > hi else "in band")
        out.append(Measured(int(s), float(m), float(p), float(lo), float(hi), v,
                            p >= BW_BOUND * peak))
    return out


def _verdict(rows: list[Measured]) -> str:
    judged = [r for r in rows if r.judged]
    if not judged:
        return "no data"
    if any(r.verdict == "worse" for r in judged):
        return "miss"
    if any(r.verdict == "better" for r in judged):
        return "above"
    return "pass"


# Predictions by run shape: a night of reruns appended to one log (20,000 sweeps of the same
# few sizes) asks for the same few predictions thousands of times.
_PREDICTED: dict[tuple, tuple[object, tuple]] = {}
_PREDICTED_MAX = 4096


def predict_collective(view, op: str, sizes: np.ndarray, ranks: int, stride: int, **kw):
    key = (id(view), op, sizes.tobytes(), ranks, stride, tuple(sorted(kw.items())))
    hit = _PREDICTED.get(key)
    if hit is not None and hit[0] is view:
        return hit[1]
    out = _predict_collective(view, op, sizes, ranks, stride, **kw)
    if len(_PREDICTED) >= _PREDICTED_MAX:
        _PREDICTED.clear()
    _PREDICTED[key] = (view, out)
    return out


def _medians_by(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The median of ``values`` per distinct key, in the keys' sorted order (as np.unique),
    in one sort: a mask per key was quadratic in the rows of a run."""
    order = np.lexsort((values, keys))
    k, v = keys[order], values[order]
    start = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    count = np.diff(np.r_[start, k.size])
    return (v[start + (count - 1) // 2] + v[start + count // 2]) / 2


def _check_nccl(plan: AcceptancePlan, run: NcclRun) -> RunCheck:
    c = plan.cluster
    ranks = run.ranks or plan.collectives[0].ranks
    per = run.gpus_per_host or (c.gpus_per_node if not run.ranks else 1)
    nodes = len(run.hosts) or max(1, ranks // max(per, 1))
    notes = []
    if ranks > c.gpus_per_node * len(c.nodes):
        notes.append(f"{ranks:,} ranks is more GPUs than the design has; judged as the "
                     "whole design")
        ranks = c.gpus_per_node * len(c.nodes)
    # one GPU per node: the rail test (stride of a node, that GPU's share of its rails)
    stride = c.gpus_per_node if per == 1 and nodes > 1 else 1
    share = 1.0 / c.ports_per_gpu if stride > 1 and "rail" in run.source.lower() else 1.0
    sizes = np.array([r.bytes for r in run.rows], dtype=np.float64)
    measured = np.array([r.busbw for r in run.rows], dtype=np.float64)
    uniq = np.unique(sizes)
    # several runs of one size: judge the median, keep the spread for the causes
    # one run is one sweep (each size once): its figures as they are; else the median per size
    med = measured[np.argsort(sizes, kind="stable")] if uniq.size == sizes.size else \
        _medians_by(sizes, measured)
    _t, bus, algo = predict_collective(plan.view, run.op, uniq, ranks, stride, nic_share=share)
    rows = _judge(uniq, med, bus)
    bad = sum(r.wrong for r in run.rows)
    if bad:
        notes.append(f"{bad:,} value(s) failed nccl-tests' validation (#wrong): results are "
                     "wrong, not only slow")
    top = str(algo[-1]) if len(algo) else ""
    test = {"all-reduce": "all_reduce_perf", "all-gather": "all_gather_perf",
            "all-to-all": "alltoall_perf", "reduce-scatter": "reduce_scatter_perf"}[run.op]
    verdict = _verdict(rows)
    if bad:
        verdict = "miss"
    return RunCheck(run.source, test, run.op, ranks, nodes, "GB/s busbw", tuple(rows), verdict,
                    top, tuple(notes))


def _check_perftest(plan: AcceptancePlan, run: PerftestRun) -> RunCheck:
    c = plan.cluster
    pair = next((p for p in plan.pairs if p.test == run.test and p.server == run.server
                 and p.client == run.client), None)
    rows = []
    if run.kind == "bw":
        line = c.port_gbps * MTU / (MTU + WIRE_OVERHEAD[c.tech])
        lo, _hi = band(np.array([line]), line)
        for r in run.rows:
            v = "worse" if r.value < lo[0] else (
                "better" if r.value > c.port_gbps else "in band")
            rows.append(Measured(r.bytes, r.value, line, float(lo[0]), float(c.port_gbps), v,
                                 r.bytes >= 65536))
        unit = "Gb/s"
    else:
        if pair is not None:
            pred, hops = pair.predicted, pair.hops
        else:
            hops = max(plan.latency_by_hops) if plan.latency_by_hops else 0
            pred = plan.latency_by_hops.get(hops, 0.0)
        lo_l, hi_l = latency_band(pred)
        for r in run.rows:
            # a latency above the band is the miss; below it is better than the design
            v = "worse" if r.value > hi_l else ("better" if r.value < lo_l else "in band")
            rows.append(Measured(r.bytes, r.value, pred, lo_l, hi_l, v, True))
        unit = "us"
    notes = () if pair is not None else (
        "no plan pair for this file (name it as run_perftest.sh does); judged against the "
        "design's longest path",)
    return RunCheck(run.source, run.test, run.kind, 2, 2, unit, tuple(rows), _verdict(rows),
                    "", notes)


def _causes(plan: AcceptancePlan, runs: list[RunCheck], results: Results,
            evidence: list[Cause]) -> list[Cause]:
    c = plan.cluster
    out: list[Cause] = []
    misses = [r for r in runs if r.verdict == "miss"]
    by_source: dict[str, NcclRun] = {}
    for run in results.nccl:  # the first run of each name, as a search from the start found
        by_source.setdefault(run.source, run)
    for r in misses:
        judged = [m for m in r.rows if m.judged and m.predicted > 0]
        if not judged:
            continue
        ratio = float(statistics.median([m.measured / m.predicted for m in judged]))
        if r.unit.startswith("GB/s") and r.op != "all-to-all" and c.rails > 1 \
                and "rail" not in r.source.lower():
            m = _rails_missing(plan, r, judged)
            if m:
                k = c.rails
                out.append(Cause(f"{m} of {k} rails (or planes) down or unused",
                                 f"{r.source}: busbw is {ratio:.0%} of the prediction and "
                                 f"matches this design with {k - m} of {k} NICs per node "
                                 "carrying traffic; check NCCL_IB_HCA, 'ibstat' link state on "
                                 "every HCA and the rail tests", (r.source,)))
        if r.algorithm in ("sharp", "nvls") and r.op == "all-reduce":
            sizes = np.array([m.bytes for m in judged], dtype=np.float64)
            alt = "tree" if r.nodes > 1 else "ring"
            try:
                _t, bus, _a = predict_collective(plan.view, r.op, sizes, r.ranks, 1,
                                                 algorithm=alt)
            except Exception:  # the alternative does not run here
                bus = np.zeros(0)
            if bus.size:
                lo, hi = band(bus, float(bus.max()))
                meas = np.array([m.measured for m in judged])
                if np.all((meas >= lo) & (meas <= hi * 1.1)):
                    what = "IB SHARP (CollNet)" if r.algorithm == "sharp" else "NVLink SHARP"
                    env = "NCCL_COLLNET_ENABLE=1 and the SHARP plugin" if \
                        r.algorithm == "sharp" else "NCCL_NVLS_ENABLE=1"
                    out.append(Cause(f"{what} not used", f"{r.source}: the design's figure "
                                     f"needs {r.algorithm}; the measured busbw matches "
                                     f"{alt} without it ({env})", (r.source,)))
        if c.tech == "eth" and r.unit.startswith("GB/s"):
            meas = [m.measured for m in r.rows]
            best_small = max(meas[:-2], default=0.0)
            collapse = len(meas) > 3 and max(meas[-2:]) < COLLAPSE * best_small
            spread = _spread(by_source, r.source)
            if collapse or spread > SPREAD:
                how = (f"busbw falls from {best_small:.3g} to {max(meas[-2:]):.3g} GB/s at the "
                       "largest sizes" if collapse else
                       f"runs of one size differ {spread:.1f}x")
                out.append(Cause("PFC or ECN off on RoCE (lossy fabric)", f"{r.source}: {how}, "
                                 "as when packets drop and RDMA retransmits; check the switches' "
                                 "PFC and ECN counters and the NICs' lossless settings "
                                 "('designer export configs' writes them)", (r.source,)))
        if r.unit == "us":
            out.append(Cause("longer path than designed on a perftest pair",
                             f"{r.source}: latency above the band for "
                             f"{r.rows[0].predicted:.3g} us; a miswired cable sends traffic "
                             "through more switches, or the hosts add latency (PCIe, power "
                             "states)", (r.source,)))
        if r.unit == "Gb/s":
            out.append(Cause("slow link on a perftest pair's path",
                             f"{r.source}: {ratio:.0%} of the line rate; check the link rates "
                             "('ibstat', 'ibnetdiscover', the switch port) on both leaves",
                             (r.source,)))
    for r in runs:
        if r.verdict == "above":
            out.append(Cause("faster than the design can carry", f"{r.source}: above the band "
                             "at bandwidth-bound sizes; the run likely used fewer nodes or "
                             "stayed inside NVLink (NCCL_DEBUG=INFO shows the channels)",
                             (r.source,)))
    if misses:
        out += evidence
    return out


def _rails_missing(plan: AcceptancePlan, r: RunCheck, judged: list[Measured]) -> int:
    """m when the measured busbw is nearest this design's prediction for the same run with m
    of its k rails gone: the hypotheses 0..k-1 rails gone are compared by the median log ratio,
    and the nearest one is named only when it is nearer than half the way to its neighbours
    (so a run far below every hypothesis names none)."""
    k = plan.cluster.rails
    sizes = np.array([m.bytes for m in judged], dtype=np.float64)
    meas = np.maximum(np.array([m.measured for m in judged]), 1e-12)
    stride = plan.cluster.gpus_per_node if r.nodes > 1 and r.ranks == r.nodes else 1
    shares = [(k - m) / k for m in range(k)]
    errs = []
    for share in shares:
        _t, bus, _a = predict_collective(plan.view, r.op, sizes, r.ranks, stride,
                                         nic_share=share)
        errs.append(float(statistics.median(
            np.abs(np.log(meas / np.maximum(bus, 1e-12))).tolist())))
    best = int(np.argmin(errs))
    if best == 0:
        return 0
    gaps = [abs(np.log(shares[best] / shares[j])) for j in (best - 1, best + 1) if j < k]
    return best if errs[best] < min(gaps) / 2 else 0


def _spread(by_source: dict[str, NcclRun], source: str) -> float:
    run = by_source.get(source)
    if run is None:
        return 1.0
    by: dict[int, list[float]] = {}
    for row in run.rows:
        by.setdefault(row.bytes, []).append(row.busbw)
    ratios = [max(v) / min(v) for v in by.values() if len(v) > 1 and min(v) > 0]
    return max(ratios, default=1.0)


CSV_HEADER = ("source", "test", "ranks", "bytes", "measured", "unit", "predicted", "band_low",
              "band_high", "verdict", "judged")


def check_rows(res: CheckResult) -> list[tuple]:
    """One row per measured figure: source names and figures as data (the CSV writer keeps
    any text that looks like a formula as text)."""
    return [(r.source, r.test, r.ranks, m.bytes, m.measured, r.unit, round(m.predicted, 4),
             round(m.low, 4), round(m.high, 4), m.verdict, "yes" if m.judged else "no")
            for r in res.runs for m in r.rows]


def write_check_csv(res: CheckResult, path: str | Path) -> None:
    from designer.core.writers.csv_writer import write_csv

    write_csv(path, CSV_HEADER, check_rows(res))


def check_results(project: Project, result: Result, catalog: Catalog,
                  paths: list[str | Path], *, evidence: list[Cause] | None = None,
                  workload: Workload | None = None) -> CheckResult:
    """Read ``paths`` and judge every run against this design (see the module's notes);
    ``evidence``: causes found in as-built data (``evidence.as_built_causes``)."""
    plan = acceptance_plan(project, result, catalog, workload)
    results = read_results(list(paths))
    runs = [_check_nccl(plan, r) for r in results.nccl]
    runs += [_check_perftest(plan, r) for r in results.perftest]
    causes = _causes(plan, runs, results, list(evidence or []))
    return CheckResult(plan, tuple(runs), tuple(causes), tuple(results.warnings))
