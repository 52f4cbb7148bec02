"""Hostile and odd project files: one test per class of failure a mutation run found.

Each class was found by mutating the bundled examples (truncations, type swaps, extreme numbers,
huge counts, references out of range, odd unicode) and running validate, solve --json and export
bom on every file. The rule behind each is tested, not the one file that showed it.
"""

from __future__ import annotations

import copy
import json
import os
import time

import orjson
import pytest

from designer.cli.commands._common import finite_json
from designer.cli.main import main
from designer.core.errors import ProjectFileError
from designer.core.fileformat import (
    atomic_write,
    load_project,
    loads_project,
    project_from_raw,
    save_project,
)
from designer.core.infiniband import diff_projects, ib_fabric_of, parse_netfile, write_netfile
from designer.core.limits import MAX_CABLES, MAX_DEVICES
from designer.core.links import LinkTable
from designer.core.model import Device, Role
from designer.core.paths import projects_dir
from designer.core.solver import solve
from designer.core.writers.safety import csv_text

K8 = projects_dir() / "k-ary-fat-tree-k8.fabric.json"
SUPERPOD = projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json"


def raw_of(path=K8) -> dict:
    return orjson.loads(path.read_bytes())


def refused(raw: dict, *words: str) -> str:
    with pytest.raises(ProjectFileError) as info:
        project_from_raw(copy.deepcopy(raw))
    text = str(info.value)
    for w in words:
        assert w in text, text
    return text


def own_switch(**changes) -> dict:
    item = {
        "id": "own-switch", "name": "Own switch", "kind": "switch", "price_usd": 20000.0,
        "power_w": 500.0, "rack_units": 1.0, "cages": 32, "latency_ns": 200.0,
        "modes": [{"ports": 64, "speed_gbps": 400, "techs": ["ib-ndr"]}],
    }
    item.update(changes)
    return item


def two_servers_on(switch_model: str, gear: list[dict]) -> dict:
    return {
        "schema_version": 2,
        "overrides": {"gear": gear},
        "fabric": {
            "devices": [
                {"id": "leaf", "name": "leaf", "model": switch_model, "role": "leaf"},
                {"id": "n1", "name": "n1", "model": "dgx-h100", "role": "gpu-server"},
                {"id": "n2", "name": "n2", "model": "dgx-h100", "role": "gpu-server"},
            ],
            "links": {"a": [1, 2], "a_port": [1, 1], "b": [0, 0], "b_port": [1, 9],
                      "count": [8, 8]},
        },
    }


# --- 5. gear of the project's own is validated like the catalog's ------------------------------


@pytest.mark.parametrize(("field", "value", "words"), [
    ("price_usd", 1e308, ("price_usd", "or less")),
    ("price_usd", "100", ("price_usd", "must be a number")),
    ("latency_ns", 1e308, ("latency_ns",)),
    ("power_w", -1.0, ("power_w",)),
    ("cages", 32.0, ("cages", "must be a whole number")),
])
def test_own_gear_figures_are_bounded_and_typed(field, value, words):
    refused(two_servers_on("own-switch", [own_switch(**{field: value})]),
            "overrides.gear[0]", *words)


def test_a_price_override_given_as_text_is_refused():
    raw = raw_of()
    raw["overrides"]["prices"] = {"qm9700": "100"}
    refused(raw, "overrides.prices.qm9700", "must be a number")


def test_own_gear_within_bounds_solves_to_strict_json(tmp_path, capsys):
    path = tmp_path / "own.fabric.json"
    path.write_text(json.dumps(two_servers_on("own-switch", [own_switch(price_usd=1e9)])))
    assert main(["solve", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
    assert data["bom"]["total_usd"] >= 1e9


def test_json_output_turns_non_finite_numbers_into_null():
    data = {"a": float("inf"), "b": [1.0, float("nan")], "c": {"d": -float("inf")}, "e": 2}
    assert finite_json(data) == {"a": None, "b": [1.0, None], "c": {"d": None}, "e": 2}


# --- 2. devices and no GPU traffic: zeros and a note, never a crash ----------------------------


def uncabled_variants():
    one = {"schema_version": 2, "fabric": {"devices": [
        {"id": "n1", "name": "n1", "model": "dgx-h100", "role": "gpu-server"},
        {"id": "l1", "name": "l1", "model": "qm9700", "role": "leaf"}], "links": {}}}
    k8 = raw_of()
    servers = {i for i, d in enumerate(k8["fabric"]["devices"]) if d["role"] == "gpu-server"}
    cols = k8["fabric"]["links"]
    keep = [i for i in range(len(cols["a"]))
            if cols["a"][i] not in servers and cols["b"][i] not in servers]
    k8["fabric"]["links"] = {k: [v[i] for i in keep] for k, v in cols.items()}
    switches_only = raw_of()
    switches_only["fabric"]["devices"] = [
        d for d in switches_only["fabric"]["devices"] if d["role"] != "gpu-server"]
    switches_only["fabric"]["links"] = {}
    return {"one server, one switch": one, "k=8 without server cables": k8,
            "switches only": switches_only}


@pytest.mark.parametrize("name", list(uncabled_variants()))
def test_a_design_with_nothing_cabled_solves_to_zeros_with_a_note(name, tmp_path, capsys):
    raw = uncabled_variants()[name]
    project = project_from_raw(raw)
    r = solve(project)
    assert r.bisection.gbps == 0 and r.hops.pairs == 0
    notes = {p.code for p in r.problems}
    assert notes & {"nothing-cabled", "no-gpus"}, notes
    path = tmp_path / "d.fabric.json"
    path.write_text(json.dumps(raw))
    assert main(["solve", "--json", str(path)]) == 0
    json.loads(capsys.readouterr().out)
    assert main(["export", "bom", str(path), "-o", str(tmp_path / "b.xlsx")]) == 0


@pytest.mark.parametrize(("role", "model", "words"), [
    ("gpu-server", "qm9700", ("needs a server or appliance model", "'qm9700' is a switch")),
    ("leaf", "dgx-h100", ("needs a switch model", "'dgx-h100' is a server")),
])
def test_a_role_that_does_not_match_its_gear_is_refused(role, model, words):
    raw = raw_of()
    raw["fabric"]["devices"][0].update(role=role, model=model)
    refused(raw, *words)


# --- 3. link counts: checked before bundles are spread into cables ----------------------------


@pytest.fixture
def no_expansion(monkeypatch):
    """Fail the test if anything spreads link bundles into one entry per cable."""

    def boom(self):
        raise AssertionError("bundles were expanded before their counts were checked")

    monkeypatch.setattr(LinkTable, "expand", boom)


def two_switches(rows: int, count: int, step: int = 0) -> dict:
    return {"schema_version": 2, "fabric": {
        "devices": [{"id": "s1", "name": "s1", "model": "qm9700", "role": "leaf"},
                    {"id": "s2", "name": "s2", "model": "qm9700", "role": "spine"}],
        "links": {"a": [0] * rows, "a_port": [1 + i * step for i in range(rows)],
                  "b": [1] * rows, "b_port": [1 + i * step for i in range(rows)],
                  "count": [count] * rows}}}


def test_huge_counts_on_the_same_ports_are_refused_by_counting(no_expansion):
    # 400 bundles of a million cables on ports 1..1,000,000 of two switches: 3 GB if spread
    refused(two_switches(400, 1_000_000), "fabric", "cables", "at most")


def test_counts_past_the_ports_a_device_reaches_are_refused_by_counting(no_expansion):
    # 3 bundles of 300,000 cables all on ports 1..300,000: a port is used three times
    refused(two_switches(3, 300_000), "device 's1' has 900,000 cables on ports 1..300,000")


def test_more_cables_than_a_design_holds_are_refused(no_expansion):
    rows = MAX_CABLES // 1_000_000 + 1
    refused(two_switches(rows, 1_000_000, step=0), "at most")


def test_too_many_devices_are_refused_before_any_is_validated():
    # empty device objects would each fail validation: the size check must come first
    raw = {"schema_version": 2, "fabric": {"devices": [{}] * (MAX_DEVICES + 1)}}
    refused(raw, f"at most {MAX_DEVICES:,}")


def test_counts_beyond_the_real_ports_are_refused():
    refused(two_switches(1, 999_999), "has 64 ports, but a link uses port")


# --- 4. group labels: validated ranges, any label solves -------------------------------------


@pytest.mark.parametrize("label", [2**31, 2**63, -1])
def test_group_labels_out_of_range_are_refused(label):
    raw = raw_of()
    raw["fabric"]["devices"][3]["groups"] = {"pod": label}
    refused(raw, "fabric.devices[3].groups.pod")


def test_the_largest_group_labels_solve_like_small_ones():
    raw = raw_of()
    small = solve(project_from_raw(copy.deepcopy(raw)))
    for d in raw["fabric"]["devices"]:
        if "pod" in d.get("groups", {}):
            d["groups"]["pod"] = 2**31 - 1 - d["groups"]["pod"]
    big = solve(project_from_raw(raw))
    assert big.bisection.gbps == small.bisection.gbps
    assert big.bisection.exact == small.bisection.exact


# --- 6. text formats: control characters never add a record ------------------------------------


@pytest.mark.parametrize("where", ["name", "device"])
def test_names_with_control_characters_are_refused(where):
    raw = raw_of()
    evil = 'x\nSwitch 64 "evil"'
    if where == "name":
        raw["name"] = evil
    else:
        raw["fabric"]["devices"][0]["name"] = evil
    refused(raw, "names may not contain a line break")


def test_notes_keep_line_breaks_but_not_other_controls():
    raw = raw_of()
    raw["notes"] = "first line\nsecond line\tindented"
    assert project_from_raw(copy.deepcopy(raw)).notes.count("\n") == 1
    raw["notes"] = "bell \x07"
    refused(raw, "U+0007")


def test_the_topology_file_keeps_a_hostile_title_on_one_comment_line(catalog):
    project = load_project(K8)
    ib = ib_fabric_of(project, project.catalog(catalog)).fabric
    text = write_netfile(ib, title='x\nSwitch 64 "evil"\n')
    assert "evil" in text.splitlines()[1] and text.splitlines()[1].startswith("#")
    assert not any(line.startswith("Switch") and "evil" in line for line in text.splitlines())
    assert "evil" not in {n for n in parse_netfile(text).nodeid}


@pytest.mark.parametrize("text", ["x;=1+1", "x\t=1+1", "a|@SUM(A1)", "b; +cmd", "=1+1"])
def test_csv_fields_hold_no_formula_after_another_delimiter(text):
    guarded = csv_text(text)
    for sep in (",", ";", "\t", "|"):
        for piece in guarded.split(sep):
            assert not piece.lstrip(" ").startswith(("=", "+", "-", "@")), (sep, piece)


# --- 7. diff: any difference is a difference -------------------------------------------------


def test_diff_counts_a_device_found_but_not_planned(tmp_path, catalog, capsys):
    plan = load_project(SUPERPOD)
    built = plan.with_fabric(plan.fabric.add(
        (Device(id="evil", name="evil", model="qm9700", role=Role.LEAF),)))
    d = diff_projects(plan, built, catalog)
    assert not len(d.missing) and not len(d.extra) and d.devices_extra == ("evil",)
    assert not d.equal
    a, b = tmp_path / "plan.fabric.json", tmp_path / "built.fabric.json"
    save_project(plan, a)
    save_project(built, b)
    assert main(["diff", str(a), str(b)]) == 1
    assert "DIFFERENT" in capsys.readouterr().out


# --- 8. saving: stale temporaries and symlinks -----------------------------------------------


def test_a_save_removes_temporaries_killed_saves_left(tmp_path):
    target = tmp_path / "d.fabric.json"
    atomic_write(target, b"old")
    stale = tmp_path / ".d.fabric.json.abcd1234.tmp"
    stale.write_bytes(b"x" * 1000)
    fresh = tmp_path / ".d.fabric.json.efgh5678.tmp"  # another save may be writing it now
    fresh.write_bytes(b"y")
    other = tmp_path / ".e.fabric.json.abcd1234.tmp"  # another file's
    other.write_bytes(b"z")
    long_ago = time.time() - 3600
    os.utime(stale, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert not stale.exists() and fresh.exists() and other.exists()


def test_saving_to_a_symlink_replaces_the_link_not_the_file_it_names(tmp_path):
    # a link in a folder someone sent can point anywhere: the save never writes through it
    real = tmp_path / "real" / "d.fabric.json"
    real.parent.mkdir()
    project = load_project(K8)
    save_project(project, real)
    before = real.read_bytes()
    link = tmp_path / "link.fabric.json"
    link.symlink_to(real)
    save_project(project.evolve(name="renamed"), link)
    assert not link.is_symlink() and load_project(link).name == "renamed"
    assert real.read_bytes() == before
    assert not (real.parent / "d.fabric.json.bak").exists()


# --- 10. the command line takes what it says --------------------------------------------------


def refused_argument(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    return capsys.readouterr().err


def test_counts_in_other_scripts_digits_are_refused(capsys):
    err = refused_argument(["generate", "rail", "--sus", "\u0663", "--plan"], capsys)
    assert "not a whole number" in err


def test_a_name_too_long_for_a_project_is_refused_not_cut(capsys):
    err = refused_argument(["generate", "rail", "--sus", "1", "--plan", "--name", "a" * 201],
                           capsys)
    assert "at most 200" in err


# --- 9. load: progress, cancel ---------------------------------------------------------------


def test_a_load_reports_progress_and_stops_when_cancelled():
    from designer.core.fileformat import LoadCancelled

    seen: list[str] = []
    loads_project(SUPERPOD.read_bytes(), progress=lambda f, s: seen.append(s))
    assert seen[0] == "reading JSON" and "checking gear and ports" in seen
    with pytest.raises(LoadCancelled):
        loads_project(SUPERPOD.read_bytes(), cancelled=lambda: True)


def test_devices_checked_in_chunks_name_the_device_that_fails(monkeypatch):
    import designer.core.fileformat as ff

    monkeypatch.setattr(ff, "DEVICE_CHUNK", 1000)  # the 3,328 devices in four pieces
    raw = orjson.loads((projects_dir() / "dgx-superpod-64su-ib-ndr.fabric.json").read_bytes())
    assert project_from_raw(copy.deepcopy(raw)).fabric.devices[2_321].id == \
        raw["fabric"]["devices"][2_321]["id"]
    raw["fabric"]["devices"][2_321]["x"] = "left"
    refused(raw, "fabric.devices[2321].x")
