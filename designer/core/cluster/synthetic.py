"""A synthetic job mix: Poisson arrivals, sizes drawn from a distribution, log-normal run
times, sized so the mix keeps the design about ``load`` busy.

The default sizes follow the shape the public traces share: most jobs are one server or less,
and a few large jobs hold most GPU-hours (Acme's Seren: median 1 GPU, mean 5.7, largest
1,024; Philly: median 1, largest 128). The default load, 0.8, is the utilisation Meta reports
for its research clusters (Kokolis et al., HPCA 2025, arXiv 2410.21680).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from designer.core.cluster.trace import Trace, TraceError, make_trace

# share of jobs by GPU count (a heavy tail; edit for another mix)
DEFAULT_SIZES: dict[int, float] = {1: 0.30, 2: 0.05, 4: 0.05, 8: 0.30, 16: 0.10, 32: 0.07,
                                   64: 0.06, 128: 0.035, 256: 0.02, 512: 0.01, 1024: 0.005}
DEFAULT_MEDIAN_H = 4.0
DEFAULT_SIGMA = 1.2
DEFAULT_LOAD = 0.8


MAX_SYNTHETIC_JOBS = 1_000_000


def synthetic(design_gpus: int, days: float | None = 30.0, *, jobs: int | None = None,
              sizes: dict[int, float] | None = None, median_h: float | None = None,
              sigma: float = DEFAULT_SIGMA, load: float = DEFAULT_LOAD, tenants: int = 8,
              workloads: tuple[str, ...] = ("",), seed: int = 0) -> Trace:
    """A mix that offers ``load`` of the design's GPU-hours. Of the job count, the window
    (``days``) and the median run time, two may be given and the third is sized to the load:
    no count gives as many arrivals as the load asks for over ``days``; a count and no window
    spreads the arrivals over the time the load asks for; a count and a window size the run
    times. Sizes larger than the design are left out of the distribution."""
    if design_gpus < 1:
        raise TraceError("synthetic trace: the design has no GPUs")
    if not 0 < load <= 4 or (days is not None and days <= 0) or sigma < 0 \
            or (median_h is not None and median_h <= 0):
        raise TraceError("synthetic trace: load in (0, 4], days and median_h positive")
    if jobs is not None and jobs < 1:
        raise TraceError("synthetic trace: no jobs (ask for one or more)")
    dist = {int(k): float(v) for k, v in (sizes or DEFAULT_SIZES).items()
            if int(k) <= design_gpus and v > 0}
    if not dist:
        raise TraceError("synthetic trace: no job size fits the design")
    size = np.array(sorted(dist), np.int64)
    p = np.array([dist[int(s)] for s in size])
    p /= p.sum()
    mean_size = float((size * p).sum())
    spread = float(np.exp(sigma ** 2 / 2))  # mean / median of the log-normal run time
    if jobs is not None and days is not None and median_h is None:
        median_h = load * design_gpus * days * 24.0 / (jobs * mean_size * spread)
    median_h = DEFAULT_MEDIAN_H if median_h is None else median_h
    rate = load * design_gpus / (mean_size * median_h * spread)  # jobs per hour
    if days is None:
        days = (jobs if jobs is not None else 1) / rate / 24.0
    n = jobs if jobs is not None else round(rate * days * 24)
    if n > MAX_SYNTHETIC_JOBS:
        raise TraceError(f"synthetic trace: {n:,} jobs, more than {MAX_SYNTHETIC_JOBS:,}")
    if n < 1:
        raise TraceError("synthetic trace: no jobs (raise days or load)")
    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.uniform(0.0, days * 24.0, n))  # Poisson arrivals, ordered
    gpus = rng.choice(size, n, p=p)
    dur = median_h * np.exp(sigma * rng.standard_normal(n))
    window_h = days * 24.0
    scale = _fill_scale(arrival, gpus, dur, window_h, load * design_gpus * window_h)
    median_h *= scale
    # a minute at least; no run longer than the window (what runs past its end adds nothing
    # to the load offered inside it)
    dur = np.clip(dur * scale, 1.0 / 60, max(window_h, 1.0 / 60))
    tenant = [f"tenant-{k + 1}" for k in rng.integers(0, max(tenants, 1), n)]
    wl = [workloads[k] for k in rng.integers(0, len(workloads), n)]
    offered = float((gpus * np.minimum(dur, window_h - arrival)).sum()) / (
        design_gpus * window_h)
    name = (f"synthetic ({n:,} jobs over {days:.3g} days, median run {median_h:.3g} h, "
            f"offering {offered:.0%} of the design)")
    tr = make_trace(name, [f"j{i + 1}" for i in range(n)],
                    arrival, gpus, dur, wl, tenant, None, None, "synthetic", shift=False)
    return replace(tr, window_h=window_h)


def _fill_scale(arrival: np.ndarray, gpus: np.ndarray, dur: np.ndarray, window_h: float,
                target_gpu_h: float) -> float:
    """The factor on every run time that makes the work done inside the window (each job cut
    at its end) equal the target: it takes out the draw's noise (a heavy tail of sizes makes
    one draw's GPU-hours swing widely) and the work that runs past the window's end, so the
    offered load holds within the window. Where even endless runs cannot fill it (a few small
    jobs on a large design), the runs fill what they can: the name states the load offered."""
    room = np.maximum(window_h - arrival, 0.0)

    def work(k: float) -> float:
        return float((gpus * np.minimum(dur * k, room)).sum())

    # past the largest room / run ratio every job already fills its room: the work stops
    # growing there
    full = float((room / dur).max()) if dur.size else 1.0
    if work(1.0) >= target_gpu_h:
        lo, hi = 0.0, 1.0
    elif work(full) < target_gpu_h:
        return full
    else:
        lo, hi = 1.0, full
    for _ in range(50):  # bisection on a monotone function: 2^-50 of the bracket
        mid = (lo + hi) / 2
        if work(mid) < target_gpu_h:
            lo = mid
        else:
            hi = mid
    return hi
