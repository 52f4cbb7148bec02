"""The routed-fabric check on FRR in network namespaces (needs root and the packages frr,
iproute2 and traceroute; CI installs them). Each test also proves the lab was removed."""

from __future__ import annotations

import json
import subprocess

import pytest

from designer.cli.main import main
from designer.core.ethernet.lab import missing_reason
from designer.core.ethernet.netns import check_roce
from designer.core.fileformat import save_project
from designer.core.ibcheck.sim import CheckCancelled
from tests.core.ethernet_helpers import fat_tree_k4, rail_2su

REASON = missing_reason()
pytestmark = [pytest.mark.roce, pytest.mark.skipif(REASON is not None, reason=REASON or "")]


def our_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("fdroce")]


@pytest.fixture(autouse=True)
def _no_leftovers():
    before = set(our_namespaces())  # a parallel worker's lab may be running
    yield
    leftovers = [n for n in our_namespaces() if n not in before and f"{_pid()}x" in n]
    assert not leftovers, leftovers


def _pid() -> int:
    import os

    return os.getpid()


def test_rail_2su_converges_with_the_designs_ecmp_and_survives_a_spine():
    """2-SU RoCE SuperPOD-style design: 16 leaves x 32 uplinks to 4 spines (8 cables per
    leaf-spine pair): 512 sessions; every leaf reaches every other leaf over all 32 uplinks
    and 3 switches; after a spine fails, over the 24 uplinks left."""
    project, cat = rail_2su()
    report = check_roce(project, cat)
    first = report.first
    assert (first.sessions_up, first.sessions_expected) == (512, 512)
    assert first.routes_checked == 16 * 15 and first.routes_missing == 0
    assert first.ecmp_widths == {32: 240} and first.ecmp_mismatches == 0
    assert first.hops == {3: 240} and first.hop_mismatches == 0
    assert first.converged_s is not None and report.slice is None
    fail = report.failure
    assert fail is not None and fail.failed == "spine1"
    assert (fail.sessions_up, fail.sessions_expected) == (384, 384)
    assert fail.ecmp_widths == {24: 240} and fail.up
    assert report.ok


def test_fat_tree_slice_through_the_cli(tmp_path, capsys):
    """k = 4 fat-tree cut to at most 12 switches: two leaves in different pods with every
    switch above them; routes cross 5 switches over 2 equal-cost uplinks."""
    project, _cat = fat_tree_k4()
    src = tmp_path / "ft.fabric.json"
    save_project(project, src, keep_backup=False)
    rc = main(["check-roce", str(src), "--json", "--quiet", "--max-switches", "12"])
    out = capsys.readouterr()
    assert out.out.strip(), f"no JSON (exit {rc}); stderr: {out.err}"
    data = json.loads(out.out)
    assert rc == 0, data
    keys = {"up", "sessions_up", "sessions_expected", "routes_checked", "ecmp_mismatches",
            "hop_mismatches", "converged_s"}
    assert keys | {"failure"} <= set(data) and keys <= set(data["failure"])
    assert data["up"] and data["switches"] == 10 and "2 of 8 leaves" in data["slice"]
    assert data["switch_hops"] == {"5": 2} and data["ecmp_widths"] == {"2": 2}
    # failing pod 1's first spine cuts its leaf to one uplink, and the other pod's leaf to one
    # too: only its second spine reaches the cores that still lead into pod 1 (Al-Fares
    # wiring: spine i of every pod goes to the same cores)
    assert data["failure"]["up"] and data["failure"]["ecmp_widths"] == {"1": 2}
    # 12 cables in the slice (4 leaf-spine, 8 spine-core); the spine took 3 with it
    assert data["sessions_expected"] == 12 and data["failure"]["sessions_expected"] == 9


def test_cancel_removes_the_lab():
    project, cat = fat_tree_k4()
    seen = []

    def cancelled() -> bool:
        return bool(seen)

    def progress(_f, message):
        if "waiting" in message:
            seen.append(message)

    with pytest.raises(CheckCancelled):
        check_roce(project, cat, progress=progress, cancelled=cancelled)


def test_a_killed_checks_namespaces_are_removed_by_the_next():
    """A check killed outright (SIGKILL) cannot clean up; the next one removes namespaces
    named after a process that is gone, and leaves a live process's alone."""
    from designer.core.ethernet.lab import PREFIX, remove_stale

    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = f"{PREFIX}{gone.pid}x0000-s0"
    alive = f"{PREFIX}{_pid()}x0000-s0"
    subprocess.run(["ip", "netns", "add", dead], check=True)
    subprocess.run(["ip", "netns", "add", alive], check=True)
    try:
        removed = remove_stale()
        assert dead in removed and alive not in removed
        assert dead not in our_namespaces() and alive in our_namespaces()
    finally:
        for ns in (dead, alive):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def test_a_config_that_narrows_ecmp_is_caught():
    """The check reads what FRR installed, not what the design says: with maximum-paths 1
    every leaf keeps one next hop where the k = 4 fat-tree has two, and all 56 leaf pairs
    are reported (the routes settle, so the check still ends with a convergence time)."""
    from designer.core.ethernet.qos import RoceQos

    project, cat = fat_tree_k4()
    report = check_roce(project, cat, fail_spine=False, qos=RoceQos(maximum_paths=1))
    first = report.first
    assert first.sessions_up == first.sessions_expected == 32
    assert first.ecmp_widths == {1: 56} and first.ecmp_expected == {2: 56}
    assert first.ecmp_mismatches == 56 and first.routes_missing == 0
    assert first.hop_mismatches == 0 and first.converged_s is not None
    assert not report.ok and report.failure is None


def test_an_error_half_way_removes_what_was_made(monkeypatch):
    """Namespaces and veths exist when FRR fails to start: the error reaches the caller and
    the lab is gone all the same."""
    from designer.core.ethernet import lab as lab_module
    from designer.core.ethernet.lab import LabError

    made = []

    def broken(self, configs, bfd=False):
        made.extend(n for n in our_namespaces() if n.startswith(self.prefix))
        raise LabError("zebra in the first switch exited (1); see its log")

    monkeypatch.setattr(lab_module.Lab, "start_frr", broken)
    project, cat = fat_tree_k4()
    with pytest.raises(LabError, match="zebra"):
        check_roce(project, cat)
    assert len(made) == 20 + 8 * 2  # switches, and two host namespaces per leaf, existed
    assert not set(made) & set(our_namespaces())


def test_every_daemon_answers_as_soon_as_the_lab_is_started():
    """The first poll follows the start at once: vtysh must find bgpd's socket (it refused
    with 'failed to connect to any daemons' when the poll outran bgpd's start-up)."""
    from designer.core.ethernet.lab import Lab

    with Lab() as lab:
        names = lab.add_namespaces([f"s{i}" for i in range(4)])
        conf = "frr defaults datacenter\nrouter bgp 65000\n bgp router-id 10.0.0.{}\n"
        lab.start_frr({ns: conf.format(i + 1) for i, ns in enumerate(names)})
        for ns in names:
            assert lab.vtysh(ns, "show bgp ipv4 unicast summary json") == {}
