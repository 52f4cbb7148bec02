"""The design report (HTML): the Result's figures, charts, problems and BOM, and charts that
are valid SVG."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.writers import jobs
from designer.core.writers.charts_svg import bar_chart, column_chart, nice_max
from designer.core.writers.html_report import report_html
from designer.core.writers.report import report_data


@pytest.fixture(scope="module")
def design(catalog):
    project = generate(params_from_dict("rail", {"sus": 2}))
    cat = project.catalog(catalog)
    return project, cat, solve(project, catalog=cat)


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.svgs = 0

    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self.svgs += 1
        if tag not in ("meta", "br", "img", "rect", "line", "text", "path"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in ("rect", "line", "text", "path"):
            return
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-3:])
        self.stack.pop()


def test_report_has_the_results_numbers(design, tmp_path):
    project, cat, result = design
    path = tmp_path / "r.html"
    jobs.export_report_html(project, cat, path, result=result)
    html = path.read_text(encoding="utf-8")
    tags = Tags()
    tags.feed(html)
    assert tags.stack == [] and tags.svgs == 5  # four charts and the per-tier diagram
    # DGX SuperPOD 2 SU: 512 GPUs, 16 leaves and 8 spines, full bisection
    assert ">512<" in html and "400 Gb/s" in html and "1:1" in html
    assert f"${result.bom.total_usd:,.0f}" in html
    for line in result.bom.lines:
        assert line.item in html and f"${line.total_usd:,.0f}" in html
    assert "No wiring problems found" in html
    assert html.count('class="newpage"') == 1  # the assumptions start a page of their own


def test_problems_are_listed(design):
    project, cat, _ = design
    leaf = next(d.id for d in project.fabric.devices if d.role.value == "leaf")
    broken = project.with_fabric(project.fabric.remove_devices({leaf}))
    result = solve(broken, catalog=cat)
    html = report_html(report_data(broken, cat, result))
    assert result.problems
    for p in result.problems:
        assert p.message.replace("'", "&#x27;") in html
        assert f"sev-{p.severity.value}" in html


def test_charts_are_valid_svg():
    for svg in (column_chart("t", ["1", "3"], [4.1, 95.9], value_format="{:.1f}%", y_max=100,
                             reference=1.0, reference_label="ref", x_title="x", y_title="y"),
                bar_chart("c", ["Optics", "Switches & <NICs>"], [2.9e6, 1.6e6])):
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        assert len(root.findall(".//{http://www.w3.org/2000/svg}rect")) >= 3
    assert [nice_max(v) for v in (0, 0.7, 1, 99, 101, 2400)] == [1, 1, 1, 100, 200, 2500]


def test_bars_are_proportional():
    svg = column_chart("t", ["a", "b"], [25, 50], y_max=100)
    heights = [float(h) for h in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" '
                                            r'height="([\d.]+)"', svg)]
    assert heights[-1] == pytest.approx(2 * heights[-2])


@pytest.mark.parametrize(("value", "text"), [
    (999_600, "1M"), (999.7, "1k"), (1_234, "1.23k"), (0, "0"), (12.5, "12.5"),
    (245_760, "246k"), (3_942_400, "3.94M"), (-2_500, "-2.5k"),
])
def test_chart_numbers_never_fall_into_exponent_form(value, text):
    from designer.core.writers.charts_svg import _short

    assert _short(value) == text
