"""The cabling workbook covers the other networks: their cables and port maps, a sheet each."""

from __future__ import annotations

import csv
from collections import Counter

import openpyxl
import pytest

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.networks.gear import part
from designer.core.networks.generate import with_networks
from designer.core.writers import jobs
from designer.core.writers.cabling import cabling_plan
from designer.core.writers.network_cabling import FREE, PORT_HEADER, networks_cabling
from designer.core.writers.port_map import HEADER as BACKEND_PORT_HEADER

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def design():
    return with_networks(generate(params_from_dict("rail", {"sus": 1})),
                         ("frontend", "storage", "oob"))


def test_every_link_is_one_labelled_cable(design):
    plans = {n.kind: n for n in networks_cabling(design, CAT)}
    assert list(plans) == ["frontend", "storage", "oob"]
    for kind, plan in plans.items():
        net = design.networks[kind]
        assert len(plan.cables) == len(net.links)
        labels = [r[0] for r in plan.cables]
        assert len(set(labels)) == len(labels)
        assert all(lb.startswith({"frontend": "FE-", "storage": "ST-", "oob": "OOB-"}[kind])
                   for lb in labels)
        # optics named at both ends exactly where the link has one, with its part number
        for row, optic in zip(plan.cables, net.links.optic, strict=True):
            assert row[8] == row[10] == optic
            assert (row[12] != "") == bool(optic)
    # servers' ports are named by the network; the back-end's switches by their management port
    oob = plans["oob"].cables
    assert any(r[2] == "Host" and r[3] == "BMC" for r in oob)
    assert any(r[3] == "mgmt" and r[1].startswith("su1-leaf") for r in oob)
    assert any(r[2] == "Storage" for r in plans["storage"].cables)


def test_port_map_lists_every_switch_port_once_in_front_panel_order(design):
    for plan in networks_cabling(design, CAT):
        net = design.networks[plan.kind]
        speed = net.params.get("switch_gbps")
        by_switch: dict[str, list[int]] = {}
        for row in plan.ports:
            by_switch.setdefault(row[0], []).append(int(row[1]))
        switches = [d for d in net.devices if d.tier != "storage-node"]
        assert set(by_switch) == {d.id for d in switches}
        for d in switches:
            p = part(d.model, CAT, speed)
            assert by_switch[d.id] == list(range(1, p.ports + p.uplinks + 1)), d.id
        # used ports are exactly the link ends at switches; the rest are free
        used = sum(row[2] != FREE for row in plan.ports)
        ends = Counter(net.links.a) + Counter(net.links.b)
        assert used == sum(ends[d.id] for d in switches)
        # each cable label appears at both of its ends when both are switches, else once
        labels = Counter(row[4] for row in plan.ports if row[4])
        tiers = {d.id: d.tier for d in switches}
        for row, a, b in zip(plan.cables, net.links.a, net.links.b, strict=True):
            assert labels[row[0]] == (a in tiers) + (b in tiers)


def test_cabling_workbook_has_two_sheets_per_network(design, tmp_path):
    assert PORT_HEADER == BACKEND_PORT_HEADER
    path = tmp_path / "cab.xlsx"
    msg = jobs.export_cabling(design, design.catalog(CAT), path)
    assert "front-end (in-band)" in msg
    wb = openpyxl.load_workbook(path, read_only=True)
    names = wb.sheetnames
    assert names[:3] == ["Cables", "Summary", "Port map"]
    assert names[3:] == ["Front-end cables", "Front-end port map", "Storage cables",
                         "Storage port map", "OOB cables", "OOB port map"]
    rows = list(wb["Storage cables"].iter_rows(values_only=True))
    header = next(i for i, r in enumerate(rows) if r and r[0] == "Cable label")
    assert len(rows) - header - 1 == len(design.networks["storage"].links)


def test_csv_carries_every_network_in_the_p2p_columns(design, tmp_path):
    path = tmp_path / "cab.csv"
    msg = jobs.export_cabling(design, design.catalog(CAT), path)
    assert "back-end" in msg and "storage" in msg
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    assert header[:-1] == list(cabling_plan(design, CAT).header) and header[-1] == "Network"
    by = Counter(r[-1] for r in body)
    assert by["frontend"] == len(design.networks["frontend"].links)
    assert by["storage"] == len(design.networks["storage"].links)
    assert by["oob"] == len(design.networks["oob"].links)
    assert by["backend"] == cabling_plan(design, CAT).n
    assert all(len(r) == len(header) for r in body)
    labels = [r[0] for r in body]
    assert len(set(labels)) == len(labels)  # no label shared between networks
    st = next(r for r in body if r[-1] == "storage" and r[10].startswith("mmf"))
    assert st[8] == "Multimode optics" and st[14] == "1" and st[15] == "Storage"
    oob = next(r for r in body if r[-1] == "oob" and r[3] == "BMC")
    assert oob[8] == "RJ45 copper" and oob[9] == "" and oob[2] == "Host"


def test_plain_design_keeps_its_csv_and_sheets(tmp_path):
    alone = generate(params_from_dict("rail", {"sus": 1}))
    csv_path = tmp_path / "plain.csv"
    assert "Network" not in jobs.export_cabling(alone, CAT, csv_path)
    with open(csv_path, newline="", encoding="utf-8") as f:
        assert next(csv.reader(f)) == list(cabling_plan(alone, CAT).header)
    wb_path = tmp_path / "plain.xlsx"
    jobs.export_cabling(alone, CAT, wb_path)
    assert openpyxl.load_workbook(wb_path, read_only=True).sheetnames == [
        "Cables", "Summary", "Port map"]


def test_report_draws_a_port_map_of_each_network_tier(design):
    from designer.core.solver import solve
    from designer.core.writers.report import report_data

    cat = design.catalog(CAT)
    data = report_data(design, cat, solve(design, catalog=cat), today="2026-01-01")
    titles = [t for t, _rows in data.port_maps]
    for want in ("front-end leaf", "front-end spine", "storage leaf", "out-of-band access"):
        assert any(want in t for t in titles), (want, titles)
    plans = {n.kind: n for n in networks_cabling(design, cat)}
    fe_leaf = next(d for d in design.networks["frontend"].devices if d.tier == "leaf")
    rows = dict(data.port_maps)[next(t for t in titles if t.startswith(f"{fe_leaf.id} "))]
    assert rows == [r for r in plans["frontend"].ports if r[0] == fe_leaf.id]
    backend = sum(d.role.is_switch for d in design.fabric.devices)
    others = sum(d.tier != "storage-node" for n in design.networks.values()
                 for d in n.devices)
    assert data.switches == backend + others
