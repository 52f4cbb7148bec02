"""The design on the real InfiniBand stack: ibsim loads it, OpenSM routes it, ibnetdiscover
and dump_fts read it back. Skipped (with the package to install) where the tools are absent.

Designs are the published ones (DOMAIN.md section 5): DGX SuperPOD 2 SU (16 leaves, 8
spines) and 4 SU (32 leaves, 16 spines), and Al-Fares' k = 8 fat-tree (128 hosts, 80
switches, 16 core).
"""

from __future__ import annotations

import numpy as np
import pytest

from designer.cli.main import main
from designer.core.fileformat import save_project
from designer.core.ibcheck import (
    CheckCancelled,
    IbSimError,
    IbToolsMissing,
    check_ib,
    discover,
    missing_reason,
)
from designer.core.ibcheck.sim import IbSim, SimLimits
from designer.core.ibcheck.tools import find_tools
from designer.core.infiniband import diff_projects, ib_fabric_of, project_from_ib
from designer.core.infiniband.netfile import write_netfile
from tests.core.ib_helpers import cables, design, row, with_cables

REASON = missing_reason()


def needs_stack(test):
    """Runs on the real stack; skipped, saying what to install, where it is absent."""
    return pytest.mark.ibstack(pytest.mark.skipif(REASON is not None, reason=REASON or "")(test))


@pytest.fixture(scope="module")
def rail2():
    return design("rail", sus=2)


@pytest.fixture(scope="module")
def rail2_report(rail2):
    return check_ib(rail2)


# --- without the tools -------------------------------------------------------------------------


def test_missing_tools_name_the_packages(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr("designer.core.ibcheck.tools._SBIN", ("/nonexistent",))
    monkeypatch.setattr("designer.core.ibcheck.tools._UMAD2SIM_GLOBS", ())
    monkeypatch.delenv("FABRIC_DESIGNER_UMAD2SIM", raising=False)
    with pytest.raises(IbToolsMissing) as err:
        find_tools()
    for package in ("opensm", "ibsim-utils", "infiniband-diags", "apt-get install"):
        assert package in str(err.value)


def test_limits_are_raised_to_fit_and_the_lid_space_is_named(catalog):
    ib = ib_fabric_of(design("rail", sus=16), catalog).fabric  # 4,096 HCAs, 320 switches
    flags = SimLimits.for_fabric(ib).flags()
    values = dict(zip(flags[0::2], map(int, flags[1::2]), strict=True))
    assert values["-N"] >= 4416 > 2048  # ibsim's default node table is 2,048
    assert values["-S"] >= 320 and values["-P"] >= 320 * 65 + 4096 and values["-L"] >= 4417
    with pytest.raises(IbSimError, match="49,151 unicast LIDs"):
        SimLimits(nodes=60_000, switches=1_000, ports=200_000, lids=60_000).check()


def test_solver_comparison_says_what_it_compared_with(rail2, monkeypatch):
    from designer.core.ibcheck import solver_hops
    from designer.core.ibcheck.routes import HopStats

    stats, note = solver_hops.solver_hop_stats(rail2)  # the solver's path stage, on its own
    # DGX SuperPOD 2 SU: same rail of one SU crosses one leaf, all else leaf-spine-leaf
    assert set(stats.histogram) == {1, 3} and "no routes to compare" in note
    same = HopStats(pairs=10, histogram={k: 5 * v for k, v in stats.histogram.items()})
    other = HopStats(pairs=10, histogram={1: 5, 3: 5})

    class Routed:
        def __init__(self, routed):
            self.routed = routed

    assert "equal the solver's" in solver_hops.solver_hop_stats(rail2, [Routed(same)])[1]
    assert "DIFFER" in solver_hops.solver_hop_stats(rail2, [Routed(other)])[1]

    def trips(*args):
        raise ValueError("boom")

    monkeypatch.setattr(solver_hops, "_solver_hops", trips)
    stats, note = solver_hops.solver_hop_stats(rail2)
    assert stats is None and "failed on this design (boom)" in note and "breadth-first" in note


# --- on the stack ------------------------------------------------------------------------------


@needs_stack
def test_rail_design_comes_up_with_ftree_as_designed(rail2_report):
    r = rail2_report
    assert r.ok, r.lines()
    (s,) = r.subnets
    assert s.subnet_up and s.engine == "ftree" and s.engine_used == "ftree"
    assert (s.switches, s.hcas, s.cables) == (24, 512, 1024)
    assert r.diff is not None and r.diff.equal and r.diff.matched == 1024
    # routed hops equal the shortest paths for every pair of GPUs in different servers:
    # the same rail of one SU crosses one leaf, all other pairs leaf-spine-leaf
    assert s.longer_pairs == 0 and s.routed.unreached == 0
    same_rail = 16 * 32 * 31
    assert s.routed.histogram == s.shortest.histogram == {1: same_rail, 3: 512 * 504 - same_rail}
    # 32 up-links per leaf carry the 480 GPUs outside the leaf: 15 destinations each
    (b,) = s.balance
    assert (b.layer, b.ports, b.min, b.max) == ("leaf -> spine", 512, 15, 15)
    assert {"export", "ibsim", "opensm", "ibnetdiscover", "dump_fts", "total"} <= set(r.times)


@needs_stack
def test_k_ary_fat_tree_comes_up_with_ftree_as_designed():
    r = check_ib(design("fat-tree", k_ary=8))
    assert r.ok, r.lines()
    (s,) = r.subnets
    assert s.engine_used == "ftree" and (s.switches, s.hcas) == (80, 128)
    assert r.diff.equal and r.diff.matched == 3 * 128
    # 3 levels: at most 2L - 1 = 5 switches; hosts under one edge switch cross 1, in one pod 3
    assert s.routed.histogram == s.shortest.histogram == {1: 384, 3: 1536, 5: 14336}
    assert s.longer_pairs == 0
    assert [(b.layer, b.min, b.max) for b in s.balance] == [
        ("leaf -> spine", 31, 31),
        ("spine -> core", 28, 28),
    ]


@needs_stack
def test_routed_hops_match_the_solver(rail2_report):
    r = rail2_report
    assert r.solver_hops is not None, r.solver_note
    assert "equal the solver's" in r.solver_note
    routed = r.subnets[0].routed.fractions()
    assert routed == pytest.approx({k: v for k, v in r.solver_hops.fractions().items() if k > 0})
    # same rail of one SU: one leaf; every other pair leaf-spine-leaf (DGX SuperPOD 2 SU)
    assert set(r.solver_hops.histogram) == {1, 3}


@needs_stack
def test_removed_spine_shows_uneven_route_balance(rail2):
    r = check_ib(rail2.with_fabric(rail2.fabric.remove_devices({"spine3"})))
    (s,) = r.subnets
    assert s.subnet_up and s.engine_used == "ftree" and r.diff.equal
    (b,) = s.balance
    # 480 destinations over 28 up-links: 17.14 on average, and unevenly
    assert b.ports == 16 * 28 and b.mean == pytest.approx(480 / 28)
    assert b.min < b.mean < b.max and not b.even
    assert any("uneven route balance" in f.message for f in r.findings)
    assert r.ok  # a warning, not an error


@needs_stack
def test_as_built_with_two_swapped_and_one_missing_cable(rail2, catalog, tmp_path, capsys):
    # the fabric as cabled: two node cables swapped at their leaf, one leaf-spine cable missing
    cols = cables(rail2)
    r1, r2 = row(rail2, cols, "su1-node03", 5), row(rail2, cols, "su1-node04", 5)
    cols["b_port"][[r1, r2]] = cols["b_port"][[r2, r1]]
    keep = np.ones(len(cols["a"]), bool)
    keep[row(rail2, cols, "spine4", 9)] = False
    cabled = with_cables(rail2, cols, keep)
    # what ibnetdiscover finds on it, written as the tool writes it, then compared
    found = discover(ib_fabric_of(cabled, catalog).fabric)
    assert found.nodeid[0].startswith(("S-", "H-"))  # GUID node ids, as on real fabrics
    topo = tmp_path / "ibnetdiscover.out"
    topo.write_text(write_netfile(found))
    plan = tmp_path / "plan.fabric.json"
    save_project(rail2, plan)
    built = tmp_path / "built.fabric.json"
    assert main(["import", "ibnetdiscover", str(topo), "-o", str(built)]) == 0
    capsys.readouterr()
    assert main(["diff", str(plan), str(built)]) == 1
    out = capsys.readouterr().out
    assert (
        "1,024 cables planned, 1,023 found: 1,021 as planned, 2 miswired, 1 missing, 0 extra" in out
    )
    assert (
        "miswired  su1-node03 port 5 (mlx5_4): planned to su1-leaf-r5 port 3 (2/1), found on "
        "su1-leaf-r5 port 4 (2/2) (right devices, wrong ports)" in out
    )
    assert (
        "miswired  su1-node04 port 5 (mlx5_4): planned to su1-leaf-r5 port 4 (2/2), found on "
        "su1-leaf-r5 port 3 (2/1)" in out
    )
    missing = [ln for ln in out.splitlines() if ln.startswith("missing")]
    assert len(missing) == 1 and "spine4 port 9 (5/1)" in missing[0]
    # the same through the API, straight from the discovered fabric
    diff = diff_projects(rail2, project_from_ib(found, catalog), catalog)
    assert (len(diff.miswired_plan), len(diff.missing), len(diff.extra)) == (2, 1, 0)


@needs_stack
def test_xdr_switch_ports_above_127_are_read_back():
    # Q3400 spines of a 2-SU XDR design use ports up to 128 (16 leaves x 8 up-links)
    r = check_ib(design("rail", sus=2, gear="ib-xdr"))
    (s,) = r.subnets
    assert r.ok and s.routed.unreached == 0 and s.longer_pairs == 0, r.lines()
    assert r.diff.equal and s.balance[0].even


@needs_stack
def test_multi_plane_design_is_one_subnet_per_plane():
    r = check_ib(design("rail", sus=1, planes=2, server="gpu-server-8"))
    assert r.ok, r.lines()
    assert [s.name for s in r.subnets] == ["plane 1", "plane 2"]
    assert all(s.subnet_up and s.engine_used == "ftree" and s.hcas == 256 for s in r.subnets)
    assert r.diff.equal and r.diff.matched == 2 * (256 + 256)


@needs_stack
def test_dragonfly_is_routed_by_dfsssp():
    r = check_ib(design("dragonfly", a=4, p=2, h=2))
    (s,) = r.subnets
    assert s.subnet_up and s.engine == s.engine_used == "dfsssp"
    assert r.diff.equal and s.longer_pairs == 0 and s.routed.unreached == 0
    # minimal dragonfly routes: at most 4 routers (local, global, local)
    assert s.routed.max == 4
    assert {b.layer for b in s.balance} == {"router -> router (local)", "router -> router (global)"}


@needs_stack
def test_opensm_fallback_is_reported_in_its_own_words():
    # ftree cannot rank a dragonfly (no tree), so OpenSM falls back to minhop and says why
    r = check_ib(design("dragonfly", a=4, p=2, h=2), engine="ftree")
    (s,) = r.subnets
    assert s.subnet_up and s.fell_back and s.engine_used == "minhop"
    assert any("ERR AB2B" in m for m in s.sm_messages)
    assert any(
        "could not route with ftree" in f.message and "ERR AB2B" in f.message for f in r.findings
    )


@needs_stack
def test_superpod_4su_is_checked_within_a_minute():
    r = check_ib(design("rail", sus=4))  # 1,024 GPUs, 32 leaves, 16 spines
    assert r.ok and r.diff.matched == 2048
    assert r.subnets[0].balance[0].min == r.subnets[0].balance[0].max == 31
    assert r.times["total"] < 60


@needs_stack
def test_cancel_stops_ibsim_and_removes_the_folder(rail2, monkeypatch):
    started: list[IbSim] = []
    real_start = IbSim.start

    def start(self, *a, **kw):
        started.append(self)
        return real_start(self, *a, **kw)

    monkeypatch.setattr(IbSim, "start", start)
    calls = {"n": 0}

    def cancelled() -> bool:  # let ibsim start, then cancel while OpenSM runs
        calls["n"] += 1
        return bool(started) and started[0].alive

    with pytest.raises(CheckCancelled):
        check_ib(rail2, cancelled=cancelled)
    (sim,) = started
    assert sim.proc is not None and sim.proc.poll() is not None  # stopped
    assert not sim.folder.exists()  # the temporary folder is gone


@needs_stack
def test_ibsim_table_limit_failure_is_named(rail2, monkeypatch, catalog):
    # ibsim started with its tables too small says which limit stopped it
    monkeypatch.setattr(SimLimits, "flags", lambda self: ["-N", "10"])
    with pytest.raises(IbSimError, match=r"no more nodes \(max 10\).*-N/-S/-P"):
        check_ib(rail2)


def test_keep_folder_that_is_a_file_is_refused_before_the_check(rail2, tmp_path, capsys):
    f = tmp_path / "rail2.fabric.json"
    save_project(rail2, f)
    taken = tmp_path / "taken"
    taken.write_text("x")
    assert main(["check-ib", str(f), "--quiet", "--keep", str(taken)]) == 2
    assert "it is a file" in capsys.readouterr().err


@needs_stack
def test_cli_check_ib(rail2, tmp_path, capsys):
    f = tmp_path / "rail2.fabric.json"
    save_project(rail2, f)
    assert main(["check-ib", str(f), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "SUBNET UP, routed by ftree" in out and "result: OK" in out and "times:" in out
    roce = tmp_path / "roce.fabric.json"
    save_project(design("rail", sus=1, gear="roce-400"), roce)
    assert main(["check-ib", str(roce), "--quiet"]) == 2
    assert "InfiniBand" in capsys.readouterr().err
