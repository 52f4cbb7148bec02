"""Finding the InfiniBand management stack: ibsim, OpenSM and the diagnostics.

All of them are Debian packages (``opensm``, ``ibsim-utils``, ``infiniband-diags``). ibsim
replaces the kernel's MAD interface with ``libumad2sim.so``, which is preloaded into every
tool that talks to the simulated fabric (what the ``ibsim-run`` wrapper does).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from designer.core.errors import DesignerError

PACKAGES = {
    "ibsim": "ibsim-utils",
    "opensm": "opensm",
    "ibnetdiscover": "infiniband-diags",
    "dump_fts": "infiniband-diags",
    "libumad2sim.so": "ibsim-utils (its libumad2sim0 dependency)",
}
INSTALL_COMMAND = "apt-get install -y opensm ibsim-utils infiniband-diags"
# opensm and the diagnostics live in sbin, which is not on a normal user's PATH
_SBIN = ("/usr/sbin", "/sbin", "/usr/local/sbin")
_UMAD2SIM_GLOBS = (
    "/usr/lib/*/umad2sim/libumad2sim.so",
    "/usr/lib64/umad2sim/libumad2sim.so",
    "/usr/lib/umad2sim/libumad2sim.so",
    "/usr/local/lib*/umad2sim/libumad2sim.so",
)
UMAD2SIM_ENV = "FABRIC_DESIGNER_UMAD2SIM"


class IbToolsMissing(DesignerError):
    """A tool of the InfiniBand stack is not installed; the message says what to install."""


@dataclass(frozen=True)
class IbTools:
    ibsim: str
    opensm: str
    ibnetdiscover: str
    dump_fts: str
    umad2sim: str


def _which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path=os.pathsep.join(_SBIN))


def _umad2sim() -> str | None:
    env = os.environ.get(UMAD2SIM_ENV)
    if env and Path(env).is_file():
        return env
    # the ibsim-run wrapper names the library it preloads
    wrapper = _which("ibsim-run")
    if wrapper:
        try:
            m = re.search(r"^sim_so=(\S+)", Path(wrapper).read_text(errors="replace"), re.M)
        except OSError:
            m = None
        if m and Path(m.group(1)).is_file():
            return m.group(1)
    for pattern in _UMAD2SIM_GLOBS:
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[0]
    return None


def missing_tools() -> list[str]:
    """Names of the missing tools (empty when everything is installed)."""
    missing = [t for t in ("ibsim", "opensm", "ibnetdiscover", "dump_fts") if not _which(t)]
    if not _umad2sim():
        missing.append("libumad2sim.so")
    return missing


def missing_reason() -> str | None:
    """Why the check cannot run here (None when it can): what is missing and what to install."""
    missing = missing_tools()
    if not missing:
        return None
    packages = sorted({PACKAGES[m].split(" ")[0] for m in missing})
    return (
        f"the InfiniBand stack is not installed (missing: {', '.join(missing)}); install the "
        f"Debian package(s) {', '.join(packages)}: {INSTALL_COMMAND}"
    )


def find_tools() -> IbTools:
    reason = missing_reason()
    if reason:
        raise IbToolsMissing(reason)
    return IbTools(
        ibsim=_which("ibsim") or "",
        opensm=_which("opensm") or "",
        ibnetdiscover=_which("ibnetdiscover") or "",
        dump_fts=_which("dump_fts") or "",
        umad2sim=_umad2sim() or "",
    )
