"""Removing devices skips a second validation: what is left must be what validation accepts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core import editing
from designer.core.generators import generate, params_from_dict
from designer.core.model import Fabric

# DGX SuperPOD 4 SU (NVIDIA DGX SuperPOD H100 reference architecture, network fabrics page)
_PROJECT = generate(params_from_dict("rail", {"sus": 4}))
_IDS = [d.id for d in _PROJECT.fabric.devices]


@settings(max_examples=40, deadline=None)
@given(st.sets(st.sampled_from(_IDS), max_size=60))
def test_removal_equals_a_validated_fabric(drop):
    assert len(_PROJECT.fabric.roles) == len(_IDS)  # cached on the source: carried over
    f = _PROJECT.fabric.remove_devices(drop)
    checked = Fabric(devices=f.devices, links=f.links)  # full validation must accept it
    assert [d.id for d in f.devices] == [i for i in _IDS if i not in drop]
    assert f.links.n_cables == checked.links.n_cables
    np.testing.assert_array_equal(f.roles, checked.roles)
    # no link is left on a removed device: every link row names a device that is still there
    assert (f.links.a < len(f.devices)).all() and (f.links.b < len(f.devices)).all()
    kept_old = {i for i, d in enumerate(_PROJECT.fabric.devices) if d.id not in drop}
    old = _PROJECT.fabric.links
    survivors = np.isin(old.a, list(kept_old)) & np.isin(old.b, list(kept_old))
    assert int(old.count[survivors].sum()) == f.links.n_cables


def test_a_bad_edit_is_still_refused(catalog):
    # deleting an unknown device, and cabling a device to itself, are refused as before
    with pytest.raises(Exception, match="nope"):
        editing.delete(_PROJECT, ["nope"])
    with pytest.raises(ValueError, match="itself"):
        Fabric(devices=_PROJECT.fabric.devices,
               links=_PROJECT.fabric.links.remap_devices(
                   np.zeros(len(_PROJECT.fabric.devices), np.int32)))
