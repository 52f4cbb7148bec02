"""Compact arrangement: wide generated designs wrap into rows; wiring is untouched."""

from __future__ import annotations

import numpy as np
import pytest

from designer.core.editing import move_devices
from designer.core.errors import FabricError
from designer.core.generators import generate, params_from_dict
from designer.core.layout import arrange_compact


def _extent(fabric):
    xs = np.array([d.x for d in fabric.devices])
    ys = np.array([d.y for d in fabric.devices])
    return xs.max() - xs.min(), ys.max() - ys.min()


@pytest.mark.parametrize(
    ("kind", "params"),
    [("rail", {"sus": 64}), ("rail", {"sus": 8}), ("fat-tree", {"gpus": 8192, "tiers": 3})],
)
def test_wide_designs_wrap_into_rows(catalog, kind, params):
    p = generate(params_from_dict(kind, params), catalog)
    w0, h0 = _extent(p.fabric)
    q = move_devices(p, arrange_compact(p.fabric))
    w1, h1 = _extent(q.fabric)
    assert w0 / h0 > 8 and w1 / h1 < 4
    assert q.fabric.links is p.fabric.links
    assert [d.id for d in q.fabric.devices] == [d.id for d in p.fabric.devices]
    # no two devices land on the same spot
    pos = {(d.x, d.y) for d in q.fabric.devices}
    assert len(pos) == len(q.fabric.devices)


def test_refuses_what_it_cannot_wrap(catalog):
    planes = generate(
        params_from_dict("rail", {"sus": 2, "planes": 2, "server": "gpu-server-8"}), catalog
    )
    with pytest.raises(FabricError, match="multi-plane"):
        arrange_compact(planes.fabric)
    flat = generate(params_from_dict("fat-tree", {"gpus": 512}), catalog)  # 2 tiers, no pods
    with pytest.raises(FabricError, match="no pods"):
        arrange_compact(flat.fabric)
