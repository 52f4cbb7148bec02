"""Co-packaged-optics switches: fibre straight from the switch's ports (no switch-side
transceiver), their external laser modules as parts with a count, power and failure rate.

Sources (catalog figures): NVIDIA Quantum-X Photonics Q3450-LD, 144 x 800G with 18 detachable
laser modules and MPO ports (GTC 2025, as reported by TechPowerUp and wedoany); NVIDIA's
about 9 W per 1.6T co-packaged port against about 30 W pluggable; Broadcom TH6-Davisson's 16
x 6.4T optical engines (StorageReview). The laser module's power split and MTBF are
assumptions the catalog marks as such.
"""

from __future__ import annotations

import pytest

from designer.core.catalog import LaserSpec, SwitchSpec, builtin_catalog
from designer.core.cluster.reliability import FailureSettings, blast_radius, parts, spares
from designer.core.cluster.topology import topology
from designer.core.errors import CatalogError
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.solver.compile import compile_project


def test_catalog_cpo_switches_name_their_laser_modules():
    cat = builtin_catalog()
    q = cat.switch("q3450")
    assert q.cpo and q.laser_modules == 18  # Q3450-LD: 18 detachable laser modules
    for sid in ("sn6810", "sn6800", "th6-davisson-cpo"):
        s = cat.switch(sid)
        assert s.cpo and isinstance(cat.get(s.laser_module), LaserSpec)
        # one module per 6.4 Tb/s of ports, the Q3450-LD's ratio
        mode = s.modes[0]
        assert s.laser_modules == mode.ports * mode.speed_gbps // 6400
    assert not cat.switch("sn5610").cpo and cat.switch("sn5610").laser_modules == 0


def test_cpo_optics_power_is_a_third_of_pluggables_per_port():
    """Engines (in the switch's power) plus lasers (their own parts): 9 W per 1.6T port, 4.5 W
    per 800G port, against a 1.6T pluggable's 25-30 W."""
    cat = builtin_catalog()
    laser = cat.laser("els-cpo-6.4t")
    q3450, q3400 = cat.switch("q3450"), cat.switch("q3400")
    engines = q3450.power_w - q3400.power_w  # the same 4-ASIC box, without optics
    per_800g = (engines + q3450.laser_modules * laser.power_w) / 144
    assert per_800g == pytest.approx(4.5)


def test_a_pluggable_switch_cannot_carry_laser_modules():
    with pytest.raises(ValueError, match="co-packaged"):
        SwitchSpec(id="x", name="x", price_usd=1.0, power_w=1.0, latency_ns=1.0, cages=1,
                   modes=({"ports": 1, "speed_gbps": 400, "techs": ("eth",)},),
                   laser_module="els-cpo-6.4t", laser_modules=2)


def test_an_unknown_laser_module_is_a_catalog_error():
    cat = builtin_catalog()
    bad = cat.switch("sn6810").model_copy(update={"laser_module": "no-such-laser"})
    with pytest.raises(CatalogError, match="no-such-laser"):
        cat.with_items([bad])


def _design(gear: str, switch: str | None = None):
    params = {"gear": gear, "sus": 2}
    if switch:
        params["switch"] = switch
    return generate(params_from_dict("rail", params))


def test_bom_has_no_switch_side_modules_and_counts_laser_modules():
    r = solve(_design("vr-spectrum-x"))  # SN6810 leaves and spines
    switches = sum(x.qty for x in r.bom.lines if x.category == "switch")
    lasers = {x.catalog_id: x for x in r.bom.lines if x.category == "laser"}
    assert lasers["els-cpo-6.4t"].qty == 16 * switches
    assert r.power_by_category["laser"] == pytest.approx(16 * switches * 12.0)
    modules = sum(x.qty for x in r.bom.lines if x.category == "transceiver")
    nic_links = r.links.by_layer["endpoint-leaf"]
    assert modules == nic_links  # one module at each NIC port, none on a switch
    fibres = sum(x.qty for x in r.bom.lines if x.category == "fibre")
    assert fibres == r.links.total  # fibre as before: one a link
    assert not any(x.category == "cable" for x in r.bom.lines)  # no copper into a CPO port


def test_the_same_design_on_pluggable_switches_buys_switch_modules():
    r = solve(_design("vr-spectrum-x", switch="sn5610"))
    assert not any(x.category == "laser" for x in r.bom.lines)
    modules = sum(x.qty for x in r.bom.lines if x.category == "transceiver")
    assert modules > r.links.by_layer["endpoint-leaf"]


def test_failure_analysis_counts_laser_modules_and_their_blast():
    p = _design("vr-spectrum-x")
    c = compile_project(p, p.catalog(builtin_catalog()))
    topo = topology(c, 72)
    pt = parts(c, topo)
    assert pt.counts["laser"] == 16 * c.n_switches
    assert pt.laser_lit == 8
    fs = FailureSettings()
    assert fs.rate("laser").per_1000_days == pytest.approx(1000 * 24 / 1_000_000)
    blast = {b.component: b for b in blast_radius(c, topo, pt)}
    assert "laser" in blast and "8 ports" in blast["laser"].jobs
    assert any(s.component == "laser" for s in spares(pt, fs))
