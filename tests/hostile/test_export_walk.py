"""Every export of a design whose names are hostile: each format of ``designer export`` (walked
from the registry, so a format added later is walked too), and the comparison's xlsx and HTML.

Each run ends written or refused with one line (never an internal error), and every file it
wrote passes the checks of its format (``tests/export_checks.py``): no formula but the
exporter's own, no name turned into markup, strict JSON, YAML that parses, hostnames that are
hostnames. Multi-file exports write one file per device: nothing overwritten.
"""

from __future__ import annotations

import html.parser
import json

import pytest

from designer.cli.exports import EXPORTERS
from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.physical.summary import with_floor
from tests.export_checks import check_tree
from tests.hostile_names import PROJECT_NAME, SERVER_NAMES, hostile_project

# The suffixes each format writes (a folder: "/").
SUFFIXES = {"bom": (".xlsx", ".csv"), "cabling": (".xlsx", ".csv"), "report": (".html", ".pdf"),
            "image": (".svg", ".png"), "install-plan": (".xlsx", ".csv")}


@pytest.fixture(scope="module")
def hostile_file(tmp_path_factory):
    project = hostile_project()
    project = with_floor(project, project.catalog(builtin_catalog()))  # for the install plan
    path = tmp_path_factory.mktemp("hostile") / "hostile.fabric.json"
    save_project(project, path)
    return path, project


def _cases():
    for name, exporter in sorted(EXPORTERS.items()):
        for suffix in SUFFIXES.get(name, (exporter.suffix,)):
            yield name, suffix


@pytest.mark.parametrize(("fmt", "suffix"), list(_cases()))
def test_every_export_of_hostile_names_is_safe(hostile_file, tmp_path, capsys, fmt, suffix):
    path, _project = hostile_file
    out = tmp_path / ("out" if suffix == "/" else f"out{suffix}")
    code = main(["export", fmt, str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert code in (0, 2), err
    if code == 2:  # refused: one line that says why, nothing half written
        assert err.startswith("designer: ") and err.count("\n") == 1, err
        return
    assert out.exists()
    bad, _checked = check_tree(out)
    assert not bad, "\n".join(bad[:20])
    if suffix == ".html":  # the markup in a name is text on the page, not markup
        text: list[str] = []
        reader = html.parser.HTMLParser()
        reader.handle_data = text.append  # type: ignore[method-assign]
        reader.feed(out.read_text(encoding="utf-8"))
        assert PROJECT_NAME in "".join(text)


def test_configs_write_one_file_per_device_and_state_the_names(hostile_file, tmp_path):
    path, project = hostile_file
    out = tmp_path / "cfg"
    assert main(["export", "configs", str(path), "-o", str(out)]) == 0
    switches = [d for d in project.fabric.devices if d.role.is_switch]
    servers = [d for d in project.fabric.devices if d.role.value == "gpu-server"]
    # a naive mapping wrote 14 NIC summaries for 16 servers ('srv a', 'srv_a', 'srv-a' and
    # 'SRV-A' shared files): one file each, and one folder per switch
    assert len(list((out / "servers").iterdir())) == len(servers) == 16
    assert len(list((out / "switches").iterdir())) == len(switches)
    assert all(len(list(d.iterdir())) == 2 for d in (out / "switches").iterdir())
    plan = json.loads((out / "plan.json").read_text())
    renamed = {r["name"]: r["hostname"] for r in plan["hostnames"]["renamed"]}
    assert "srv-a" not in renamed and renamed["srv a"] != renamed["srv_a"]
    assert set(SERVER_NAMES) - {"srv-a"} <= set(renamed)  # every unsafe name is listed
    by_name = {s["name"]: s["hostname"] for s in plan["switches"]}
    assert by_name["Leaf 1"] == renamed["Leaf 1"] and by_name["Leaf 1"].startswith("Leaf-1-")
    # reversible: each hostname leads back to one device
    assert len(set(renamed.values())) == len(renamed)


def test_comparison_exports_of_hostile_names_are_safe(hostile_file, tmp_path, capsys):
    path, _project = hostile_file
    for suffix in (".xlsx", ".html"):
        out = tmp_path / f"compare{suffix}"
        assert main(["compare", str(path), str(path), "-o", str(out)]) == 0, \
            capsys.readouterr().err
        bad, checked = check_tree(out)
        assert checked == 1 and not bad, bad


def test_lldp_view_writes_a_file_per_switch_and_never_one_for_two(tmp_path, capsys):
    project = generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}))
    path = tmp_path / "p.fabric.json"
    save_project(project, path)
    out = tmp_path / "lldp"
    assert main(["export", "lldp", str(path), "-o", str(out)]) == 0
    switches = [d.name for d in project.fabric.devices if d.role.is_switch]
    assert sorted(f.stem for f in out.iterdir()) == sorted(switches)
    # two switches whose names differ only in case are one file on macOS and Windows
    devices = list(project.fabric.devices)
    k = next(i for i, d in enumerate(devices) if d.role.is_switch)
    j = next(i for i, d in enumerate(devices) if d.role.is_switch and i != k)
    devices[j] = devices[j].model_copy(update={"name": devices[k].name.upper()})
    path.unlink()
    save_project(project.with_fabric(project.fabric.with_devices(tuple(devices))), path)
    capsys.readouterr()
    assert main(["export", "lldp", str(path), "-o", str(tmp_path / "lldp2")]) == 2
    assert "would be written twice" in capsys.readouterr().err
