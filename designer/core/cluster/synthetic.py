"""A synthetic job mix: Poisson arrivals, sizes drawn from a distribution, log-normal run
times, sized so the mix keeps the design about ``load`` busy.

The default sizes follow the shape the public traces share: most jobs are one server or less,
and a few large jobs hold most GPU-hours (Acme's Seren: median 1 GPU, mean 5.7, largest
1,024; Philly: median 1, largest 128). The default load, 0.8, is the utilisation Meta reports
for its research clusters (Kokolis et al., HPCA 2025, arXiv 2410.21680).
"""

from __future__ import annotations

import numpy as np

from designer.core.cluster.trace import Trace, TraceError, make_trace

# share of jobs by GPU count (a heavy tail; edit for another mix)
DEFAULT_SIZES: dict[int, float] = {1: 0.30, 2: 0.05, 4: 0.05, 8: 0.30, 16: 0.10, 32: 0.07,
                                   64: 0.06, 128: 0.035, 256: 0.02, 512: 0.01, 1024: 0.005}
DEFAULT_MEDIAN_H = 4.0
DEFAULT_SIGMA = 1.2
DEFAULT_LOAD = 0.8


MAX_SYNTHETIC_JOBS = 1_000_000


def synthetic(design_gpus: int, days: float = 30.0, *, jobs: int | None = None,
              sizes: dict[int, float] | None = None, median_h: float = DEFAULT_MEDIAN_H,
              sigma: float = DEFAULT_SIGMA, load: float = DEFAULT_LOAD, tenants: int = 8,
              workloads: tuple[str, ...] = ("",), seed: int = 0) -> Trace:
    """``jobs`` arrivals over ``days`` (or as many as ``load`` asks for). Sizes larger than
    the design are left out of the distribution."""
    if design_gpus < 1:
        raise TraceError("synthetic trace: the design has no GPUs")
    if not 0 < load <= 4 or days <= 0 or median_h <= 0 or sigma < 0:
        raise TraceError("synthetic trace: load in (0, 4], days and median_h positive")
    dist = {int(k): float(v) for k, v in (sizes or DEFAULT_SIZES).items()
            if int(k) <= design_gpus and v > 0}
    if not dist:
        raise TraceError("synthetic trace: no job size fits the design")
    size = np.array(sorted(dist), np.int64)
    p = np.array([dist[int(s)] for s in size])
    p /= p.sum()
    mean_h = median_h * float(np.exp(sigma ** 2 / 2))
    gpu_h_per_job = float((size * p).sum()) * mean_h
    rate = load * design_gpus / gpu_h_per_job  # jobs per hour
    n = jobs if jobs is not None else round(rate * days * 24)
    if n > MAX_SYNTHETIC_JOBS:
        raise TraceError(f"synthetic trace: {n:,} jobs, more than {MAX_SYNTHETIC_JOBS:,}")
    if n < 1:
        raise TraceError("synthetic trace: no jobs (raise days or load)")
    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.uniform(0.0, days * 24.0, n))  # Poisson arrivals, ordered
    gpus = rng.choice(size, n, p=p)
    dur = median_h * np.exp(sigma * rng.standard_normal(n))
    dur = np.maximum(dur, 1.0 / 60)  # a minute at least
    tenant = [f"tenant-{k + 1}" for k in rng.integers(0, max(tenants, 1), n)]
    wl = [workloads[k] for k in rng.integers(0, len(workloads), n)]
    return make_trace(f"synthetic ({n:,} jobs, {days:g} days)", [f"j{i + 1}" for i in range(n)],
                      arrival, gpus, dur, wl, tenant, None, None, "synthetic", shift=False)
