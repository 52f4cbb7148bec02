"""The 2026 catalog: rack-scale systems and their scale-up domains, AMD servers, NICs, switches
and optics, each figure as its source gives it (the source is named beside each check)."""

from __future__ import annotations

import pytest

from designer.core.analysis.gpus import gpu_spec
from designer.core.catalog import CoolingSpec, ScaleUpSwitchSpec, builtin_catalog

CAT = builtin_catalog()


def test_gb200_nvl72_rack_as_nvidia_publishes_it():
    # NVIDIA DGX GB200 User Guide (Hardware): 18 x 1RU compute trays of 2 Grace + 4 Blackwell,
    # 9 x 1RU NVLink switch trays, 4 x ConnectX-7 single-port 400G OSFP NICs a tray
    s = CAT.server("gb200-nvl72")
    assert (s.gpus, s.nics, s.cages, s.rack_units) == (4, 4, 4, 1)
    assert CAT.nic(s.nic).mode_for(400, "ib-ndr").ports == 1
    su = s.scale_up
    assert (su.servers, su.switch_trays, s.domain_gpus) == (18, 9, 72)
    # DGX SuperPOD GB200 RA: 2 NVLink switch chips a tray, 1.8 TB/s per GPU (900 each way)
    tray = CAT.scale_up_switch(su.switch_tray)
    assert tray.chips == 2 and su.gbytes_s == 900
    assert s.cooling == "liquid" and s.rack_scale


def test_gb300_nvl72_tray_and_rack_power():
    # NVIDIA Enterprise RA, NVL72 AI Factory: 2 mezzanine boards x 2 ConnectX-8 = 4 HCAs a tray,
    # 9 NVSwitch trays, 8 power shelves of 33 kW, the rack up to 142 kW
    s = CAT.server("gb300-nvl72")
    assert (s.gpus, s.nics, s.nic) == (4, 4, "connectx-8")
    assert s.scale_up.switch_trays == 9 and s.scale_up.rack_kw == 142
    # the rack's load (18 trays and 9 switch trays) fits its 142 kW rating
    tray = CAT.scale_up_switch(s.scale_up.switch_tray)
    assert 18 * s.power_w + 9 * tray.power_w <= 142_000


def test_vera_rubin_two_800g_nics_per_gpu():
    # wheelersnetwork.com (Rubin networking math): each ConnectX-9 is 800G, eight a tray
    s = CAT.server("vr-nvl72")
    nic = CAT.nic(s.nic)
    assert s.nics * nic.mode(800).ports // s.gpus == 2
    assert s.scale_up.gbytes_s == 1800  # NVLink 6: 3.6 TB/s per GPU (SemiAnalysis, CES 2026)
    assert 180 <= s.scale_up.rack_kw <= 230  # 180-230 kW a rack (press)


def test_amd_platforms():
    # AMD MI300X data sheet: 7 Infinity Fabric links of 128 GB/s (896 GB/s, 448 each way);
    # MI3XX reference design: one 400G back-end NIC per GPU
    m3 = CAT.server("mi300x-8")
    assert (m3.gpus, m3.nics, m3.scale_up.gbytes_s) == (8, 8, 448)
    m5 = CAT.server("mi355x-8")
    assert m5.scale_up.gbytes_s == pytest.approx(7 * 153.6 / 2)  # The Register, 2025-06-12
    assert m5.cooling == "liquid"
    h = CAT.server("helios-72")
    assert h.domain_gpus == 72 and h.nics // h.gpus == 3  # three 800G Vulcano per GPU


@pytest.mark.parametrize(("gear_id", "modes"), [
    ("q3450", {(144, 800)}),  # Quantum-X Photonics Q3450-LD: 144 x 800G, 115.2 Tb/s
    ("sn5610", {(64, 800), (128, 400)}),  # Spectrum-X SN5610, 51.2 Tb/s
    ("sn6810", {(128, 800)}),  # Spectrum-6 CPO: 102.4 Tb/s
    ("sn6800", {(512, 800)}),  # Spectrum-6 CPO: 409.6 Tb/s
    # Tomahawk 6: 64 x 1.6T, 128 x 800G, and its 512 x 200G and 1,024 x 100G SerDes modes
    ("th6-102t", {(64, 1600), (128, 800), (256, 400), (512, 200), (1024, 100)}),
    ("tomahawk-ultra", {(64, 800), (128, 400), (256, 200), (512, 100)}),
    ("jericho4", {(64, 800), (128, 400)}),
])
def test_2026_switches(gear_id, modes):
    sw = CAT.switch(gear_id)
    assert {(m.ports, m.speed_gbps) for m in sw.modes} == modes
    assert all(m.ports * m.speed_gbps == sw.modes[0].ports * sw.modes[0].speed_gbps
               for m in sw.modes)  # every mode is the same capacity


def test_tomahawk_ultra_latency_and_nics():
    assert CAT.switch("tomahawk-ultra").latency_ns == 250  # Hot Chips 2025: 250 ns
    assert CAT.nic("pollara-400").mode(400).techs == ("eth",)
    thor = CAT.nic("thor-ultra")  # 800G as 1 x 800, 2 x 400, 4 x 200 or 8 x 100
    assert {(m.ports, m.speed_gbps) for m in thor.modes} == {(1, 800), (2, 400), (4, 200),
                                                              (8, 100)}
    assert CAT.nic("connectx-9").mode_for(800, "ib-xdr") is not None


def test_16t_optics_have_power():
    for mid in ("osfp-1.6t-dr8", "osfp-1.6t-2x800g-dr8"):
        m = CAT.get(mid)
        assert 20 <= m.power_w <= 30  # 25-27 W a 1.6T module (vendor blog figure, flagged)
        assert m.figure_for("power_w") is not None


def test_scale_up_trays_and_cdus_are_their_own_kinds():
    assert isinstance(CAT.get("nvlink5-switch-tray"), ScaleUpSwitchSpec)
    cdu = CAT.get("cdu-inrow-1350")
    assert isinstance(cdu, CoolingSpec) and cdu.capacity_kw == 1350


@pytest.mark.parametrize(("model", "bf16", "fp8"), [
    ("MI300X", 1307.4, 2614.9),  # AMD MI300X data sheet, dense
    ("MI355X", 2516.6, 5033.2),  # AMD Instinct MI355X datasheet
    ("GB300", 2500.0, 5000.0),  # GB300 NVL72: 360 / 720 PFLOPS sparse per 72 GPUs
    ("GB200", 2500.0, 5000.0),
])
def test_gpu_peaks(model, bf16, fp8):
    g = gpu_spec(model)
    assert (g.bf16_tflops, g.fp8_tflops) == (bf16, fp8)


def test_every_catalog_gpu_has_figures():
    """Every GPU the catalog names has its own peak and scale-up figure (not the fallback)."""
    for s in CAT.of_kind("server"):
        if s.gpus and "accelerator" not in s.gpu_model:
            g = gpu_spec(s.gpu_model)
            assert g.name.split()[0].upper() in s.gpu_model.upper(), s.id
            assert g.bf16_tflops > 0 and g.nvlink_gbytes_s > 0


def test_new_profiles_resolve_to_rack_scale_gear():
    p = CAT.profiles
    assert CAT.server(p["gb300-ib-xdr"].server).rack_scale
    assert p["gb300-spectrum-x"].planes == 2 and p["vr-ib-xdr"].planes == 2
    assert CAT.server(p["amd-roce-400"].server).gpu_model == "MI355X"
