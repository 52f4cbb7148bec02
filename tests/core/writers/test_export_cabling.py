"""The cabling plan read back with openpyxl and csv: one row per physical cable, no port
twice, ports named as the gear names them, media as the solver chose them."""

from __future__ import annotations

import csv
from collections import Counter

import numpy as np
import openpyxl
import pytest

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.links import MEDIA
from designer.core.ports import port_layout
from designer.core.solver import solve
from designer.core.writers import jobs
from designer.core.writers.cabling import HEADER

MEDIUM_WORDS = {"dac": "DAC", "acc": "ACC", "mmf": "Multimode", "smf": "Single-mode"}


@pytest.fixture(scope="module", params=["rail-ufm", "roce-2-plane", "dragonfly"])
def design(request, catalog):
    kind, values = {
        "rail-ufm": ("rail", {"sus": 1, "reserve_leaf_ports": 4}),
        "roce-2-plane": ("rail", {"sus": 1, "gear": "roce-800", "servers_per_su": 8}),
        "dragonfly": ("dragonfly", {"a": 4, "p": 2, "h": 2}),
    }[request.param]
    project = generate(params_from_dict(kind, values))
    cat = project.catalog(catalog)
    return project, cat, solve(project, catalog=cat)


def read_xlsx(path):
    wb = openpyxl.load_workbook(path)
    ws = wb["Cables"]
    rows = list(ws.iter_rows(values_only=True))
    return wb, rows[0], rows[1:]


def test_one_row_per_cable_no_port_twice(design, tmp_path):
    project, cat, result = design
    path = tmp_path / "cables.xlsx"
    jobs.export_cabling(project, cat, path, result=result)
    wb, header, rows = read_xlsx(path)
    assert header == HEADER
    fabric = project.fabric
    # a row per physical cable; a cable carrying two links (twin or splitter copper) is one
    assert len(rows) == result.cables.total
    assert fabric.links.n_cables == result.links.total
    col = {h: i for i, h in enumerate(header)}
    assert sum(r[col["Links"]] for r in rows) == fabric.links.n_cables
    ends = Counter()
    for r in rows:  # every lane of every cable, split back into device and port
        for side in ("A", "Z"):
            names = r[col[f"{side}-Node Name"]].split(" + ")
            ports = str(r[col[f"{side}-Port"]]).split(" + ")
            for k in range(r[col["Links"]]):
                ends[(names[min(k, len(names) - 1)], ports[min(k, len(ports) - 1)])] += 1
    assert max(ends.values()) == 1
    assert sum(ends.values()) == 2 * fabric.links.n_cables
    assert len({r[col["Cable label"]] for r in rows}) == len(rows)
    # ports as the gear names them, A and Z devices as the links say
    e = fabric.links.expand()
    by_name = {d.name: d for d in fabric.devices}
    first = np.sort(np.unique(result.bom.cable_id, return_index=True)[1])  # row -> first link
    for row in range(0, len(rows), max(1, len(rows) // 97)):
        r, i = rows[row], int(first[row])
        if r[col["Links"]] > 1:
            continue
        a, b = fabric.devices[int(e["a"][i])], fabric.devices[int(e["b"][i])]
        assert (r[col["A-Node Name"]], r[col["Z-Node Name"]]) == (a.name, b.name)
        assert str(r[col["A-Port"]]) == port_layout(a, cat).name(int(e["a_port"][i]))
        assert str(r[col["Z-Port"]]) == port_layout(b, cat).name(int(e["b_port"][i]))
        assert r[col["A-Type"]] == ("Switch" if by_name[a.name].role.is_switch else "Host")
    # the medium is the solver's choice for that very cable
    media = result.media
    for row in range(0, len(rows), max(1, len(rows) // 53)):
        i = int(first[row])
        cls = MEDIA[int(media.medium_class[i])]
        assert rows[row][col["Medium"]].startswith(MEDIUM_WORDS[cls])
        assert rows[row][col["Length (m)"]] == pytest.approx(float(media.length_m[i]))
    assert wb["Cables"].freeze_panes == "A2"


def test_fibres_and_copper_agree_with_the_bom(design, tmp_path):
    """One fibre per optical cable: the plan's fibre count is the BOM's fibre quantity."""
    project, cat, result = design
    path = tmp_path / "cables.csv"
    jobs.export_cabling(project, cat, path, result=result)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    # one row per physical cable: the solver's cable count, never more rows than links
    assert len(rows) == result.cables.total <= project.fabric.links.n_cables
    assert sum(int(r["Links"]) for r in rows) == project.fabric.links.n_cables
    fibres = Counter(r["Cable / fibre"] for r in rows if r["Cable / fibre"].startswith("fiber"))
    bom = {x.catalog_id: x.qty for x in result.bom.lines if x.category == "fibre"}
    assert dict(fibres) == bom
    nic_optics = Counter()
    for r in rows:
        for side in ("A", "Z"):
            if r[f"{side}-Type"] == "Host" and r[f"{side}-side optic"]:
                nic_optics[r[f"{side}-side optic"]] += 1
    cat_ = project.catalog(builtin_catalog())
    for gear_id, n in nic_optics.items():  # NIC-side modules: one per cage of their lanes
        lanes = cat_.get(gear_id).links_per_item
        assert {x.catalog_id: x.qty for x in result.bom.lines}[gear_id] == n // lanes


def test_twin_port_cages_are_named_cage_and_lane(catalog, tmp_path):
    project = generate(params_from_dict("rail", {"sus": 1}))
    cat = project.catalog(catalog)
    path = tmp_path / "c.csv"
    jobs.export_cabling(project, cat, path)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    leaf_ports = {r["Z-Port"] for r in rows if r["Z-Node Name"] == "su1-leaf-r1"}
    # QM9700: 32 twin-port OSFP cages, 64 NDR ports named 1/1 .. 32/2
    assert {"1/1", "1/2", "16/2"} <= leaf_ports
    assert all(r["A-Port"].isdigit() for r in rows if r["A-Type"] == "Host")
