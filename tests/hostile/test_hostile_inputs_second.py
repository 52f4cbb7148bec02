"""Hostile and odd input on the surfaces added after the first round: one test per class of
failure, each through the mechanism that now handles the class (the safe file layer, the
option bounds, the spec and LLDP readers, the output guard)."""

from __future__ import annotations

import json
import os
import stat

import pytest

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.errors import MAX_MESSAGE, DesignerError
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.paths import projects_dir
from designer.core.solver.compile import compile_project
from designer.core.sweep.errors import SweepSpecError
from designer.core.sweep.points import expand
from designer.core.sweep.spec import loads_spec
from designer.core.traffic import load as traffic_load
from designer.core.traffic.load import LoadOptionError, run_load

K8 = projects_dir() / "k-ary-fat-tree-k8.fabric.json"


@pytest.fixture(scope="module")
def roce_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("roce") / "roce.fabric.json"
    save_project(generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"})), path)
    return path


def _refused(capsys, argv) -> str:
    """Run the command line; it must refuse with exit 2 and one line, never exit 70."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "internal error" not in err and "Traceback" not in err
    return err.strip().splitlines()[-1]


# -- the safe file layer: a FIFO or a device is refused before it is opened or replaced ------
@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "pipe"
    os.mkfifo(p)
    return p


@pytest.mark.parametrize("argv", [
    ["prices", "import", "{roce}", "{fifo}.csv"],
    ["latency", "import", "{roce}", "{fifo}", "--tech", "eth"],
    ["load", "{roce}", "--pattern", "{fifo}.csv"],
    ["import", "ibnetdiscover", "{fifo}", "-o", "{out}"],
    ["import", "lldp", "{fifo}", "-o", "{out}"],
    ["sweep", "{fifo}.yaml", "--workers", "0"],
    ["solve", "{fifo}"],
    ["solve", "{roce}", "--catalog", "{fifo}"],
])
def test_reading_a_fifo_is_refused_not_waited_on(capsys, tmp_path, fifo, roce_file, argv):
    for suffix in (".csv", ".yaml"):
        (tmp_path / f"pipe{suffix}").symlink_to(fifo)  # a link to a FIFO is a FIFO too
    argv = [a.format(roce=roce_file, fifo=fifo, out=tmp_path / "out.fabric.json") for a in argv]
    assert "FIFO" in _refused(capsys, argv)


@pytest.fixture
def device(tmp_path):
    """A second null device beside the test (root only): replacing it would harm nothing,
    unlike the system's /dev/null, which an atomic save as root used to replace."""
    p = tmp_path / "null"
    try:
        os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return p


@pytest.mark.parametrize("argv", [
    ["floor", "{k8}", "--place", "-o", "{dev}"],
    ["export", "bom", "{k8}", "-o", "{dev}"],
    ["export", "cabling", "{k8}", "-o", "{dev}"],
    ["generate", "rail", "--sus", "1", "-o", "{dev}", "--force"],
])
def test_writing_over_a_device_or_fifo_is_refused_and_leaves_it(capsys, tmp_path, fifo,
                                                                 device, argv):
    for node, kind in ((device, stat.S_ISCHR), (fifo, stat.S_ISFIFO)):
        # the node itself at a name the format takes: refused in one line, left as it is
        named = tmp_path / f"{node.name}.csv"
        if kind is stat.S_ISCHR:
            os.mknod(named, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        else:
            os.mkfifo(named)
        line = _refused(capsys, [a.format(k8=K8, dev=named) for a in argv])
        assert "it is not replaced" in line or "not a file" in line
        assert kind(os.lstat(named).st_mode)
        named.unlink()
        # a link to the node: the link is replaced by the file, never written through
        named.symlink_to(node)
        code = main([str(a) for a in (x.format(k8=K8, dev=named) for x in argv)])
        capsys.readouterr()
        assert code == 0 and not named.is_symlink() and named.is_file()
        assert kind(os.lstat(node).st_mode)  # still the device, still the FIFO
        named.unlink()


def test_a_traffic_csv_saved_as_latin1_is_refused_naming_the_line(capsys, tmp_path, roce_file):
    f = tmp_path / "flows.csv"
    f.write_bytes("src,dst,bytes\n0,1,100\n# Grüße\n".encode("latin-1"))
    line = _refused(capsys, ["load", roce_file, "--pattern", f])
    assert "line 3 is not UTF-8" in line and "0xFC" in line


# -- options: ASCII numbers, bounded work, counted before anything is built --------------------
@pytest.mark.parametrize(("argv", "words"), [
    (["whatif", "{roce}", "--fail", "spine:²"], "numbered 1.."),
    (["whatif", "{roce}", "--fail", "plane:99999999999999999999999"], "no switches in plane"),
    (["load", "{roce}", "--seed", "-1"], "-1 is outside 0 to"),
    (["whatif", "{roce}", "--fail", "spine:1", "--seed", "-5"], "-5 is outside 0 to"),
    (["load", "{roce}", "--trials", "100000"], "100,000 is outside 1 to 10,000"),
    (["load", "{roce}", "--flows-per-pair", "1000000"], "outside 1 to 1,024"),
    (["load", "{roce}", "--trials", "١٠"], "is not a whole number"),
    (["estimate", "{roce}", "--gpu-hour-usd", "1e308"], "gpu_hour_usd"),
    (["estimate", "{roce}", "--years", "1e308"], "economics.years"),
    (["estimate", "{roce}", "--gpu-hour-usd", "0"], "gpu_hour_usd"),
    (["estimate", "{roce}", "--run-days", "inf"], "is not a finite number"),
    (["estimate", "{roce}", "--network-slowdown", "1e308"], "network_slowdown"),
    (["whatif", "{roce}", "--fail", "spine:1", "--usd-per-gpu-hour", "1e308"], "$/GPU-hour"),
    (["compare", "{roce}", "{roce}", "--years", "1e308"], "economics.years"),
    (["sweep", "{spec}", "--scheduler", "garbage:::"], "is not a Dask scheduler address"),
    (["latency", "set", "{roce}", "--tech", "eth", "--nic-ns", "nan"], "is not a number"),
])
def test_odd_options_get_a_one_line_refusal(capsys, tmp_path, roce_file, argv, words):
    spec = tmp_path / "s.sweep.yaml"
    spec.write_text("generate: {kind: rail, sus: [1, 2]}\n")
    assert words in _refused(capsys, [a.format(roce=roce_file, spec=spec) for a in argv])


def test_load_work_is_counted_before_the_network_is_built(monkeypatch):
    c = compile_project(generate(params_from_dict("rail", {"gpus": 1024, "gear": "roce-400"})),
                        builtin_catalog())

    def never(*a, **k):
        raise AssertionError("the network was built for work that is refused")

    monkeypatch.setattr(traffic_load, "build_network", never)
    # 1,024 connections: 1,024 queue pairs each are a million flows a trial, fine alone,
    # but 10,000 trials of them are 10 billion routes
    with pytest.raises(LoadOptionError, match=r"flows x 10,000 trials is .* give at most 19 "
                                              r"trials"):
        run_load(c, "permutation", routing="ecmp", flows_per_pair=1024, trials=10_000)
    with pytest.raises(LoadOptionError, match="seed"):
        run_load(c, "permutation", seed=-1)


# -- never a non-finite figure -----------------------------------------------------------------
def _walk(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, x


@pytest.mark.parametrize("money", [
    ["--gpu-hour-usd", "1000", "--years", "50", "--run-days", "3650"],  # the bounds' far end
    ["--gpu-hour-usd", "0.01", "--years", "0.001", "--run-days", "0"],  # and their near end
])
def test_money_at_its_bounds_prints_only_finite_figures(capsys, roce_file, money):
    assert main(["estimate", str(roce_file), *money, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # null only where a figure is not asked for (no training run was given)
    nulls = [p for p, v in _walk(data) if v is None]
    assert nulls == [".step.time_to_train_days"]
    assert main(["estimate", str(roce_file), *money]) == 0
    text = capsys.readouterr().out
    assert "inf" not in text.replace("info", "") and "nan" not in text.lower().split()
    assert main(["compare", str(roce_file), str(roce_file), *money, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all(be["break_even_gain"] is not None for be in data["break_even"])


# -- sweep specs -----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "words"), [
    ("generate: {kind: rail, sus: {min: 1, max: 1e9}}", "must be 10,000 or less"),
    ("generate: {kind: rail, sus: {min: 1, max: 1e9, step: 1}}\nsampling: lhs\nsamples: 5",
     "must be 10,000 or less"),
    ("generate: {kind: rail}\nprices: {qm9700: {min: 1, max: 1e12}}", "the grid has "
     "1,000,000,000,000 points"),
    ("generate: {kind: rail, sus: {min: 1, max: .inf}}", "finite"),
    ("generate: {kind: rail, sus: [.nan, 2]}", "is not a number a design can have"),
    ("generate: {kind: rail}\nconstraints: {budget: .inf}", "finite number"),
    ("generate: {kind: rail, sus: [[1, 2]]}", "plain values"),
    ("a: &a [1, 2]\ngenerate: {kind: rail, sus: *a}", "aliases"),
    ("[" * 100_000, "nested too deeply"),
])
def test_odd_sweep_specs_are_refused_before_any_work(text, words):
    with pytest.raises(SweepSpecError, match=words) as e:
        expand(loads_spec(text, "s"))
    assert len(str(e.value)) <= MAX_MESSAGE + 40


def test_an_alias_bomb_is_refused_in_a_line_not_expanded_into_megabytes(capsys, tmp_path):
    nine = '["x","x","x","x","x","x","x","x","x"]'
    node = f"&a0 {nine}"
    for i in range(1, 8):
        node = f"&a{i} [{node}" + f",*a{i - 1}" * 8 + "]"
    spec = tmp_path / "bomb.sweep.yaml"
    spec.write_text(f"name: x\ngenerate: {{kind: rail, sus: [{node}]}}\n")
    line = _refused(capsys, ["sweep", spec, "--workers", "0"])
    assert "aliases" in line and len(line) < 300


def test_a_spec_saved_as_utf16_is_read(tmp_path):
    from designer.core.sweep.spec import load_spec

    f = tmp_path / "s.sweep.yaml"
    f.write_bytes("generate: {kind: rail, sus: [1, 2]}\n".encode("utf-16"))
    assert len(expand(load_spec(f))) == 2


def test_error_messages_are_cut():
    e = DesignerError("x" * 10_000_000)
    assert len(str(e)) < MAX_MESSAGE + 40 and str(e).endswith("(cut: 10,000,000 characters)")


# -- LLDP tables of unexpected shapes ----------------------------------------------------------
ETH0 = {"port": {"id": {"value": "Ethernet0"}}}
LLDP_SHAPES = [
    ({"lldp": {"interface": "x"}}, "lldp.interface: expected a list, found a string"),
    ({"lldp": {"interface": [1, 2]}}, "interface[0]: expected an object, found a number"),
    ({"lldp": {"interface": [{"Ethernet0": "str"}]}}, "expected an object, found a string"),
    ({"lldp": {"interface": [{"Ethernet0": {"chassis": "x"}}]}}, "chassis: expected an object"),
    ({"lldp": {"interface": [{"Ethernet0": {"chassis": {"l2": {}}, "port": "x"}}]}},
     "port: expected an object"),
    ({"lldp": [{"interface": "x"}]}, "lldp[0].interface: expected a list"),
    ({"lldp": [{"interface": [{"name": "Ethernet0", "chassis": "x"}]}]}, "chassis: expected a"),
    ({"lldp": [1]}, "lldp[0]: expected an object"),
    ({"lldp": "x"}, "lldp: expected an object"),
    ({"lldp": {"interface": [{"Ethernet0": {"chassis": {"l2": {"capability": "x"}}, **ETH0}}]}},
     "capability: expected a list"),
    ({"lldp": {"interface": [{"Ethernet0": {"chassis": {"l2": {}},
                                            "port": {"id": {"value": [1]}}}}]}},
     "port.id: expected a name"),
    ({"lldp": {"interface": [{"Ethernet0": {"chassis": {"leaf\u001b[2J": {}}, **ETH0}}]}},
     r"'leaf\x1b[2J' holds control characters"),
    ({"lldp": {"interface": [{"Ethernet0": {"chassis": {"x" * 300: {}}, **ETH0}}]}},
     "has 300 characters"),
    ({"lldp": {"interface": [{"Ethernet99999999999999999999": {"chassis": {"l2": {}},
                                                              **ETH0}}]}},
     "cannot read a port number"),
]


@pytest.mark.parametrize(("data", "words"), LLDP_SHAPES)
def test_lldp_json_of_unexpected_shapes_is_refused_with_its_place(capsys, tmp_path, data,
                                                                  words):
    f = tmp_path / "leaf1.json"
    f.write_text(json.dumps(data))
    line = _refused(capsys, ["import", "lldp", f, "-o", tmp_path / "x.fabric.json"])
    assert words in line, line


def test_lldp_neighbour_names_with_control_characters_in_a_table(capsys, tmp_path):
    f = tmp_path / "leaf1.txt"
    f.write_text("LocalPort  RemoteDevice  RemotePortID  Capability\n"
                 "---------  ------------  ------------  ----------\n"
                 "Ethernet0  \x1b[2Jleaf2  Ethernet4  R\n")
    line = _refused(capsys, ["import", "lldp", f, "-o", tmp_path / "x.fabric.json"])
    assert "line 3" in line and "\\x1b[2Jleaf2" in line


# -- an ibnetdiscover import whose names hold numbers past the model's group labels -----------
def test_node_names_with_huge_numbers_import_without_those_groups(capsys, tmp_path):
    topo = tmp_path / "k8.topo"
    assert main(["export", "ibnetdiscover", str(K8), "-o", str(topo)]) == 0
    topo.write_text(topo.read_text().replace('"rack1-tor"', '"pod20240611120000-leaf1"')
                    .replace('"rack2-tor"', '"p99999999999-leaf"'))
    out = tmp_path / "asbuilt.fabric.json"
    assert main(["import", "ibnetdiscover", str(topo), "-o", str(out)]) == 0
    notes = json.loads(out.read_text())["notes"]
    assert "2 name(s) carry a number too large for a group label" in notes


# -- terminal escapes --------------------------------------------------------------------------
def test_printed_text_shows_control_characters(capsys, tmp_path):
    # a path (any text from outside) with escapes, in an error and in normal output
    evil = tmp_path / "\x1b[2J\x1b[1;1Hforged.fabric.json"
    assert main(["solve", str(evil)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2J\\x1b[1;1Hforged" in err


def test_price_book_names_with_control_characters_are_refused_at_load(tmp_path, roce_file,
                                                                      capsys):
    data = json.loads(roce_file.read_text())
    data["sources"] = {"price_books": [{"name": "evil\x1b[2J", "prices": {"sn5600": 1.0}}]}
    f = tmp_path / "esc.fabric.json"
    f.write_text(json.dumps(data))
    line = _refused(capsys, ["prices", "list", f])
    assert "sources.price_books[0].name" in line and "U+001B" in line


def test_a_quote_file_named_with_escapes_gets_a_shown_name(tmp_path, roce_file, capsys):
    q = tmp_path / "ev\x1b[2Jil.csv"
    q.write_text("part id,unit price\nsn5600,50000\n")
    out = tmp_path / "p.fabric.json"
    assert main(["prices", "import", str(roce_file), str(q), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["prices", "list", str(out)]) == 0
    listed = capsys.readouterr().out
    assert "\x1b" not in listed and listed.startswith("ev\\x1b[2Jil: 1 prices")


def test_catalog_is_untouched():
    builtin_catalog()  # the session catalog still loads after the hostile runs above
