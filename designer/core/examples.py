"""The bundled example projects: their names, one line on each, and copying one out.

The window's File > Open Example and ``designer examples`` read this one list, so a wheel or
pipx install (where the files sit inside the package) offers the same examples as a checkout.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from designer.core.errors import DesignerError
from designer.core.paths import projects_dir
from designer.core.safe_io import read_bytes, write_file

SUFFIX = ".fabric.json"

# one line a newcomer can choose by; the file's own name field says the rest
DESCRIPTIONS: dict[str, str] = {
    "dgx-superpod-4su-ib-ndr": "DGX SuperPOD, 4 SUs, 1,024 H100 GPUs on InfiniBand NDR "
    "(NVIDIA's reference layout: 32 leaves, 16 spines)",
    "dgx-superpod-4su-roce-400": "the same 1,024 GPUs on RoCE 400G (SN5600 as 128 x 400G)",
    "b300-superpod-4su-ib-xdr": "DGX B300 on InfiniBand XDR (Quantum-X800, ConnectX-8)",
    "b300-2-plane-roce-800": "B300 with two 400G planes per GPU on Spectrum-X",
    "dgx-h100-superpod-3su-ufm": "NVIDIA's reference architecture, Table 4: 95 nodes and the UFM",
    "dgx-superpod-64su-ib-ndr": "16,384 GPUs on three tiers of InfiniBand NDR",
    "roce-fat-tree-24k-oversubscribed": "24,576 GPUs, ToRs of 16 GPUs, 8 pods joined at 7:1 "
    "(Meta's Llama 3 cluster)",
    "k-ary-fat-tree-k8": "Al-Fares k-ary fat-tree, k = 8 (128 hosts, 80 switches)",
    "dragonfly-1056-gpus": "balanced dragonfly, a = 8, p = h = 4: 33 groups, 1,056 GPUs",
    "gb200-nvl72-superpod-4su-ib-ndr": "32 GB200 NVL72 racks (2,304 GPUs) on InfiniBand NDR, "
    "placed on the floor, with an MoE workload",
    "amd-mi355x-1024-roce-400": "AMD MI355X, 1,024 GPUs, Pollara 400 NICs on Tomahawk 5",
}

EXAMPLE_LIMIT = 256 * 1024 * 1024  # the largest bundled file is tens of megabytes


class ExampleError(DesignerError):
    """An example that is not there, or cannot be copied: names it and the folder."""


@dataclass(frozen=True)
class Example:
    name: str  # the file name without .fabric.json
    path: Path
    description: str


def examples() -> list[Example]:
    """Every bundled example project, in the order of the list above, then any other."""
    folder = projects_dir()
    found = {p.name[: -len(SUFFIX)]: p for p in folder.glob(f"*{SUFFIX}") if p.is_file()}
    order = [n for n in DESCRIPTIONS if n in found] + sorted(set(found) - set(DESCRIPTIONS))
    return [Example(n, found[n], DESCRIPTIONS.get(n, "")) for n in order]


def example(name: str) -> Example:
    """The example called ``name`` (with or without ``.fabric.json``)."""
    key = name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name
    for ex in examples():
        if ex.name == key:
            return ex
    names = ", ".join(e.name for e in examples())
    raise ExampleError(f"no example called '{name}'; the examples are: {names}")


def copy_example(name: str, folder: str | Path, *, force: bool = False) -> Path:
    """Copy an example into ``folder`` (made if missing) and return the new file's path. An
    existing file of the same name is kept unless ``force``."""
    ex = example(name)
    dest_dir = Path(folder)
    if dest_dir.exists() and not dest_dir.is_dir():
        raise ExampleError(f"{dest_dir} is not a folder")
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / ex.path.name
    if (dest.exists() or dest.is_symlink()) and not force:
        raise ExampleError(f"{dest} exists; use --force to overwrite")
    write_file(dest, read_bytes(ex.path, limit=EXAMPLE_LIMIT, what="example"), "project file")
    return dest
