"""draw.io export (groups, layers and racks as pages, valid mxfile XML, readable at 1,024 GPUs)
and the port map of every switch (cabling workbook and report)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

import openpyxl
import pytest

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.model import Device
from designer.core.physical.summary import with_floor
from designer.core.solver import solve
from designer.core.writers import jobs
from designer.core.writers.cabling import cabling_plan
from designer.core.writers.drawio import drawio_xml
from designer.core.writers.port_map import FREE, port_map

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def su1():
    p = generate(params_from_dict("rail", {"sus": 1}))
    return with_floor(p, p.catalog(CAT))


@pytest.fixture(scope="module")
def gpus1024():
    return generate(params_from_dict("rail", {"sus": 4}))


def _pages(xml: str) -> dict[str, ET.Element]:
    root = ET.fromstring(xml)
    assert root.tag == "mxfile"
    return {d.get("name"): d for d in root.findall("diagram")}


def _check_page(page: ET.Element) -> tuple[list[ET.Element], list[ET.Element]]:
    cells = page.findall("./mxGraphModel/root/mxCell")
    ids = [c.get("id") for c in cells]
    assert len(ids) == len(set(ids)), "cell ids repeat on a page"
    known = set(ids)
    vertices = [c for c in cells if c.get("vertex") == "1"]
    edges = [c for c in cells if c.get("edge") == "1"]
    vids = {c.get("id") for c in vertices}
    for c in cells:
        if c.get("id") != "0":
            assert c.get("parent") in known
    for e in edges:
        assert e.get("source") in vids and e.get("target") in vids
    for c in vertices + edges:
        assert "html=0" in c.get("style")  # labels are text, never markup
    return vertices, edges


def _cables(label: str) -> int:
    return sum(int(n.replace(",", "")) for n in re.findall(r"([0-9,]+) x \d+G", label))


def test_drawio_has_groups_layers_and_racks_pages(su1):
    xml, counts = drawio_xml(su1, su1.catalog(CAT))
    pages = _pages(xml)
    assert list(pages) == ["Groups", "Layer endpoint-leaf", "Layer leaf-spine", "Racks"]
    assert counts["pages"] == 4
    links = len(su1.fabric.links.expand()["a"])
    for name, page in pages.items():
        vertices, edges = _check_page(page)
        if name == "Groups":
            # every cable is in one bundle, each link layer a draw.io layer of its own
            assert sum(_cables(e.get("value")) for e in edges) == links
            layers = [c for c in page.iter("mxCell") if c.get("parent") == "0"]
            assert {c.get("value") for c in layers} == {"Devices", "endpoint-leaf",
                                                        "leaf-spine"}
        if name == "Racks":
            devices = [v for v in vertices if v.get("id").startswith("r-d")]
            assert len(devices) == len(su1.fabric.devices)  # every placed device, by its U
            racks = [v for v in vertices if v.get("id").startswith("r-k")]
            assert len(racks) == len(su1.physical.floor.racks())


def test_drawio_stays_readable_at_1024_gpus(gpus1024):
    xml, _ = drawio_xml(gpus1024, gpus1024.catalog(CAT))
    pages = _pages(xml)
    vertices, edges = _check_page(pages["Groups"])
    assert sum(d.role.value == "gpu-server" for d in gpus1024.fabric.devices) * 8 == 1024
    # groups and bundles, not 150 devices and 2,000 cables
    assert len(vertices) <= 60 and len(edges) <= 100
    assert sum(_cables(e.get("value")) for e in edges) == len(
        gpus1024.fabric.links.expand()["a"])
    assert "Racks" not in pages  # no floor plan placed: no racks page
    server_boxes = [v.get("value") for v in vertices if "dgx-h100" in v.get("value")]
    assert server_boxes and all("32 x dgx-h100" in v for v in server_boxes)


def test_a_name_with_markup_stays_text(su1):
    d = su1.fabric.devices[0]
    bad = Device(**(d.model_dump() | {"name": "<b>node & \"1\"</b>"}))
    p = su1.evolve(fabric=su1.fabric.model_copy(update={
        "devices": [bad, *su1.fabric.devices[1:]]}))
    xml, _ = drawio_xml(p, p.catalog(CAT))
    pages = _pages(xml)  # parses: the name is escaped
    racks = [c.get("value") for c in pages["Racks"].iter("mxCell")]
    assert any(v and v.startswith("<b>node & \"1\"</b>") for v in racks)


def test_cli_writes_drawio_and_refuses_another_suffix(su1, tmp_path, capsys):
    src = tmp_path / "d.fabric.json"
    save_project(su1, src)
    assert main(["export", "drawio", str(src), "-o", str(tmp_path / "d.drawio")]) == 0
    assert "page(s)" in capsys.readouterr().out
    ET.parse(tmp_path / "d.drawio")
    assert main(["export", "drawio", str(src), "-o", str(tmp_path / "d.png")]) == 2
    assert ".drawio" in capsys.readouterr().err


# --- port map ----------------------------------------------------------------------------


def test_port_map_lists_every_switch_port_once_in_front_panel_order(su1):
    cat = su1.catalog(CAT)
    r = solve(su1, catalog=cat)
    pm = port_map(su1, cat, r.media, r.bom.cable_id)
    rows = list(pm.rows())
    switches = [d for d in su1.fabric.devices if d.role.is_switch]
    per = Counter(row[0] for row in rows)
    assert set(per) == {d.name for d in switches}
    assert all(n == 64 for n in per.values())  # QM9700: 64 ports each, used or free
    assert len({(row[0], row[1]) for row in rows}) == len(rows)
    first = pm.of_switch(pm.switches()[0])
    assert [x[1] for x in first[:4]] == ["1/1", "1/2", "2/1", "2/2"]  # cage/lane order


def test_port_map_agrees_with_the_cabling_plan(su1):
    cat = su1.catalog(CAT)
    r = solve(su1, catalog=cat)
    plan = cabling_plan(su1, cat, r.media, r.bom.cable_id)
    pm = port_map(su1, cat, r.media, r.bom.cable_id, plan)
    by_port = {(row[0], row[1]): row for row in pm.rows()}
    h = list(plan.header)
    ia, iap, iz, izp, il = (h.index(x) for x in ("A-Node Name", "A-Port", "Z-Node Name",
                                                   "Z-Port", "Cable label"))
    checked = 0
    for row in plan.rows():
        if " + " in str(row[iap]) or " + " in str(row[izp]):
            continue  # a twin cable names two lanes in one row
        for me, port, far, far_port in ((row[ia], row[iap], row[iz], row[izp]),
                                        (row[iz], row[izp], row[ia], row[iap])):
            if (me, port) in by_port:
                got = by_port[(me, port)]
                assert (got[2], got[3], got[4]) == (far, far_port, row[il])
                checked += 1
    assert checked == 2 * 256 + 256  # leaf-spine both ends, server-leaf at the leaf


def test_free_ports_are_listed(su1):
    p = generate(params_from_dict("rail", {"sus": 1, "reserve_leaf_ports": 4}))
    cat = p.catalog(CAT)
    pm = port_map(p, cat)
    free = [row for row in pm.rows() if row[2] == FREE]
    assert free and all(row[4] == "" for row in free)
    assert not [row for row in port_map(p, cat, free=False).rows() if row[2] == FREE]


def test_cabling_workbook_and_report_carry_the_port_map(su1, tmp_path):
    cat = su1.catalog(CAT)
    r = solve(su1, catalog=cat)
    out = tmp_path / "c.xlsx"
    jobs.export_cabling(su1, cat, out, result=r)
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Cables", "Summary", "Port map"]
    ws = wb["Port map"]
    assert [c.value for c in ws[1]] == ["Switch", "Port", "Far device", "Far port",
                                        "Cable label", "Layer", "Speed (Gb/s)",
                                        "Optic at this port"]
    assert ws.max_row - 1 == 64 * sum(d.role.is_switch for d in su1.fabric.devices)
    from designer.core.writers.html_report import report_html
    from designer.core.writers.report import report_data

    data = report_data(su1, cat, r)
    # one switch of each role (a leaf, a spine) drawn as its front panel
    assert [name.split(" (")[1].split(",")[0] for name, _ in data.port_maps] == ["leaf",
                                                                                  "spine"]
    assert data.switches == 12 and all(len(rows) == 64 for _, rows in data.port_maps)
    html = report_html(data)
    assert "Port maps" in html and "list all 12 switches" in html
    assert f"<h4>{data.port_maps[0][0]}</h4>" in html
    assert "<b>1/1</b><br>su1-node01 1" in html


# --- the other networks: a page each ---------------------------------------------------------

@pytest.fixture(scope="module")
def all_networks1024(gpus1024):
    from designer.core.networks.generate import with_networks

    return with_networks(gpus1024, ("frontend", "storage", "oob"))


def test_drawio_has_a_page_per_network(all_networks1024):
    p = all_networks1024
    xml, counts = drawio_xml(p, p.catalog(CAT))
    pages = _pages(xml)
    names = list(pages)
    assert names[0] == "Back-end (compute)"  # the Groups page, named for its network
    for label in ("Front-end (in-band)", "Storage", "Out-of-band management"):
        assert label in names
    assert counts["pages"] == len(names)
    ids = [d.get("id") for d in ET.fromstring(xml).findall("diagram")]
    assert len(ids) == len(set(ids))
    for kind, label in (("frontend", "Front-end (in-band)"), ("storage", "Storage"),
                        ("oob", "Out-of-band management")):
        vertices, edges = _check_page(pages[label])
        net = p.networks[kind]
        # every link of the network is one cable of a bundle on its page
        assert sum(_cables(e.get("value")) for e in edges) == len(net.links)
        # every switch of the network is in one of its boxes: the counts in the labels add up
        own = [v.get("value") for v in vertices if v.get("value").split("\n")[0]
               .startswith(("spines", "leaves", "access", "storage nodes", "oob-", "fe-",
                            "st-"))]
        counted = sum(int(n.replace(",", "")) for v in own
                      for n in re.findall(r"([0-9,]+) x ", v.split("\n")[1]))
        assert counted == len(net.devices)
        # readable at 1,024 GPUs: a few dozen boxes, no row wider than the back-end's
        assert len(vertices) <= 40


def test_network_pages_name_the_servers_they_serve(all_networks1024):
    p = all_networks1024
    xml, _ = drawio_xml(p, p.catalog(CAT))
    storage = [v.get("value") for v in _pages(xml)["Storage"].iter("mxCell")
               if v.get("vertex") == "1"]
    assert sum(v.startswith("GPU servers SU") for v in storage) == 4
    oob = [v.get("value") for v in _pages(xml)["Out-of-band management"].iter("mxCell")
           if v.get("vertex") == "1"]
    # the management network reaches the back-end's and the other networks' switches
    assert any(v.startswith("Back-end leaf switches\n32 x") for v in oob)
    assert any(v.startswith("Storage leaves") for v in oob)


def test_a_design_without_networks_keeps_its_pages(gpus1024):
    xml, _ = drawio_xml(gpus1024, gpus1024.catalog(CAT))
    assert next(iter(_pages(xml))) == "Groups"
