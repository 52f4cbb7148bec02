"""Small fabrics and random edits of them, shared by the solver property tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from designer.core.generators import generate, params_from_dict
from designer.core.model import Project

SMALL = (
    ("rail", {"sus": 2, "servers_per_su": 4, "radix": 16, "gpus_per_server": 4}),
    ("rail", {"sus": 3, "servers_per_su": 2, "radix": 8, "gpus_per_server": 2}),
    ("rail", {"sus": 2, "servers_per_su": 4, "radix": 16, "gpus_per_server": 4, "planes": 2,
              "server": "gpu-server-8"}),
    ("fat-tree", {"k_ary": 4}),
    ("fat-tree", {"gpus": 48, "gpus_per_server": 4, "radix": 16, "oversubscription": "3:1"}),
    ("fat-tree", {"gpus": 64, "gpus_per_server": 2, "radix": 8, "tiers": 3}),
    ("dragonfly", {"a": 4, "p": 2, "h": 2}),
    ("dragonfly", {"a": 3, "p": 2, "h": 1, "gpus_per_server": 2}),
)

_cache: dict[int, Project] = {}


def base(i: int) -> Project:
    if i not in _cache:
        kind, values = SMALL[i]
        _cache[i] = generate(params_from_dict(kind, values))
    return _cache[i]


@st.composite
def edited_small_fabrics(draw) -> Project:
    """A small generated fabric, maybe with switches, bundles or single cables removed."""
    p = base(draw(st.integers(0, len(SMALL) - 1)))
    f = p.fabric
    op = draw(st.sampled_from(["none", "switch", "rows", "count", "server"]))
    if op == "switch":
        ids = [d.id for d in f.devices if d.role.is_switch]
        k = draw(st.integers(1, 2))
        f = f.remove_devices(set(draw(st.lists(st.sampled_from(ids), min_size=k, max_size=k))))
    elif op == "server":
        ids = [d.id for d in f.devices if d.role.value == "gpu-server"]
        f = f.remove_devices({draw(st.sampled_from(ids))})
    elif op == "rows":
        rows = draw(st.lists(st.integers(0, len(f.links) - 1), min_size=1, max_size=4,
                             unique=True))
        keep = np.ones(len(f.links), bool)
        keep[rows] = False
        f = f.with_links(f.links.take(keep))
    elif op == "count":
        multi = np.flatnonzero(f.links.count > 1)
        if multi.size:
            i = int(draw(st.sampled_from(multi.tolist())))
            f = f.with_links(f.links.replace([i], count=int(f.links.count[i]) - 1))
    return p.with_fabric(f)
