"""The one prediction every acceptance figure comes from: the estimate's collective model
(``collective_times``) for exactly the run in question, as nccl-tests reports it (busbw)."""

from __future__ import annotations

import numpy as np

from designer.core.analysis.collectives import Communicator, bus_factor, collective_times
from designer.core.analysis.fabric import FabricView


def predict_collective(view: FabricView, op: str, sizes: np.ndarray, ranks: int, stride: int,
                       *, placement: str = "contiguous", nic_share: float = 1.0,
                       algorithm: str = "auto") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicted seconds, busbw (GB/s) and algorithm of ``op`` at ``sizes`` over ``ranks``
    GPUs ``stride`` apart; ``nic_share`` < 1 when the run uses only part of a GPU's rails."""
    comm = Communicator("test", ranks, stride)
    t, algo, _proto = collective_times(view, op, sizes, comm, algorithm=algorithm,
                                       job_gpus=ranks * stride, placement=placement,
                                       network_slowdown=1.0 / nic_share)
    with np.errstate(divide="ignore", invalid="ignore"):
        bus = np.where(t > 0, sizes / t / 1e9 * bus_factor(op, ranks), 0.0)
    return t, bus, algo
