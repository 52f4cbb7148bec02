"""A routed-fabric check killed outright (SIGKILL: no handler runs) leaves no lab behind: its
warden removes the FRR daemons, the namespaces and the folder at the kill, and when the warden
was killed too, the next check sweeps them at its start. Needs root and FRR (``roce``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from designer.core.ethernet.lab import missing_reason, remove_stale
from designer.core.fileformat import save_project
from tests._paths import ROOT
from tests.core.ethernet_helpers import fat_tree_k4

REASON = missing_reason()
pytestmark = [pytest.mark.roce, pytest.mark.skipif(REASON is not None, reason=REASON or "")]
# Waiting for the kernel and the warden to act, never a measure of speed: generous.
WAIT_S = 120.0


def _namespaces(prefix: str) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(prefix)]


def _processes_naming(text: str) -> list[int]:
    """Processes whose command line holds ``text`` (the daemons name their lab folder)."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            cmd = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmd:
            out.append(int(entry.name))
    return out


def _folders(prefix: str) -> list[Path]:
    return [p for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith(prefix)]


def _start_check(tmp_path) -> tuple[subprocess.Popen, str]:
    """A check running on its own, once its switches' daemons are up."""
    project, _cat = fat_tree_k4()
    path = tmp_path / "k4.fabric.json"
    save_project(project, path)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "designer", "check-roce", str(path),
                             "--timeout", "600"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    assert proc.stderr is not None
    for line in proc.stderr:  # progress lines, one a step
        if "waiting for BGP" in line:
            break
    else:
        pytest.fail(f"the check ended before its lab was up (exit {proc.wait()})")
    return proc, f"fdroce{proc.pid}x"


def _wait_gone(prefix: str) -> tuple[list, list, list]:
    deadline = time.monotonic() + WAIT_S
    while True:
        left = (_namespaces(prefix), _processes_naming(prefix), _folders(prefix))
        if not any(left) or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def test_sigkill_leaves_no_namespace_daemon_or_folder(tmp_path):
    proc, prefix = _start_check(tmp_path)
    namespaces = _namespaces(prefix)
    daemons = [p for p in _processes_naming(prefix) if p != proc.pid]
    assert len(namespaces) == 20 + 16  # 20 switches and 2 hosts on each of 8 leaves
    assert daemons and _folders(prefix)  # zebra and bgpd per switch, the lab folder
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _wait_gone(prefix) == ([], [], [])


def test_a_lab_whose_warden_died_too_is_swept_at_the_next_start(tmp_path):
    proc, prefix = _start_check(tmp_path)
    wardens = [p for p in _processes_naming(prefix) if p != proc.pid
               and b"warden" in Path(f"/proc/{p}/cmdline").read_bytes()]
    assert len(wardens) == 1
    os.kill(wardens[0], signal.SIGKILL)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)  # let the kernel reap the warden before looking
    left = _namespaces(prefix)
    assert left and _folders(prefix)  # nobody cleaned at the kill
    removed = remove_stale()  # what the next check does first
    assert set(left) <= set(removed)
    assert _wait_gone(prefix) == ([], [], [])
