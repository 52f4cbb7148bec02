"""One ibsim process and the tools run against it.

ibsim loads a topology file and answers management packets as the fabric would; OpenSM and
the diagnostics reach it through ``libumad2sim.so`` preloaded into them. Each check gets its
own socket name (``IBSIM_SOCKNAME``), so checks can run side by side, and its own folder (the
preloaded library writes a fake sysfs tree into the working directory).

ibsim sizes its tables at start: ``-N`` nodes (default 2,048), ``-S`` switches (256), ``-P``
ports (13,312, counting a switch's port 0) and ``-L`` the linear forwarding table, that is
LIDs (30,720). ``SimLimits.for_fabric`` raises each one to fit. The hard limit is the LID
space: one subnet addresses at most 49,151 unicast LIDs, one per switch and per HCA port.

Every process is started in its own session (so Ctrl+C in a terminal reaches only us, and we
stop them in order), and stopped by its process id.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from designer.core.errors import DesignerError
from designer.core.ibcheck.tools import IbTools
from designer.core.infiniband.topology import SWITCH, IbFabric

# ibsim's compiled-in defaults (sim.h) and the IB unicast LID space (0x0001..0xBFFF)
DEFAULT_NODES, DEFAULT_SWITCHES, DEFAULT_PORTS, DEFAULT_LIDS = 2048, 256, 13312, 30720
MAX_UNICAST_LIDS = 0xBFFF
MAX_LINEAR_CAP = 0xC000
_READY = b"Network simulator ready"
_POLL_S = 0.05  # how often a running tool is checked for cancel, timeout and ibsim's health
_READY_POLL_S = 0.01


class IbSimError(DesignerError):
    """ibsim or a tool run against it failed; the message quotes the tool's own words."""


class CheckCancelled(DesignerError):
    """The caller asked the check to stop."""


@dataclass(frozen=True)
class SimLimits:
    nodes: int
    switches: int
    ports: int
    lids: int  # LIDs the subnet needs (switches + HCA ports)

    @classmethod
    def for_fabric(cls, ib: IbFabric) -> SimLimits:
        sw = ib.kind == SWITCH
        ports = int((ib.nports[sw].astype(np.int64) + 1).sum() + ib.nports[~sw].sum())
        lids = int(sw.sum() + ib.nports[~sw].sum())
        return cls(nodes=ib.n_nodes, switches=int(sw.sum()), ports=ports, lids=lids)

    def check(self) -> None:
        if self.lids > MAX_UNICAST_LIDS:
            raise IbSimError(
                f"this subnet needs {self.lids:,} LIDs (one per switch and per HCA port), but an "
                f"InfiniBand subnet addresses at most {MAX_UNICAST_LIDS:,} unicast LIDs; split it "
                "into planes (--planes) or check a smaller design"
            )

    def flags(self) -> list[str]:
        """ibsim options that raise its tables to fit (never below its defaults)."""
        return [
            "-N",
            str(max(DEFAULT_NODES, self.nodes + 8)),
            "-S",
            str(max(DEFAULT_SWITCHES, self.switches + 8)),
            "-P",
            str(max(DEFAULT_PORTS, self.ports + 64)),
            "-L",
            str(min(MAX_LINEAR_CAP, max(DEFAULT_LIDS, self.lids + 64))),
        ]


@dataclass(frozen=True)
class ToolRun:
    args: tuple[str, ...]
    returncode: int
    seconds: float
    stdout: Path
    stderr: Path

    def stderr_tail(self, n: int = 5) -> str:
        try:
            lines = self.stderr.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        useful = [ln for ln in lines if "sim_connect: attached" not in ln and ln.strip()]
        return "; ".join(useful[-n:])


def _stop(proc: subprocess.Popen, grace: float = 2.0) -> None:
    """Stop one process we started, by its id: SIGTERM, then SIGKILL after ``grace`` seconds."""
    if proc.poll() is not None:
        return
    try:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=grace)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


class IbSim:
    """``with IbSim(tools, folder, netfile, limits) as sim: sim.run([...])``."""

    def __init__(
        self,
        tools: IbTools,
        folder: Path,
        netfile: Path,
        limits: SimLimits,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        self.tools = tools
        self.folder = Path(folder)
        self.netfile = Path(netfile)
        self.limits = limits
        self.cancelled = cancelled or (lambda: False)
        self.sockname = f"fd{os.getpid()}x{secrets.token_hex(4)}"
        self.log = self.folder / "ibsim.log"
        self.proc: subprocess.Popen | None = None

    # environment of every process: our socket, the preloaded library, writable caches
    def env(self, client: bool) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("SIM_HOST", "IBSIM_SERVER_NAME", "IBSIM_SERVER_PORT", "LD_PRELOAD")
        }
        env["IBSIM_SOCKNAME"] = self.sockname
        env["OSM_CACHE_DIR"] = str(self.folder)
        env["OSM_TMP_DIR"] = str(self.folder)
        if client:
            env["LD_PRELOAD"] = self.tools.umad2sim
        return env

    def __enter__(self) -> IbSim:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, timeout: float = 300.0) -> float:
        """Start ibsim and wait until it has built the fabric; returns the seconds taken."""
        self.limits.check()
        t0 = time.perf_counter()
        args = [self.tools.ibsim, "-s", "-n", *self.limits.flags(), str(self.netfile)]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                args,
                cwd=self.folder,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env(client=False),
                start_new_session=True,
            )
        try:
            while True:
                if _READY in self._log_bytes():
                    return time.perf_counter() - t0
                if self.proc.poll() is not None:
                    raise IbSimError(f"ibsim stopped while loading the fabric: {self.why()}")
                if self.cancelled():
                    raise CheckCancelled("cancelled")
                if time.perf_counter() - t0 > timeout:
                    raise IbSimError(f"ibsim did not load the fabric in {timeout:.0f} s")
                time.sleep(_READY_POLL_S)
        except BaseException:  # also Ctrl+C: never leave ibsim running
            self.stop()
            raise

    def _log_bytes(self) -> bytes:
        try:
            return self.log.read_bytes()
        except OSError:
            return b""

    def why(self) -> str:
        """ibsim's own words about a failure (its panic or the last lines of its log)."""
        text = self._log_bytes().decode(errors="replace")
        panics = re.findall(r"ibpanic: \[\d+\] (.*)", text)
        fatal = re.findall(r"^fatal: (.*)$", text, re.M)
        if panics or fatal:
            words = "; ".join((fatal + panics)[-3:])
            if "no more" in words:
                words += " (ibsim's -N/-S/-P table limits; raise them)"
            return words
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return "; ".join(lines[-3:]) or "no output"

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def run(self, args: Sequence[str], name: str, timeout: float) -> ToolRun:
        """Run one tool against the simulated fabric, its output in ``<name>.out/.err``."""
        out = self.folder / f"{name}.out"
        err = self.folder / f"{name}.err"
        t0 = time.perf_counter()
        with open(out, "wb") as fo, open(err, "wb") as fe:
            proc = subprocess.Popen(
                list(args),
                cwd=self.folder,
                stdout=fo,
                stderr=fe,
                stdin=subprocess.DEVNULL,
                env=self.env(client=True),
                start_new_session=True,
            )
            try:
                while True:
                    try:
                        proc.wait(timeout=_POLL_S)  # returns as soon as the tool ends
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    if self.cancelled():
                        raise CheckCancelled("cancelled")
                    if not self.alive:
                        raise IbSimError(
                            f"ibsim stopped while {Path(args[0]).name} ran: {self.why()}"
                        )
                    if time.perf_counter() - t0 > timeout:
                        raise IbSimError(f"{Path(args[0]).name} did not finish in {timeout:.0f} s")
            finally:
                _stop(proc)
        return ToolRun(tuple(args), proc.returncode, time.perf_counter() - t0, out, err)

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
