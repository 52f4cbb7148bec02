"""Project files: lossless round trips, old versions, and every kind of bad file."""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.core import fileformat
from designer.core.errors import DesignerError, ProjectFileError
from designer.core.fileformat import (
    MAX_FILE_BYTES,
    backup_path,
    dumps_project,
    load_project,
    loads_project,
    migrate,
    save_project,
)
from designer.core.generators import generate, params_from_dict
from designer.core.links import MEDIA, LinkTable
from designer.core.model import SCHEMA_VERSION, Device, Fabric, Overrides, Project, Role
from designer.core.paths import projects_dir
from tests._paths import DATA

# --- round trips -------------------------------------------------------------------------------

SWITCH_MODELS = ("qm9700", "sn5600", "q3400")
# Any text a person types: names refuse control characters (see test_hostile_files.py)
PRINTABLE = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp", "Cf"))


@st.composite
def projects(draw):
    """Small random designs: switches and servers joined by bundles on distinct ports."""
    n_sw = draw(st.integers(1, 6))
    n_srv = draw(st.integers(0, 6))
    devices = []
    for i in range(n_sw):
        devices.append(
            Device(
                id=f"sw{i}",
                name=draw(st.text(PRINTABLE, min_size=1, max_size=20)),
                model=draw(st.sampled_from(SWITCH_MODELS)),
                role=draw(st.sampled_from([Role.LEAF, Role.SPINE, Role.CORE, Role.ROUTER])),
                groups=draw(
                    st.dictionaries(
                        st.sampled_from(["su", "pod", "rail", "plane"]),
                        st.integers(0, 99),
                        max_size=3,
                    )
                ),
                x=draw(st.floats(-1e6, 1e6)),
                y=draw(st.floats(-1e6, 1e6)),
            )
        )
    for i in range(n_srv):
        devices.append(
            Device(id=f"srv{i}", name=f"server {i}", model="dgx-h100", role=Role.GPU_SERVER)
        )
    n = len(devices)
    next_port = [1] * n
    rows = []
    for _ in range(draw(st.integers(0, 12))):
        a = draw(st.integers(0, n - 1))
        b = draw(st.integers(0, n - 1))
        if a == b:
            continue
        count = draw(st.integers(1, 3))
        limit = [8 if devices[d].role == Role.GPU_SERVER else 64 for d in (a, b)]
        if next_port[a] + count - 1 > limit[0] or next_port[b] + count - 1 > limit[1]:
            continue
        length = draw(
            st.one_of(
                st.just(float("nan")),
                st.floats(0.5, 500).map(lambda v: float(np.float32(round(v, 3)))),
            )
        )
        rows.append(
            (
                a,
                next_port[a],
                b,
                next_port[b],
                count,
                draw(st.sampled_from([100, 400])),
                draw(st.integers(0, len(MEDIA) - 1)),
                length,
            )
        )
        next_port[a] += count
        next_port[b] += count
    cols = list(zip(*rows, strict=True)) if rows else [[]] * 8
    links = LinkTable(*cols) if rows else LinkTable.empty()
    return Project(
        name=draw(st.text(PRINTABLE, min_size=1, max_size=40)),
        notes=draw(st.text(st.one_of(PRINTABLE, st.sampled_from("\n\t\r")), max_size=200)),
        profile=draw(st.sampled_from(["ib-ndr", "roce-400"])),
        overrides=Overrides(
            prices=draw(
                st.dictionaries(
                    st.sampled_from(["qm9700", "connectx-7", "sn5600"]),
                    st.floats(0, 1e6, allow_nan=False),
                )
            )
        ),
        fabric=Fabric(devices=tuple(devices), links=links),
    )


@given(projects())
def test_round_trip_is_lossless(project):
    assert loads_project(dumps_project(project)) == project


def test_round_trip_through_disk_keeps_backup(tmp_path):
    p = generate(params_from_dict("rail", {"sus": 2}))
    path = tmp_path / "d.fabric.json"
    save_project(p, path)
    assert load_project(path) == p
    assert not backup_path(path).exists()
    renamed = p.evolve(name="second")
    save_project(renamed, path)
    assert load_project(path).name == "second"
    assert load_project(backup_path(path)).name == p.name
    assert stat.S_IMODE(os.stat(path).st_mode) & 0o044, "a saved file is readable as usual"
    assert not list(tmp_path.glob(".*.tmp")), "no temporary file is left behind"


def test_failed_save_leaves_the_old_file(tmp_path, monkeypatch):
    p = generate(params_from_dict("rail", {"sus": 1}))
    path = tmp_path / "d.fabric.json"
    save_project(p, path)
    before = path.read_bytes()

    def boom(*_args, **_kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileformat.os, "replace", boom)
    with pytest.raises(DesignerError, match="No space left"):
        save_project(p.evolve(name="other"), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert not list(tmp_path.glob(".*.tmp"))


# --- versions --------------------------------------------------------------------------------


def test_golden_version_1_file_still_loads():
    # Written by version 0.1.0 (schema 1) and never regenerated: it must load forever.
    p = load_project(DATA / "golden_v1.fabric.json")
    assert p.name == "Golden file, schema version 1"
    assert len(p.fabric.devices) == 45  # 31 DGX, 2 UFM, 8 leaves, 4 spines (NVIDIA Table 4)
    assert p.fabric.links.n_cables == 508
    assert p.overrides.prices == {"qm9700": 38500.0}
    assert p.fabric.links.medium[:4].tolist() == [1, 2, 3, 4]


def test_every_example_project_loads():
    files = sorted(projects_dir().glob("*.fabric.json"))
    assert files, "projects/ must hold example designs"
    for f in files:
        assert load_project(f).fabric.devices, f


def test_migrations_run_in_order():
    calls = []

    def v1_to_v2(raw):
        calls.append(raw["schema_version"])
        raw["name"] = raw.pop("title")
        return raw

    # The file format is at version 1; a migration table is applied to older raw data.
    raw = {"schema_version": SCHEMA_VERSION, "title": "x"}
    assert migrate(dict(raw), {}) == raw
    old = {"schema_version": 0}
    with pytest.raises(ProjectFileError, match="not valid"):
        migrate(old)
    fake_current = SCHEMA_VERSION + 1
    import designer.core.fileformat as ff

    original = ff.SCHEMA_VERSION
    ff.SCHEMA_VERSION = fake_current
    try:
        out = migrate({"schema_version": original, "title": "x"}, {original: v1_to_v2})
    finally:
        ff.SCHEMA_VERSION = original
    assert out == {"schema_version": fake_current, "name": "x"}
    assert calls == [original]


# --- bad files: one typed error naming the place ---------------------------------------------


def _valid_raw() -> dict:
    return json.loads(dumps_project(generate(params_from_dict("rail", {"sus": 1}))))


def _copy_end(links: dict, src: int, dst: int) -> None:
    """Point link ``dst``'s b end at the same port as link ``src``'s."""
    links["b"][dst] = links["b"][src]
    links["b_port"][dst] = links["b_port"][src]


def _dump(raw: object) -> bytes:
    return json.dumps(raw).encode()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: "not json at all", "top level"),
        (lambda r: r.update(schema_version=99), "newer than this app"),
        (lambda r: r.update(schema_version="1"), "schema_version"),
        (lambda r: r.pop("schema_version"), "not a Fabric Designer project"),
        (lambda r: r["fabric"]["devices"][0].update(model="qm9999"), "unknown gear 'qm9999'"),
        (lambda r: r["fabric"]["links"]["a"].__setitem__(0, 10_000), "refers to device #10000"),
        (lambda r: _copy_end(r["fabric"]["links"], 0, 1), "used by more than one link"),
        (lambda r: r["fabric"]["links"]["b_port"].__setitem__(0, 65), "has 64 ports"),
        (lambda r: r["fabric"]["links"]["a_port"].__setitem__(0, -3), "out of range"),
        (lambda r: r["fabric"]["links"]["count"].pop(), "expected"),
        (lambda r: r["fabric"]["links"]["speed_gbps"].__setitem__(0, 1.5), "whole numbers"),
        # a bool is an int to Python and numpy, not to the file
        (lambda r: r["fabric"]["links"]["count"].__setitem__(-1, True), "whole numbers"),
        (lambda r: r["fabric"]["links"]["a"].__setitem__(2, "3"), "found '3'"),
        (
            lambda r: r["fabric"]["devices"][1].update(id=r["fabric"]["devices"][0]["id"]),
            "used twice",
        ),
        (lambda r: r["fabric"]["devices"][0].update(role="toaster"), "fabric.devices[0].role"),
        (lambda r: r["fabric"]["devices"][0].update(x="left"), "fabric.devices[0].x"),
        (lambda r: r.update(profile="ib-hdr"), "unknown gear profile"),
        (lambda r: r.update(surprise=1), "surprise"),
        (lambda r: r["fabric"].update(links=[1, 2]), "links"),
    ],
)
def test_bad_files_raise_one_typed_error(mutate, message):
    raw = _valid_raw()
    out = mutate(raw)
    data = _dump(out if isinstance(out, str) else raw)
    with pytest.raises(ProjectFileError, match=re.escape(message)) as err:
        loads_project(data, "bad.fabric.json")
    assert "bad.fabric.json" in str(err.value)


def test_not_json_and_truncated_are_told_apart():
    good = dumps_project(generate(params_from_dict("rail", {"sus": 1})))
    with pytest.raises(ProjectFileError, match="truncated"):
        loads_project(good[: len(good) // 2])
    with pytest.raises(ProjectFileError, match="not valid JSON"):
        loads_project(b"{'single': 'quotes'}")
    with pytest.raises(ProjectFileError, match="empty"):
        loads_project(b"   ")


def test_file_too_large_is_refused_before_reading(tmp_path):
    f = tmp_path / "huge.fabric.json"
    with open(f, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)  # sparse: no real disk used
    with pytest.raises(ProjectFileError, match="too large"):
        load_project(f)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ProjectFileError, match="no such file"):
        load_project(tmp_path / "nope.fabric.json")
    with pytest.raises(ProjectFileError, match="not a file"):
        load_project(tmp_path)


def test_deeply_nested_json_is_refused():
    with pytest.raises(ProjectFileError):
        loads_project(b"[" * 100_000 + b"]" * 100_000)


@given(st.binary(max_size=400))
def test_random_bytes_raise_only_the_typed_error(data):
    with pytest.raises(ProjectFileError):
        loads_project(data)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(
    st.sampled_from(
        [
            "name",
            "notes",
            "profile",
            "overrides",
            "fabric",
            "generator",
            "analysis",
            "view",
            "schema_version",
        ]
    ),
    json_values,
)
def test_hostile_values_raise_only_the_typed_error(key, value):
    raw = _valid_raw()
    raw[key] = value
    with contextlib.suppress(ProjectFileError):
        loads_project(_dump(raw))


@given(
    st.sampled_from(["a", "a_port", "b", "b_port", "count", "speed_gbps", "medium", "length_m"]),
    st.integers(0, 500),
    json_values,
)
def test_hostile_link_cells_raise_only_the_typed_error(column, index, value):
    raw = _valid_raw()
    col = raw["fabric"]["links"][column]
    col[index % len(col)] = value
    with contextlib.suppress(ProjectFileError):
        loads_project(_dump(raw))


@given(
    st.integers(0, 44),
    st.sampled_from(
        ["id", "name", "model", "role", "groups", "x", "y", "port_speed_gbps", "nic", "nics"]
    ),
    json_values,
)
def test_hostile_device_fields_raise_only_the_typed_error(index, field, value):
    raw = _valid_raw()
    devices = raw["fabric"]["devices"]
    devices[index % len(devices)][field] = value
    with contextlib.suppress(ProjectFileError):
        loads_project(_dump(raw))


def test_loading_never_executes_anything(tmp_path):
    raw = _valid_raw()
    raw["name"] = "__import__('os').system('touch pwned')"
    raw["notes"] = "{{7*7}} ${HOME} `id`"
    p = loads_project(_dump(raw))
    assert p.name.startswith("__import__")
    assert not (tmp_path / "pwned").exists()


def test_generated_devices_save_as_parsed_ones():
    """Device.block builds most generated devices without validation: their file bytes must
    equal those of the same devices parsed back, or an autosave and its recovery differ."""
    from designer.core.fileformat import dumps_project, loads_project
    from designer.core.generators import generate, params_from_dict

    project = generate(params_from_dict("fat-tree", {"k_ary": 4}))
    data = dumps_project(project)
    assert dumps_project(loads_project(data)) == data
