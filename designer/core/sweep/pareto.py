"""The Pareto front: the points no other point beats on every objective at once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CHUNK = 1024  # rows compared at once: memory n x CHUNK x k booleans


def pareto_mask(values: np.ndarray, senses: Sequence[str],
                valid: np.ndarray | None = None) -> np.ndarray:
    """True for the rows of ``values`` (n points x k objectives) that are not dominated.

    ``senses[j]`` is "min" or "max". A point is dominated when another is at least as good
    on every objective and better on one; equal points are all kept. Rows with a NaN or with
    ``valid`` false take no part (they are neither on the front nor dominate anything)."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[1] != len(senses):
        raise ValueError("values must be n x len(senses)")
    n = v.shape[0]
    ok = ~np.isnan(v).any(axis=1)
    if valid is not None:
        ok &= np.asarray(valid, dtype=bool)
    sign = np.array([1.0 if s == "min" else -1.0 for s in senses])
    cand = np.flatnonzero(ok)
    w = v[cand] * sign  # everything as "smaller is better"
    front = np.zeros(n, dtype=bool)
    keep = np.ones(len(cand), dtype=bool)
    for start in range(0, len(cand), CHUNK):
        block = w[start:start + CHUNK]  # b x k: is row i (block) dominated by any j?
        le = (w[None, :, :] <= block[:, None, :]).all(axis=2)
        lt = (w[None, :, :] < block[:, None, :]).any(axis=2)
        keep[start:start + CHUNK] = ~(le & lt).any(axis=1)
    front[cand[keep]] = True
    return front
