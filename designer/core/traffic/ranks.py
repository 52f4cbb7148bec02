"""Numbers the routings and the class-level models share: a representative GPU per class, a
destination rank for d-mod-k, and a symmetry key per switch.

They sit below ``load``, ``routing``, ``aggregate`` and ``failures`` so that each of those
imports them downward.
"""

from __future__ import annotations

import numpy as np

from designer.core.solver.compile import Compiled
from designer.core.solver.oversub import Oversubscription


def class_rep(c: Compiled) -> np.ndarray:
    """The first GPU of every class: a class-level row's NIC links are that GPU's."""
    g = np.flatnonzero(c.gpu_class >= 0)
    cls, first = np.unique(c.gpu_class[g], return_index=True)
    out = np.zeros(c.classes.n, np.int64)
    out[cls] = g[first]
    return out


def dest_rank(c: Compiled) -> np.ndarray:
    """A destination number for d-mod-k: GPUs counted leaf by leaf (class by class), as
    ftree numbers the end ports it routes to, so the GPUs under one leaf take consecutive
    numbers and spread over consecutive up ports."""
    order = np.lexsort((np.arange(c.n_gpus), c.gpu_class))
    rank = np.empty(c.n_gpus, np.int64)
    rank[order] = np.arange(c.n_gpus)
    return rank.astype(np.uint64)


def switch_classes(c: Compiled, over: Oversubscription) -> np.ndarray:
    """A symmetry key per switch: role, Gb/s down and up, neighbours, GPUs attached."""
    deg = np.diff(c.indptr)
    cl = c.classes
    gpus = np.bincount(cl.att_switch, weights=cl.count[cl.owner], minlength=c.n_switches)
    keys = np.stack([c.role[c.sw].astype(np.float64), np.round(over.down_gbps, 3),
                     np.round(over.up_gbps, 3), deg.astype(np.float64), gpus], axis=1)
    return np.unique(keys, axis=0, return_inverse=True)[1].reshape(-1)
