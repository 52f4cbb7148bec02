"""Connected components of an undirected graph, in numpy alone.

scipy's ``connected_components`` lives in ``scipy.sparse.csgraph``, whose import brings
``scipy.sparse.linalg`` and ``scipy.linalg`` (about 0.1-0.15 s of a command's start, more than
the solve of a 1,024-GPU design). Every solve asks for the fabric's components, so this module
finds them by hooking and pointer jumping (Shiloach and Vishkin, J. Algorithms 1982): each
round hangs every tree root under the smallest root it shares an edge with and then
shortcuts every node to its root; a fabric needs a handful of rounds, each a few array
operations over its edges.
"""

from __future__ import annotations

import numpy as np


def connected_labels(n: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """Components of the graph on ``n`` nodes with edges ``a[i]-b[i]``: their count and each
    node's label, numbered by the component's lowest node (as scipy numbers them)."""
    parent = np.arange(n, dtype=np.int64)
    a = np.asarray(a, np.int64)
    b = np.asarray(b, np.int64)
    while a.size:
        pa, pb = parent[a], parent[b]
        apart = pa != pb
        if not apart.any():
            break
        # edges inside one tree stay inside it: drop them
        a, b, pa, pb = a[apart], b[apart], pa[apart], pb[apart]
        np.minimum.at(parent, np.maximum(pa, pb), np.minimum(pa, pb))
        while True:  # every node straight to its root: roots only are compared next round
            up = parent[parent]
            if np.array_equal(up, parent):
                break
            parent = up
    roots, labels = np.unique(parent, return_inverse=True)
    return int(roots.size), labels.reshape(-1).astype(np.int64)


def csr_labels(indptr: np.ndarray, indices: np.ndarray) -> tuple[int, np.ndarray]:
    """``connected_labels`` of a graph given as CSR rows (each edge listed either way)."""
    n = indptr.size - 1
    return connected_labels(n, np.repeat(np.arange(n), np.diff(indptr)), indices)
