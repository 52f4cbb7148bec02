"""A routed fabric in Linux network namespaces: one namespace per switch running FRR (zebra and
bgpd; bfdd on request, which the check leaves off to spare the CPU), one veth pair per cable, a
few host namespaces per leaf.

Everything the lab makes carries its own prefix (``fdroce<pid>x<token>-``) and is listed as it
is made; ``close()`` removes exactly that list (daemons by their process ids, then namespaces,
which takes their veths along) and is safe to call twice, after an error or on Ctrl+C. A check
killed outright (SIGKILL, the OOM killer) cannot clean up: its warden (``warden.py``, a process
of its own watching a pipe the kernel closes when the check dies) removes the daemons, the
namespaces and the folder then, and the next check sweeps whatever a killed warden left.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from designer.core.errors import DesignerError
from designer.core.ethernet.warden import CLOSED, namespaces_with, remove_lab
from designer.core.safe_io import copy_tree

FRR_DIRS = ("/usr/lib/frr", "/usr/libexec/frr", "/usr/sbin")
SYSCTLS = (
    "net.ipv4.ip_forward=1",
    "net.ipv4.icmp_ratelimit=0",  # traceroute gets every time-exceeded back
    "net.ipv4.icmp_msgs_per_sec=100000",  # and every port-unreachable from a host
    "net.ipv4.icmp_msgs_burst=10000",
    "net.ipv4.fib_multipath_hash_policy=1",  # ECMP on the 5-tuple, as fabric switches hash
    "net.ipv4.conf.all.rp_filter=0",
    "net.ipv4.conf.default.rp_filter=0",
    "net.ipv6.conf.all.disable_ipv6=1",  # the underlay is IPv4; no neighbour discovery noise
    "net.ipv6.conf.default.disable_ipv6=1",
)


# a daemon's start-up is well under a second on an idle machine; a CI runner sharing two
# cores with a parallel test worker has been seen to take several
SOCKET_WAIT_S = 60.0

PREFIX = "fdroce"
_OWNED = re.compile(rf"^{PREFIX}(\d+)x[0-9a-f]+-")


def _dead(name: str) -> bool:
    """True when ``name`` is one of ours and the check named in it is gone."""
    m = _OWNED.match(name)
    if not m:
        return False
    try:
        os.kill(int(m.group(1)), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False  # alive, someone else's
    return False


def remove_stale() -> list[str]:
    """Remove what an earlier check made and could not remove (it was killed outright and so
    was its warden): namespaces and folders of ours by name, only when the process named in
    them is gone. Returns the namespaces removed."""
    stale = [n for n in namespaces_with(PREFIX) if _dead(n)]
    remove_lab(stale, None)
    with contextlib.suppress(OSError):
        for entry in os.scandir(tempfile.gettempdir()):
            if entry.is_dir(follow_symlinks=False) and _dead(entry.name):
                shutil.rmtree(entry.path, ignore_errors=True)
    return stale


def _start_warden(prefix: str, folder: Path) -> subprocess.Popen | None:
    """The warden of a lab (see ``warden.py``), or None when it cannot start (the next check
    then sweeps what a killed one leaves)."""
    root = str(Path(__file__).resolve().parents[3])  # where the designer package is
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    try:
        return subprocess.Popen([sys.executable, "-m", "designer.core.ethernet.warden", prefix,
                                 str(folder)], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, env=env, close_fds=True)
    except OSError:
        return None


class LabError(DesignerError):
    """The lab cannot be built (a command failed); the message quotes it."""


class ToolsMissing(DesignerError):
    """Packages or privileges the live check needs are missing."""


def _find(name: str) -> str | None:
    for d in FRR_DIRS:
        p = Path(d) / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return shutil.which(name)


def missing() -> list[str]:
    """What the live check lacks: packages and privileges, in words a person can act on."""
    out = []
    for name, pkg in (("zebra", "frr"), ("bgpd", "frr"), ("vtysh", "frr"),
                      ("ip", "iproute2"), ("traceroute", "traceroute")):
        if _find(name) is None:
            out.append(f"{name} (Debian package {pkg})")
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        out.append("root privileges (network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN)")
    return sorted(set(out), key=out.index)


def missing_reason() -> str | None:
    m = missing()
    return None if not m else "the routed-fabric check needs " + ", ".join(m)


def run(args: list[str], stdin: str | None = None, timeout: float = 60) -> str:
    try:
        p = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise LabError(f"'{' '.join(args[:4])} ...' did not finish in {timeout:g} s") from None
    if p.returncode != 0:
        err = (p.stderr or p.stdout).strip().splitlines()
        raise LabError(f"'{' '.join(args[:6])}' failed: {err[-1] if err else p.returncode}")
    return p.stdout


def _mac(k: int) -> str:
    return "02:fd:" + ":".join(f"{(k >> sh) & 0xFF:02x}" for sh in (24, 16, 8, 0))


def _uid(user: str) -> int | None:
    try:
        import pwd

        return pwd.getpwnam(user).pw_uid
    except (ImportError, KeyError):
        return None


def _give(path: Path, user: str) -> None:
    uid = _uid(user)
    if uid is not None and hasattr(os, "chown"):
        import grp

        try:
            gid = grp.getgrnam(user).gr_gid
        except KeyError:
            gid = -1
        os.chown(path, uid, gid)


@dataclass
class Node:
    ns: str
    folder: Path
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)


class Lab:
    """Namespaces, veths and FRR daemons made by one check; ``close()`` removes them all."""

    def __init__(self, keep_logs: Path | None = None) -> None:
        remove_stale()
        self.prefix = f"{PREFIX}{os.getpid()}x{secrets.token_hex(2)}-"
        self.folder = Path(tempfile.mkdtemp(prefix=self.prefix))
        # first, so that nothing is made before someone will remove it
        self.warden = _start_warden(self.prefix, self.folder)
        self.keep_logs = keep_logs
        self.namespaces: list[str] = []
        self.nodes: dict[str, Node] = {}
        self.closed = False
        self.tools = {n: _find(n) or n for n in ("zebra", "bgpd", "bfdd", "vtysh", "ip")}
        # the daemons drop to FRR's own user, which must reach their folders
        self.user = "frr" if _uid("frr") is not None else "root"
        _give(self.folder, self.user)

    # -- building ----------------------------------------------------------------------------------
    def add_namespaces(self, names: list[str]) -> list[str]:
        full = [self.prefix + n for n in names]
        # listed before they exist, so a failure half-way still removes the ones made
        self.namespaces.extend(full)
        run([self.tools["ip"], "-batch", "-"], "".join(f"netns add {n}\n" for n in full))
        script = "sysctl -qw " + " ".join(SYSCTLS) + " >/dev/null; ip link set lo up"
        procs = [subprocess.Popen([self.tools["ip"], "netns", "exec", n, "sh", "-c", script],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for n in full]
        for p in procs:
            if p.wait(timeout=60) != 0:
                raise LabError(f"setting up a namespace failed: {p.stderr.read().decode()[:200]}")
        return full

    def add_veths(self, pairs: list[tuple[str, str, str, str]]) -> list[tuple[str, str]]:
        """(namespace a, interface a, namespace b, interface b) for each cable; returns the
        MAC addresses given to the two ends (locally administered, numbered)."""
        macs = [(_mac(2 * k), _mac(2 * k + 1)) for k in range(len(pairs))]
        lines = "".join(
            f"link add {ia} address {ma} netns {na} type veth peer name {ib} address {mb} "
            f"netns {nb}\n"
            for (na, ia, nb, ib), (ma, mb) in zip(pairs, macs, strict=True)
        )
        run([self.tools["ip"], "-batch", "-"], lines, timeout=300)
        per_ns: dict[str, list[str]] = {}
        for na, ia, nb, ib in pairs:
            per_ns.setdefault(na, []).append(ia)
            per_ns.setdefault(nb, []).append(ib)
        for ns, ifaces in per_ns.items():
            self.batch(ns, [f"link set {i} up" for i in ifaces])
        return macs

    def batch(self, ns: str, lines: list[str]) -> None:
        if lines:
            run([self.tools["ip"], "-n", ns, "-batch", "-"], "\n".join(lines) + "\n")

    def start_frr(self, configs: dict[str, str], bfd: bool = False) -> None:
        """zebra, then bgpd (and bfdd) in each namespace of ``configs``, every daemon reading
        the namespace's integrated ``frr.conf``. All zebras start together (their start-up
        is most of the time), then the routing daemons once each zebra listens."""
        for ns, config in configs.items():
            folder = self.folder / ns.removeprefix(self.prefix)
            folder.mkdir(exist_ok=True)
            conf = folder / "frr.conf"
            conf.write_text(config)
            _give(folder, self.user)
            _give(conf, self.user)
            self.nodes[ns] = Node(ns, folder)
            self._spawn(self.nodes[ns], "zebra")
        daemons = ["bgpd"] + (["bfdd"] if bfd and _find("bfdd") else [])
        for ns in configs:
            node = self.nodes[ns]
            self._wait_socket(node.folder / "zserv.api", node.procs["zebra"], ns, "zebra")
            for d in daemons:
                self._spawn(node, d)
        # vtysh refuses ("failed to connect to any daemons") until a daemon's vty socket
        # exists, which on a loaded machine is a while after it was started
        for ns in configs:
            node = self.nodes[ns]
            for d in daemons:
                self._wait_socket(node.folder / f"{d}.vty", node.procs[d], ns, d)

    def _spawn(self, node: Node, d: str) -> None:
        folder = node.folder
        args = [self.tools["ip"], "netns", "exec", node.ns, self.tools[d],
                "-f", str(folder / "frr.conf"), "-i", str(folder / f"{d}.pid"),
                "-z", str(folder / "zserv.api"), "--vty_socket", str(folder),
                "-u", self.user, "-g", self.user, "-P", "0", "--log", f"file:{folder}/{d}.log"]
        if d == "bfdd":
            args += ["--bfdctl", str(folder / "bfdd.sock")]
        if d == "zebra":
            args += ["-e", "128"]  # ECMP wide enough for any fan-out
        with open(folder / f"{d}.out", "wb") as log:
            node.procs[d] = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                             stdin=subprocess.DEVNULL, start_new_session=True)

    def _wait_socket(self, path: Path, proc: subprocess.Popen, ns: str, daemon: str) -> None:
        deadline = time.monotonic() + SOCKET_WAIT_S
        while not path.exists():
            if proc.poll() is not None:
                raise LabError(f"{daemon} in {ns} exited ({proc.returncode}); see its log")
            if time.monotonic() > deadline:
                raise LabError(f"{daemon} in {ns} did not open {path.name} in "
                               f"{SOCKET_WAIT_S:g} s")
            time.sleep(0.02)

    def vtysh(self, ns: str, command: str, daemon: str = "bgpd") -> dict:
        node = self.nodes[ns]
        out = run([self.tools["vtysh"], "--vty_socket", str(node.folder), "-d", daemon,
                   "-c", command], timeout=30)
        try:
            return json.loads(out) if out.strip() else {}
        except json.JSONDecodeError:
            raise LabError(f"vtysh '{command}' in {ns} gave no JSON: {out[:120]}") from None

    def stop_node(self, ns: str) -> None:
        """Kill a switch's daemons at once (a crash, not a shutdown)."""
        for p in self.nodes[ns].procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
        for p in self.nodes[ns].procs.values():
            p.wait(timeout=10)

    # -- removing ----------------------------------------------------------------------------------
    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        procs = [p for n in self.nodes.values() for p in n.procs.values()]
        for p in procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.monotonic() + 3
        for p in procs:
            try:
                p.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)
        # anything else still running in our namespaces (a traceroute) goes too
        for ns in self.namespaces:
            pids = subprocess.run([self.tools["ip"], "netns", "pids", ns], capture_output=True,
                                  text=True).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
        if self.namespaces:
            subprocess.run([self.tools["ip"], "-force", "-batch", "-"],
                           input="".join(f"netns del {n}\n" for n in self.namespaces),
                           capture_output=True, text=True)
        if self.keep_logs is not None:
            with contextlib.suppress(OSError, DesignerError):  # the lab is torn down anyway
                copy_tree(self.folder, self.keep_logs, "the kept lab logs",
                          skip=(".vty", ".api", ".sock"))
        shutil.rmtree(self.folder, ignore_errors=True)
        self._release_warden()

    def _release_warden(self) -> None:
        """Tell the warden the lab is gone, so it leaves without touching anything."""
        w, self.warden = self.warden, None
        if w is None or w.stdin is None:
            return
        with contextlib.suppress(OSError):
            w.stdin.write(CLOSED)
            w.stdin.close()
        try:
            w.wait(timeout=10)
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait(timeout=5)

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
