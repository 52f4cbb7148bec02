"""The report's layout and wording (issue 17): the headline latency is p50 as in the window,
chart labels round as the text does, tables have real column widths, the gear profile is named,
and a per-tier diagram says what each tier holds."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from designer.core.paths import projects_dir
from designer.core.solver import solve
from designer.core.writers.charts_svg import column_chart
from designer.core.writers.facts import profile_label
from designer.core.writers.html_report import column_widths, report_html
from designer.core.writers.report import charts, report_data
from designer.core.writers.tier_diagram import tier_diagram


@pytest.fixture(scope="module")
def rail(catalog):
    project = generate(params_from_dict("rail", {"sus": 2}))
    cat = project.catalog(catalog)
    return project, cat, solve(project, catalog=cat)


def test_headline_latency_is_the_p50_the_window_shows(rail):
    project, cat, result = rail
    data = report_data(project, cat, result)
    card = next(c for c in data.headline if c[0].startswith("Latency"))
    assert "p50" in card[0] and card[1] == f"{result.latency.p50_us:.2f} µs"
    fact = next(f for s in data.summary for f in s.facts if f.key == "latency_p50")
    assert fact.value == pytest.approx(result.latency.p50_us, abs=1e-4)


def test_the_gear_profile_is_named_not_just_its_id(rail, catalog):
    project, cat, result = rail
    label = profile_label(project, catalog)
    assert label.startswith(catalog.profile("ib-ndr").name) and "(ib-ndr)" in label
    data = report_data(project, cat, result)
    assert label in data.subtitle
    assert any(f.value == label for s in data.summary for f in s.facts if f.key == "profile")


def test_oversubscription_bars_say_the_ratio_as_the_text_does():
    # a leaf with 15 down and 14 up ports: 1.07:1 in the text, and so on the bar
    data = {"oversubscription": {"by_tier": {"leaf": {"worst": 15 / 14, "ratio": "1.07:1"}}}}
    from designer.core.writers.bom_rows import BomTable

    (chart,) = [c for c in charts(data, BomTable((), 0.0, 0, 0.0)) if c[0] == "oversubscription"]
    assert ">1.07:1<" in chart[2] and ">1.1:1<" not in chart[2]


def test_value_labels_replace_the_format():
    svg = column_chart("t", ["a", "b"], [1.0667, 2.0], value_labels=["1.07:1", "2:1"])
    texts = [t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    assert "1.07:1" in texts and "2:1" in texts


@given(st.lists(st.text(min_size=0, max_size=60), min_size=2, max_size=7), st.data())
def test_column_widths_fill_the_table(header, data):
    rows = data.draw(st.lists(st.lists(st.text(max_size=80), min_size=len(header),
                                       max_size=len(header)), max_size=6))
    widths = column_widths(header, rows)
    assert sum(widths) == 100
    assert len(widths) == len(header)
    assert all(w >= 1 for w in widths)


def test_a_long_column_gets_more_room_than_a_short_one():
    widths = column_widths(("Item", "Qty"), [("800G twin-port 2x400G SR8 multimode", "1,536")])
    assert widths[0] > 2 * widths[1]
    # a catalog id keeps the width it needs (it does not wrap): never squeezed to nothing
    w = column_widths(("Item", "Unit price (USD)", "Catalog id", "Source", "Confidence"),
                      [("NVIDIA Quantum-2 QM9700 (managed)", "$40,000", "osfp-2x400g-sr8",
                        "reseller listings", "low (estimate)")])
    assert w[2] >= 12 and w[4] >= 10


def test_every_grid_cell_has_its_padding_inline(rail):
    project, cat, result = rail
    html = report_html(report_data(project, cat, result))
    body = html[html.index("Bill of materials"):]
    assert body.count("<td") == body.count('<td style="padding:')
    assert '<th style="padding:' in body and 'width="' in body


def test_tier_diagram_counts_each_tier(rail):
    _project, _cat, result = rail
    data = result.to_json()
    svg = tier_diagram(data, {"leaf": ["qm9700"], "spine": ["qm9700"]})
    root = ET.fromstring(svg)
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    # DGX SuperPOD 2 SU: 16 leaves, 8 spines, 64 servers, 512 + 512 cables
    assert "16 leaf switches" in text and "8 spine switches" in text
    assert "64 GPU servers · 512 GPUs" in text
    assert "512 cables (endpoint-leaf)" in text and "512 cables (leaf-spine)" in text
    # tiers top to bottom: spine above leaf above servers
    ys = {t.text: float(t.get("y")) for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert ys["8 spine switches"] < ys["16 leaf switches"] < ys["64 GPU servers · 512 GPUs"]


def test_tier_diagram_of_a_dragonfly_keeps_its_cables_inside_the_router_box(catalog):
    project = load_project(projects_dir() / "dragonfly-1056-gpus.fabric.json", catalog)
    cat = project.catalog(catalog)
    data = solve(project, catalog=cat).to_json()
    svg = tier_diagram(data)
    assert "264 router switches" in svg and "528 global + 924 local cables inside" in svg
    assert "1,056 cables (endpoint-router)" in svg
