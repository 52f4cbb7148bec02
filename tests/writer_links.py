"""Every command that writes a file or folder the user names, with a symbolic link planted at
that name: shared by the link tests and the input fuzzer (``scripts/fuzz_inputs.py``).

A link in a folder someone sent can point at a shell start-up file or another project; every
writer must replace the link or refuse, and never change what the link points at.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from designer.cli.exports import EXPORTERS
from designer.cli.main import main
from designer.core.paths import projects_dir
from tests._paths import DATA

TWO_NODE = DATA / "acceptance" / "two-node-roce.fabric.json"
NCCL = DATA / "acceptance" / "nccl_tests_232_all_reduce_perf.txt"
SWEEP = {"generate": {"kind": "rail", "gear": ["roce-400"], "sus": [1]},
         "objectives": ["cost_per_gpu"]}


@dataclass(frozen=True)
class Writer:
    name: str
    argv: tuple[str, ...]  # {design} {k8} {out} {quote} {ig} {spec} {nccl} filled in
    folder: bool = False  # the output is a folder


def _export_cases() -> list[Writer]:
    out = []
    for fmt, exp in sorted(EXPORTERS.items()):
        suffix = ".svg" if fmt == "image" else exp.suffix
        folder = suffix == "/"
        target = "{out}" if folder else "{out}" + suffix
        # htsim's fat trees need two switch tiers: the k-ary fat tree, not the two-node design
        design = "{k8}" if fmt == "htsim" else "{design}"
        out.append(Writer(f"export-{fmt}", ("export", fmt, design, "-o", target), folder))
    return out


WRITERS: list[Writer] = [
    *_export_cases(),
    Writer("compare-xlsx", ("compare", "{design}", "{design}", "-o", "{out}.xlsx")),
    Writer("compare-html", ("compare", "{design}", "{design}", "-o", "{out}.html")),
    Writer("sweep", ("sweep", "{spec}", "--workers", "0", "-o", "{out}.csv")),
    Writer("acceptance-plan", ("acceptance", "{design}", "-o", "{out}"), folder=True),
    Writer("acceptance-csv", ("acceptance", "check", "{design}", "{nccl}", "--csv",
                              "{out}.csv")),
    Writer("acceptance-report", ("acceptance", "check", "{design}", "{nccl}", "--report",
                                 "{out}.html")),
    Writer("floor", ("floor", "{design}", "--place", "-o", "{out}.fabric.json")),
    Writer("prices", ("prices", "import", "{design}", "{quote}", "-o", "{out}.fabric.json")),
    Writer("latency", ("latency", "set", "{design}", "--tech", "eth", "--nic-ns", "500", "-o",
                       "{out}.fabric.json")),
    Writer("generate", ("generate", "rail", "--sus", "1", "-o", "{out}.fabric.json",
                        "--force")),
    Writer("import-infragraph", ("import", "infragraph", "{ig}", "-o", "{out}.fabric.json",
                                 "--force")),
]


def inputs(folder: Path) -> dict[str, str]:
    """The files the writers read, made in ``folder``: a design with a floor plan, a quote, an
    InfraGraph file, a sweep spec and an nccl-tests log."""
    folder.mkdir(parents=True, exist_ok=True)
    design = folder / "design.fabric.json"
    if not design.exists():
        shutil.copy(TWO_NODE, folder / "src.fabric.json")
        assert main(["floor", str(folder / "src.fabric.json"), "--place", "-o",
                     str(design)]) == 0
        (folder / "quote.csv").write_text("part id;unit price;currency\nsn5600;20000;USD\n")
        assert main(["export", "infragraph", str(design), "-o", str(folder / "ig.json")]) == 0
        (folder / "s.sweep.json").write_text(json.dumps(SWEEP))
    return {"design": str(design), "quote": str(folder / "quote.csv"),
            "ig": str(folder / "ig.json"), "spec": str(folder / "s.sweep.json"),
            "nccl": str(NCCL), "k8": str(projects_dir() / "k-ary-fat-tree-k8.fabric.json")}


def run_with_link(w: Writer, folder: Path, files: dict[str, str]) -> tuple[int, Path, Path]:
    """Run writer ``w`` with a link at its output naming a file (or folder) outside
    ``folder``; returns (exit code, the output path, what the link pointed at)."""
    work = folder / w.name
    work.mkdir(parents=True, exist_ok=True)
    outside = folder / f"{w.name}-outside"
    argv = [a.format(out=str(work / "out"), **files) for a in w.argv]
    target = Path(next(a for a in argv if a.startswith(str(work / "out"))))
    if w.folder:
        outside.mkdir(exist_ok=True)
        (outside / "keep").write_text("keep me")
    else:
        outside.write_text("keep me")
    if target.is_symlink() or target.exists():
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()
    target.symlink_to(outside)
    code = main(argv)
    return code, target, outside


def untouched(outside: Path) -> bool:
    """True when what the link pointed at is as it was."""
    if outside.is_dir():
        return [p.name for p in outside.iterdir()] == ["keep"] and \
            (outside / "keep").read_text() == "keep me"
    return outside.read_text() == "keep me"
