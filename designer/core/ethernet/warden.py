"""The lab's warden: a small process that removes a routed-fabric lab when the check that made
it dies without removing it (SIGKILL, the OOM killer, a crash).

The check starts the warden first, in a session of its own (a kill of the check's process
group does not reach it), and keeps the write end of a pipe whose read end is the warden's
standard input. The kernel closes that pipe however the check ends, so the warden always
wakes: a check that removed its lab writes ``closed`` first and the warden just exits;
otherwise the warden kills every process in the lab's namespaces (the FRR daemons, a
traceroute), deletes the namespaces (their veths go with them) and the lab's folder. The
next check also sweeps what a killed warden left (``lab.remove_stale``), so a lab is removed at
the kill and, failing that, at the next start.

Run as ``python -m designer.core.ethernet.warden PREFIX FOLDER``; it imports only the
standard library.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

CLOSED = b"closed\n"


def namespaces_with(prefix: str, ip: str = "ip") -> list[str]:
    try:
        listing = subprocess.run([ip, "netns", "list"], capture_output=True, text=True,
                                 timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = [line.split()[0] for line in listing.splitlines() if line.split()]
    return [n for n in names if n.startswith(prefix)]


def remove_lab(namespaces: list[str], folder: Path | None, ip: str = "ip") -> None:
    """Kill every process in ``namespaces``, delete them, remove ``folder``."""
    for ns in namespaces:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            pids = subprocess.run([ip, "netns", "pids", ns], capture_output=True, text=True,
                                  timeout=30).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError, PermissionError):
                    os.kill(int(pid), signal.SIGKILL)
    if namespaces:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run([ip, "-force", "-batch", "-"],
                           input="".join(f"netns del {n}\n" for n in namespaces),
                           capture_output=True, text=True, timeout=120)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    prefix, folder = argv[0], Path(argv[1])
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)  # only the pipe ends the watch
    said = b""
    while True:
        try:
            chunk = os.read(0, 64)
        except InterruptedError:
            continue
        except OSError:
            break
        if not chunk:
            break
        said = (said + chunk)[-64:]
    if said.endswith(CLOSED):
        return 0
    remove_lab(namespaces_with(prefix), folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
