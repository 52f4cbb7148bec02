"""Small helpers for the benchmark scripts: best-of-N timing and peak memory."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """The fastest of ``repeat`` runs (seconds) and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def peak_memory(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Peak memory (MB) Python and numpy allocate while ``fn`` runs."""
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 1e6, result
