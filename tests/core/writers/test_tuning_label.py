"""TCO's one-off tuning line is named by the transport the design runs, not always 'RoCE':
in the workbook's TCO sheet, the report's TCO section, the estimate's text and JSON."""

from __future__ import annotations

import json

import pytest
from openpyxl import load_workbook

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.paths import projects_dir
from designer.core.solver import solve
from designer.core.transport.choice import with_transport
from designer.core.transport.profiles import TRANSPORTS
from designer.core.transport.tuning import tuning_label, tuning_name
from designer.core.writers.jobs import export_bom
from designer.core.writers.report import report_data

GB200_IB = projects_dir() / "gb200-nvl72-superpod-4su-ib-ndr.fabric.json"
ROCE = projects_dir() / "dgx-superpod-4su-roce-400.fabric.json"


def _tco_labels(project, tmp_path) -> list[str]:
    cat = project.catalog(builtin_catalog())
    path = tmp_path / "b.xlsx"
    export_bom(project, cat, path, result=solve(project))
    ws = load_workbook(path)["TCO"]
    return [str(ws.cell(i, 1).value) for i in range(1, ws.max_row + 1)]


@pytest.mark.parametrize(("path", "transport", "name"), [
    (GB200_IB, None, "InfiniBand"),
    (ROCE, None, "RoCE"),
    (ROCE, "uec", "Ultra Ethernet"),
])
def test_tco_sheet_names_the_designs_transport(path, transport, name, tmp_path):
    p = load_project(path)
    if transport:
        p = with_transport(p, transport)
    labels = _tco_labels(p, tmp_path)
    assert f"{name} tuning and validation (one-off)" in labels
    assert f"{name} tuning and validation, weeks" in labels
    if name != "RoCE":
        assert not any("RoCE" in x for x in labels)


def test_report_and_cli_name_infiniband_tuning(capsys):
    p = load_project(GB200_IB)
    data = report_data(p, p.catalog(builtin_catalog()), solve(p), today="2026-01-01")
    money = next(s for s in data.summary if s.title.startswith("TCO over"))
    labels = [f.label for f in money.facts]
    assert "InfiniBand tuning and validation" in labels
    assert not any("RoCE" in x for x in labels)
    assert main(["estimate", str(GB200_IB)]) == 0
    text = capsys.readouterr().out
    tco_line = next(x for x in text.splitlines() if x.startswith("TCO over"))
    assert "InfiniBand tuning $" in tco_line
    assert main(["estimate", str(GB200_IB), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["transport"]["tuning_label"] == "InfiniBand tuning and validation"


def test_every_transport_has_its_own_name():
    names = {tuning_name(t) for t in TRANSPORTS.values()}
    assert len(names) == len(TRANSPORTS)
    assert tuning_label(None) == "Transport tuning and validation"
