"""NetBox CSVs (headers of NetBox's import forms, references consistent), the printable
installable cabling plan (page setup, rack sections, labels), the optional BOM lines and the
command line of the physical layer."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from openpyxl import load_workbook

from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project, save_project
from designer.core.physical.floor import BomExtras
from designer.core.physical.install import HEADER, install_plan
from designer.core.physical.netbox import HEADERS, IMPORT_ORDER
from designer.core.physical.summary import with_floor
from designer.core.solver import solve
from designer.core.writers import physical as jobs
from tests._paths import ROOT

CAT = builtin_catalog()
# Field names of NetBox's bulk-import forms (netbox/dcim/forms/bulk_import.py: SiteImportForm,
# ManufacturerImportForm, DeviceRoleImportForm, DeviceTypeImportForm, RackImportForm,
# DeviceImportForm, InterfaceImportForm, CableImportForm)
NETBOX_FIELDS = {
    "sites": {"name", "slug", "status", "region", "group", "tenant", "facility", "time_zone",
              "description", "physical_address", "shipping_address", "latitude",
              "longitude", "comments", "tags"},
    "manufacturers": {"name", "slug", "description", "tags"},
    "device_roles": {"name", "slug", "color", "vm_role", "config_template", "description",
                     "tags"},
    "device_types": {"manufacturer", "default_platform", "model", "slug", "part_number",
                     "u_height", "exclude_from_utilization", "is_full_depth",
                     "subdevice_role", "airflow", "description", "weight", "weight_unit",
                     "comments", "tags"},
    "racks": {"site", "location", "name", "facility_id", "tenant", "status", "role",
              "form_factor", "serial", "asset_tag", "width", "u_height", "desc_units",
              "outer_width", "outer_depth", "outer_unit", "mounting_depth", "airflow",
              "weight", "max_weight", "weight_unit", "description", "comments", "tags"},
    "devices": {"name", "role", "tenant", "manufacturer", "device_type", "platform", "serial",
                "asset_tag", "status", "site", "location", "rack", "position", "face",
                "latitude", "longitude", "parent", "device_bay", "airflow",
                "virtual_chassis", "vc_position", "vc_priority", "cluster", "description",
                "config_template", "comments", "tags"},
    "interfaces": {"device", "name", "label", "parent", "bridge", "lag", "type", "speed",
                   "duplex", "enabled", "mark_connected", "wwn", "vdcs", "mtu", "mgmt_only",
                   "description", "poe_mode", "poe_type", "mode", "vrf", "rf_role"},
    "cables": {"side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type",
               "side_b_name", "type", "status", "tenant", "label", "color", "length",
               "length_unit", "description", "comments", "tags"},
}


@pytest.fixture(scope="module")
def su3() -> object:
    # the DGX H100 SuperPOD RA 3-SU design with its two UFM appliances
    # (the bundled file carries a new design's BOM sections: off here, so each test switches
    # on what it checks)
    p = load_project(ROOT / "projects" / "dgx-h100-superpod-3su-ufm.fabric.json", CAT)
    p = with_floor(p, CAT)
    return p.evolve(physical=p.physical.model_copy(update={"extras": BomExtras()}))


def _read(folder: Path, name: str) -> list[dict[str, str]]:
    k = IMPORT_ORDER.index(name) + 1
    with open(folder / f"{k:02d}_{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_netbox_headers_and_references(su3, tmp_path):
    jobs.export_netbox(su3, CAT, tmp_path / "nb")
    folder = tmp_path / "nb"
    assert sorted(p.name for p in folder.iterdir()) == [
        f"{k:02d}_{n}.csv" for k, n in enumerate(IMPORT_ORDER, start=1)]
    t = {n: _read(folder, n) for n in IMPORT_ORDER}
    for name in IMPORT_ORDER:
        with open(folder / f"{IMPORT_ORDER.index(name) + 1:02d}_{name}.csv",
                  encoding="utf-8") as f:
            header = next(csv.reader(f))
        assert tuple(header) == HEADERS[name]
        assert set(header) <= NETBOX_FIELDS[name], name
    sites = {r["name"] for r in t["sites"]}
    makers = {r["name"] for r in t["manufacturers"]}
    roles = {r["name"] for r in t["device_roles"]}
    types = {(r["manufacturer"], r["model"]) for r in t["device_types"]}
    racks = {r["name"]: int(r["u_height"]) for r in t["racks"]}
    assert {r["manufacturer"] for r in t["device_types"]} <= makers
    assert {r["site"] for r in t["racks"]} <= sites
    devices = {r["name"]: r for r in t["devices"]}
    assert len(devices) == len(t["devices"]) == len(su3.fabric.devices)
    for r in t["devices"]:
        assert r["site"] in sites and r["role"] in roles
        assert (r["manufacturer"], r["device_type"]) in types
        assert r["rack"] in racks and 1 <= int(r["position"]) <= racks[r["rack"]]
    interfaces = {(r["device"], r["name"]) for r in t["interfaces"]}
    assert len(interfaces) == len(t["interfaces"])  # one row per interface
    assert {d for d, _ in interfaces} <= set(devices)
    ends = set()
    for c in t["cables"]:
        for side in ("a", "b"):
            key = (c[f"side_{side}_device"], c[f"side_{side}_name"])
            assert key in interfaces
            assert c[f"side_{side}_type"] == "dcim.interface"
            assert key not in ends  # an interface takes one cable
            ends.add(key)
        assert c["type"] in {"dac-passive", "dac-active", "mmf", "smf"}
        assert float(c["length"]) > 0 and c["length_unit"] == "m"
    assert len(t["cables"]) == su3.fabric.links.n_cables
    assert ends == interfaces


def test_install_plan_walks_rack_by_rack(su3):
    plan = install_plan(su3, CAT)
    floor_order = [r.name for _, _, r in su3.physical.floor.racks()]
    seen = [rack for rack, _ in plan.sections()]
    assert seen == sorted(seen, key=floor_order.index)
    a = plan.columns["Rack A"].tolist()
    z = plan.columns["Rack Z"].tolist()
    # each cable is listed at the earlier of its two racks
    assert all(floor_order.index(x) <= floor_order.index(y) for x, y in zip(a, z, strict=True))
    assert plan.n == su3.fabric.links.n_cables
    assert sorted(plan.columns["Label"].tolist()) == sorted(set(plan.columns["Label"].tolist()))
    # every cable has two labels, one under each end's rack
    assert plan.label_columns["Label"].size == 2 * plan.n


def test_printable_xlsx_page_setup(su3, tmp_path):
    out = tmp_path / "plan.xlsx"
    jobs.export_install_plan(su3, CAT, out)
    wb = load_workbook(out)
    assert wb.sheetnames == ["Cabling plan", "Labels"]
    plan = install_plan(su3, CAT)
    for ws, sections in ((wb["Cabling plan"], list(plan.sections())),
                         (wb["Labels"], list(plan.label_sections()))):
        assert ws.page_setup.orientation == "landscape"
        assert int(ws.page_setup.fitToWidth) == 1 and int(ws.page_setup.fitToHeight) == 0
        assert ws.sheet_properties.pageSetUpPr.fitToPage
        assert ws.print_title_rows.replace("$", "") == "1:1"
        # one section per rack, each after a page break
        assert len(ws.row_breaks.brk) == len(sections) - 1
        starts = [b.id + 1 for b in ws.row_breaks.brk]
        for row in starts:
            assert str(ws.cell(row=row, column=1).value).startswith("Rack ")
    cables = wb["Cabling plan"]
    assert tuple(c.value for c in cables[1]) == HEADER
    assert cables.max_row == 1 + plan.n + len(list(plan.sections()))


def test_install_plan_needs_a_floor():
    from designer.core.physical.errors import NoFloorPlan

    p = load_project(ROOT / "projects" / "dgx-superpod-4su-ib-ndr.fabric.json", CAT)
    with pytest.raises(NoFloorPlan, match="floor plan"):
        install_plan(p, CAT)


def test_optional_bom_lines_switch_on_one_by_one(su3):
    base = solve(su3).bom
    racks = len(su3.physical.floor.racks())
    for flag, category in (("management_network", "management"),
                           ("racks_and_pdus", "racks"), ("spares", "spares"),
                           ("support", "support")):
        x = BomExtras(**{flag: True})
        p = su3.evolve(physical=su3.physical.model_copy(update={"extras": x}))
        bom = solve(p).bom
        added = [line for line in bom.lines if line.category == category]
        assert added, flag
        assert bom.total_usd == pytest.approx(sum(x.total_usd for x in bom.lines))
        if flag == "management_network":
            assert added[0].qty == racks  # one management switch per rack
            assert added[1].qty == len(su3.fabric.devices) + racks
        if flag == "racks_and_pdus":
            assert added[0].qty == racks and "Rack, 48U" in added[0].item
            assert added[1].qty == 2 * racks  # two vertical cable managers a rack
            # PDUs in a section of their own, from each placed rack's power, A+B feeds
            pdus = [x for x in bom.lines if x.category == "power"]
            assert len(pdus) == 1 and pdus[0].qty >= 2 * racks and pdus[0].qty % 2 == 0
            assert bom.total_usd == pytest.approx(
                base.total_usd + sum(x.total_usd for x in added) + pdus[0].total_usd)
            continue
        assert bom.total_usd == pytest.approx(base.total_usd + sum(x.total_usd for x in added))
        if flag == "spares":
            for line in added:
                assert "%" in line.item or " per " in line.item
    # the 3-SU design has its UFM appliances already: no second subnet-manager line
    x = BomExtras(subnet_manager=True)
    p = su3.evolve(physical=su3.physical.model_copy(update={"extras": x}))
    assert not [line for line in solve(p).bom.lines if "UFM" in line.item and
                line.category == "management"]


def test_subnet_manager_only_for_infiniband():
    for name, expect in (("dgx-superpod-4su-ib-ndr", True), ("dgx-superpod-4su-roce-400", False)):
        p = load_project(ROOT / "projects" / f"{name}.fabric.json", CAT)
        from designer.core.physical.floor import Physical

        p = p.evolve(physical=Physical(extras=BomExtras(subnet_manager=True)))
        got = [line for line in solve(p).bom.lines if line.category == "management"]
        assert bool(got) is expect
        if expect:
            assert got[0].qty == 2 and "estimate" in got[0].item


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


def test_cli_floor_place_show_and_export(tmp_path):
    src = tmp_path / "p.fabric.json"
    save_project(load_project(ROOT / "projects" / "dgx-superpod-4su-ib-ndr.fabric.json", CAT),
                 src)
    missing = run("floor", str(src))
    assert missing.returncode == 2 and missing.stderr.startswith("designer: ")
    assert "Traceback" not in missing.stderr
    out = tmp_path / "placed.fabric.json"
    placed = run("floor", str(src), "--place", "-o", str(out))
    assert placed.returncode == 0, placed.stderr
    assert "37 rack(s)" in placed.stdout
    shown = run("floor", str(out), "--json")
    data = json.loads(shown.stdout)
    assert data["racks"] == 37 and data["placed_devices"] == 176
    assert set(data["lengths_by_layer_m"]) == {"endpoint-leaf", "leaf-spine"}
    assert sum(data["lengths_by_layer_m"]["endpoint-leaf"].values()) == 1024
    nb = run("export", "netbox", str(out), "-o", str(tmp_path / "nb"))
    assert nb.returncode == 0 and "import them in file order" in nb.stdout
    plan = run("export", "install-plan", str(out), "-o", str(tmp_path / "plan.csv"))
    assert plan.returncode == 0, plan.stderr
    lengths = np.loadtxt(tmp_path / "plan.csv", delimiter=",", skiprows=1, usecols=8,
                         dtype=str)
    assert lengths.size == 2048
