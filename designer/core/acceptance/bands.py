"""How wide a predicted figure's acceptance band is.

A collective's time is a latency term plus a bandwidth term; each is known to a different
precision. The bandwidth term rests on the NIC's and NVLink's protocol efficiency, which
NCCL's measured figures pin within a few per cent (ConnectX-7 NDR moves 46-49 GB/s of 50 under
NCCL, nccl-tests issues 290 and 267; 8 x H100 rings 360-370 GB/s, issues 212 and 326), plus
run-to-run noise; the latency term rests on NCCL's per-step constants (``src/graph/tuning.cc``)
and the path latency, which real hosts miss by tens of per cent (PCIe, proxy threads, clock
boost). So the band takes each term's tolerance in proportion to its share of the predicted
figure: ``f`` = predicted bus bandwidth / the curve's peak (1 where bandwidth-bound, near 0
where latency-bound). Measured figures above the band are flagged too: a run faster than the
design can carry usually ran something else (fewer nodes, traffic that never left NVLink).
"""

from __future__ import annotations

import numpy as np

# bandwidth-bound: -10 % / +5 % (protocol efficiency spread 0.92-0.98 plus run-to-run noise)
BW_LOW, BW_HIGH = 0.10, 0.05
# latency-bound: -50 % / +100 % (NCCL's latency constants are its own tuning guides)
LAT_LOW, LAT_HIGH = 0.50, 1.00


def band(predicted: np.ndarray, peak: float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of a predicted bandwidth curve (GB/s or Gb/s), by the share ``f``."""
    p = np.asarray(predicted, dtype=np.float64)
    f = np.clip(p / peak, 0.0, 1.0) if peak > 0 else np.zeros_like(p)
    low = p * (1 - (BW_LOW * f + LAT_LOW * (1 - f)))
    high = p * (1 + (BW_HIGH * f + LAT_HIGH * (1 - f)))
    return low, high


def latency_band(predicted_us: float) -> tuple[float, float]:
    """(low, high) of a predicted one-way latency: latency-bound by nature."""
    return predicted_us * (1 - LAT_LOW), predicted_us * (1 + LAT_HIGH)


def rule_text() -> str:
    return (f"band = prediction x [1 - ({BW_LOW:.0%} f + {LAT_LOW:.0%} (1-f)), "
            f"1 + ({BW_HIGH:.0%} f + {LAT_HIGH:.0%} (1-f))], f = predicted busbw / peak busbw")
