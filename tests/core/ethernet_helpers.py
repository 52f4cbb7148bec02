"""Small RoCE designs for the Ethernet tests, generated once per session."""

from __future__ import annotations

import functools

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict


@functools.cache
def design(kind: str, **values):
    cat = builtin_catalog()
    project = generate(params_from_dict(kind, {"gear": "roce-400", **values}), cat)
    return project, project.catalog(cat)


def rail_2su():
    """DGX SuperPOD-style RoCE design, 2 SUs of 32 servers: 16 leaves, 4 spines (the NDR SU
    on RoCE gear; the RoCE default SU of 64 would give 8 spines)."""
    return design("rail", sus=2, servers_per_su=32)


def fat_tree_k4():
    """Al-Fares k = 4 fat-tree: 8 leaves, 8 spines in 4 pods, 4 cores."""
    return design("fat-tree", k_ary=4)
