"""A design with hostile names, exported in every spreadsheet and config format, opened by the
programs that consume the files: LibreOffice (headless, formulas evaluated on CSV import and on
opening xlsx), FRR's own parser (``vtysh --dryrun``), a YAML and a JSON parser.

The spreadsheet check compares what LibreOffice shows in each cell with the text written: a
name that ran as a formula shows its result instead (``=1+1`` shows ``2``). Skipped with the
reason when LibreOffice or FRR is not installed (Debian: libreoffice-calc-nogui, frr).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest
import yaml

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import save_project
from designer.core.physical.summary import with_floor
from designer.core.text import ascii_float
from tests.export_checks import OUR_FORMULA
from tests.hostile_names import hostile_project

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
VTYSH = shutil.which("vtysh")
HOSTNAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("consumers")
    project = hostile_project()
    project = with_floor(project, project.catalog(builtin_catalog()))
    path = root / "hostile.fabric.json"
    save_project(project, path)
    out = root / "out"
    out.mkdir()
    runs = [["export", "bom", "-o", out / "bom.xlsx"], ["export", "bom", "-o", out / "bom.csv"],
            ["export", "cabling", "-o", out / "cabling.xlsx"],
            ["export", "cabling", "-o", out / "cabling.csv"],
            ["export", "install-plan", "-o", out / "install.xlsx"],
            ["export", "install-plan", "-o", out / "install.csv"],
            ["export", "netbox", "-o", out / "netbox"],
            ["export", "configs", "-o", out / "configs"]]
    for cmd, fmt, _o, target in runs:
        assert main([cmd, fmt, str(path), "-o", str(target)]) == 0
    assert main(["compare", str(path), str(path), "-o", str(out / "compare.xlsx")]) == 0
    return out


def _soffice(args: list[str], home: Path) -> None:
    env = dict(os.environ, HOME=str(home))  # a profile of its own, never the user's
    subprocess.run([SOFFICE, "--headless", "--norestore", *args], env=env, check=True,
                   capture_output=True, timeout=300)


def _read_csv(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed (Debian: "
                    "libreoffice-calc-nogui); the spreadsheet consumer test needs it")
def test_libreoffice_shows_every_name_as_written(exported, tmp_path):
    csvs = sorted(exported.glob("*.csv")) + sorted((exported / "netbox").glob("*.csv"))
    xlsxs = sorted(exported.glob("*.xlsx"))
    src = tmp_path / "in"
    src.mkdir()
    for f in csvs + xlsxs:  # unique names: LibreOffice writes every result into one folder
        shutil.copy(f, src / f"{f.parent.name}-{f.name}")
    # CSV opened with "evaluate formulas" on (the 13th import option), written back as shown
    _soffice(["--infilter=CSV:44,34,76,1,,0,false,false,false,false,false,false,true",
              "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true",
              "--outdir", str(tmp_path / "csv"), *[str(src / f"{f.parent.name}-{f.name}")
                                                   for f in csvs]], tmp_path)
    # xlsx opened as a spreadsheet user would, every sheet written as shown (sheet option -1)
    _soffice(["--convert-to",
              "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1",
              "--outdir", str(tmp_path / "xlsx"), *[str(src / f"{f.parent.name}-{f.name}")
                                                    for f in xlsxs]], tmp_path)
    compared = 0
    for f in csvs:
        written = _read_csv(f)
        shown = _read_csv(tmp_path / "csv" / f"{f.parent.name}-{f.stem}.csv")
        for r, row in enumerate(written):
            for c, text in enumerate(row):
                if ascii_float(text) is not None or not text.strip():
                    continue  # numbers may be shown in another format
                got = shown[r][c] if r < len(shown) and c < len(shown[r]) else None
                assert got == text, f"{f.name} row {r + 1}: wrote {text!r}, LibreOffice shows " \
                                    f"{got!r}"
                compared += 1
    for f in xlsxs:
        wb = openpyxl.load_workbook(f)
        for ws in wb:
            shown = _read_csv(tmp_path / "xlsx" / f"{f.parent.name}-{f.stem}-{ws.title}.csv")
            for row in ws.iter_rows():
                for cell in row:
                    # text, and any formula not the exporter's own (a name that became one)
                    if not isinstance(cell.value, str) or not cell.value.strip() or \
                            "\n" in cell.value or (cell.data_type == "f"
                                                   and OUR_FORMULA.match(cell.value)):
                        continue
                    r, c = cell.row - 1, cell.column - 1
                    got = shown[r][c] if r < len(shown) and c < len(shown[r]) else None
                    assert got == cell.value, f"{f.name} {ws.title}!{cell.coordinate}: wrote " \
                                              f"{cell.value!r}, LibreOffice shows {got!r}"
                    compared += 1
    assert compared > 1000  # the tables were read, names and all


@pytest.mark.skipif(VTYSH is None, reason="FRR is not installed (Debian: frr); vtysh checks "
                    "the switch configs")
def test_frr_accepts_every_switch_config(exported):
    confs = sorted((exported / "configs" / "switches").glob("*/frr.conf"))
    assert len(confs) == 17
    for conf in confs:
        run = subprocess.run([VTYSH, "--dryrun", "-f", str(conf)], capture_output=True,
                             text=True, timeout=60)
        assert run.returncode == 0 and "%" not in run.stdout + run.stderr, \
            f"{conf.parent.name}: {run.stdout}{run.stderr}"


def test_containerlab_topology_and_json_files_parse(exported):
    cfg = exported / "configs"
    topo = yaml.load((cfg / "topology.clab.yml").read_text(encoding="utf-8"),
                     Loader=yaml.CSafeLoader)
    nodes = topo["topology"]["nodes"]
    assert len(nodes) == 17 + 16
    for name, node in nodes.items():
        assert set(name) <= HOSTNAME_CHARS, name
        for bind in node.get("binds", []):
            local = bind.split(":", 1)[0]
            assert (cfg / local).is_file(), bind  # each bind names a file the export wrote
    for link in topo["topology"]["links"]:
        for end in link["endpoints"]:
            node, iface = end.split(":")  # one ':' only: the node name holds none
            assert node in nodes and iface

    def strict(const):
        raise ValueError(const)

    plan = json.loads((cfg / "plan.json").read_text(encoding="utf-8"), parse_constant=strict)
    dbs = sorted(cfg.glob("switches/*/config_db.json"))
    assert len(dbs) == len(plan["switches"]) == 17
    for f in dbs:
        db = json.loads(f.read_text(encoding="utf-8"), parse_constant=strict)
        host = db["DEVICE_METADATA"]["localhost"]["hostname"]
        assert host == f.parent.name and set(host) <= HOSTNAME_CHARS
        for nb in db["DEVICE_NEIGHBOR"].values():
            assert set(nb["name"]) <= HOSTNAME_CHARS  # a key part SONiC could split at '|'
