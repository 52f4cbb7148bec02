"""``export htsim``: a folder htsim runs as it stands.

It holds ``design.topo`` (the fat tree), one ``PATTERN.cm`` per pattern, ``run.sh`` (every
pattern under ECMP with ``htsim_roce`` and under spraying with ``htsim_eqds``, every flag
those programs need) and ``prediction.json`` (the tool's figures for the same flows and
routing, which ``designer simulate check`` sets beside htsim's output).

The flags, from csg-htsim's ``sim/datacenter/main_roce.cpp`` and ``main_eqds.cpp``:

- ``-linkspeed`` (Mb/s): the hosts' NIC rate; the topology file sets only the switches', and
  without it the hosts run at htsim's default 100 Gb/s.
- ``-end`` (µs): htsim stops there (default 1 ms, before a large flow finishes); set to 20
  times the flows' completion on an ideal fabric plus a millisecond, as htsim stops early
  anyway once no event is left.
- ``-nodes``: htsim checks the matrix's node count against it (default 432).
- routing: ``htsim_roce -strat ecmp_host -paths 1`` (lossless RoCE with PFC, one path per
  flow: the switches hash the flow id; ``-paths`` does nothing else there but must be set);
  ``htsim_eqds -strat ecmp_host -paths N`` (EQDS sprays every packet over N path ids, N a
  power of two: ``eqds.cpp`` masks with N - 1).

Nothing is written when the export is refused. Exporting into a folder again removes the
htsim output of the patterns it rewrites (it belonged to the old matrices).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.simulate.htsim import (
    DEFAULT_PATTERNS,
    Flows,
    HostMap,
    flows,
    host_map,
    matrix_chunks,
    read_topology,
    split_large,
    topology_text,
)
from designer.core.simulate.htsim_check import PREDICTION, ROUTINGS, ideal_us, predict
from designer.core.simulate.htsim_fit import MAX_FLOW_BYTES, fat_tree_problems, refit
from designer.core.simulate.htsim_measure import round_trip_us
from designer.core.simulate.tiers import SimulatorInputError, clos_tiers

# the flow-by-flow model past this many flows takes minutes: left unpredicted, said so
PREDICT_MAX_FLOWS = 200_000
END_FACTOR = 20
END_MARGIN_US = 1000
MAX_SPRAY_PATHS = 256  # eqds.cpp's own default path entropy
PROGRAM = {"ecmp": "htsim_roce", "spray": "htsim_eqds"}
REFIT_FILE = "htsim-design.fabric.json"  # the re-expressed design, when it was


@dataclass
class HtsimExport:
    folder: Path
    hosts: int
    files: list[tuple[Path, int]] = field(default_factory=list)  # (path, flows); 0: not a matrix
    refit_note: str = ""  # how the design was re-expressed for htsim, if it was
    split: dict[str, int] = field(default_factory=dict)  # pattern -> flows split in parts
    not_predicted: dict[str, str] = field(default_factory=dict)
    spray_paths: int = 0

    def summary(self) -> str:
        mats = [(p, n) for p, n in self.files if p.suffix == ".cm"]
        parts = ", ".join(f"{p.name} ({n:,} flows)" for p, n in mats)
        out = [f"wrote {self.folder}: design.topo ({self.hosts:,} hosts), {parts}, run.sh, "
               f"{PREDICTION}"]
        if self.refit_note:
            out.append(self.refit_note + f" (saved as {REFIT_FILE})")
        for pat, k in self.split.items():
            out.append(f"{pat}: {k:,} flows of 2^31 bytes or more written as several flows of "
                       "the same pair (same bytes): htsim reads a flow's size as a 32-bit int")
        for pat, why in self.not_predicted.items():
            out.append(f"{pat}: no prediction ({why})")
        first = mats[0][0].stem if mats else "ring"
        out.append(f"next: sh {self.folder}/run.sh (htsim_roce and htsim_eqds on PATH or in "
                   f"$HTSIM_BIN; e.g. htsim_roce -topo design.topo -tm {first}.cm ...), then "
                   f"designer simulate check {self.folder}")
        return "\n".join(out)


def htsim_design(project: Project, catalog: Catalog) -> tuple[Project, Catalog, str]:
    """The design htsim runs: this one when its fat tree takes it, else the design generated
    again with smaller generic switches (``htsim_fit``), with a sentence saying so."""
    ct = clos_tiers(project, catalog)
    problems = fat_tree_problems(read_topology(topology_text(project, catalog, ct)))
    if not problems:
        return project, catalog, ""
    for radix, alt in refit(project, catalog, len(ct.tiers)):
        cat = alt.catalog(catalog)
        try:
            act = clos_tiers(alt, cat)
            ok = not fat_tree_problems(read_topology(topology_text(alt, cat, act)))
        except SimulatorInputError:
            continue
        if ok and act.hosts == ct.hosts and len(act.tiers) == len(ct.tiers):
            was = " / ".join(f"{t.radix_down + t.radix_up}" for t in ct.tiers)
            now = " / ".join(f"{t.radix_down + t.radix_up}" for t in act.tiers)
            leaves_split = act.tiers[0].radix_down != ct.tiers[0].radix_down
            return alt, cat, (
                f"re-expressed for htsim: {problems[0]}, so the same design is built from "
                f"{radix}-port switches (ports per tier {was} -> {now}; same GPUs, servers "
                "and oversubscription"
                + ("; GPUs of one real leaf that land on two of htsim's leaves talk through "
                   "a spine there" if leaves_split else "")
                + "); the prediction is made on this re-expressed design")
    raise SimulatorInputError(problems[0] + (
        "" if project.generator else "; the design was not generated, so it cannot be "
        "re-expressed with smaller switches"))


def spray_paths(project: Project, catalog: Catalog) -> int:
    """Path ids EQDS sprays over: a power of two at least the distinct up-paths from a leaf
    (uplinks at each tier), at most eqds.cpp's default 256."""
    ct = clos_tiers(project, catalog)
    ups = int(np.prod([t.radix_up for t in ct.tiers if t.radix_up] or [1]))
    n = 1
    while n < ups and n < MAX_SPRAY_PATHS:
        n *= 2
    return max(n, 2)


def run_script(title: str, hosts: int, line_gbps: int, ends: dict[str, int],
               paths: int) -> str:
    """``run.sh``: every pattern under both routings, output beside it."""
    mbps = line_gbps * 1000
    lines = [
        "#!/bin/sh",
        f"# htsim runs of {title}, as 'designer export htsim' wrote them.",
        "# ECMP: htsim_roce (lossless RoCE with PFC, one hashed path per flow);",
        f"# spraying: htsim_eqds (EQDS, every packet on one of {paths} path ids).",
        "# Hosts at the design's line rate (-linkspeed, Mb/s); -end (us) is 20 times the",
        "# flows' completion on an ideal fabric plus 1 ms.",
        "# Usage: sh run.sh [PATTERN ...]   (default: every pattern)",
        "#        ROUTINGS=ecmp sh run.sh ...  (default: ecmp spray)",
        "# Programs: $HTSIM_BIN/htsim_roce and htsim_eqds, else found on PATH.",
        "# Then: designer simulate check <this folder>",
        'cd "$(dirname "$0")" || exit 1',
        "prog() {",
        '    if [ -n "$HTSIM_BIN" ] && [ -x "$HTSIM_BIN/$1" ]; then echo "$HTSIM_BIN/$1"',
        '    elif command -v "$1" >/dev/null 2>&1; then command -v "$1"',
        '    else echo "run.sh: $1 not found: build csg-htsim (make in sim/, then '
        'sim/datacenter) and put sim/datacenter on PATH or set HTSIM_BIN" >&2; return 1; fi',
        "}",
        "ROCE=$(prog htsim_roce) || exit 127",
        "EQDS=$(prog htsim_eqds) || exit 127",
        f'PATTERNS="${{*:-{" ".join(ends)}}}"',
        'ROUTINGS="${ROUTINGS:-ecmp spray}"',
        "for p in $PATTERNS; do",
        '    [ -f "$p.cm" ] || { echo "run.sh: no $p.cm here" >&2; exit 2; }',
        '    case "$p" in',
    ]
    for pat, end in ends.items():
        lines.append(f"        {pat}) END={end} ;;")
    lines += [
        "    esac",
        f'    common="-topo design.topo -tm $p.cm -nodes {hosts} -linkspeed {mbps} -end $END"',
        '    for r in $ROUTINGS; do',
        '        case "$r" in',
        '        ecmp) echo "$p: ECMP (htsim_roce) -> $p.ecmp.out"',
        '            "$ROCE" $common -strat ecmp_host -paths 1 -o "$p.ecmp.dat" > '
        '"$p.ecmp.out" 2>&1 || echo "run.sh: htsim_roce failed on $p (see $p.ecmp.out)" >&2 ;;',
        '        spray) echo "$p: spraying (htsim_eqds) -> $p.spray.out"',
        f'            "$EQDS" $common -strat ecmp_host -paths {paths} -o "$p.spray.dat" > '
        '"$p.spray.out" 2>&1 || echo "run.sh: htsim_eqds failed on $p (see $p.spray.out)" '
        '>&2 ;;',
        '        *) echo "run.sh: routing $r: ecmp or spray" >&2; exit 2 ;;',
        "        esac",
        "    done",
        "done",
        "",
    ]
    return "\n".join(lines)


def _gpu_numbering(c, hm: HostMap, hosts: int) -> tuple[np.ndarray, np.ndarray]:
    """(GPU id of every htsim host, htsim host of every GPU id; -1 where none)."""
    gid = c.gpu_base[hm.servers][:, None] + np.arange(hm.gpus)[None, :]
    host_gpu = np.full(hosts, -1, np.int64)
    ok = hm.host >= 0
    host_gpu[hm.host[ok]] = gid[ok]
    gpu_host = np.full(c.n_gpus, -1, np.int64)
    gpu_host[gid[ok]] = hm.host[ok]
    return host_gpu, gpu_host


def write_htsim(project: Project, catalog: Catalog, folder: str | Path,
                patterns: tuple[str, ...] = DEFAULT_PATTERNS, nbytes: int = 1 << 30,
                nodes: int | None = None, predict_flows: bool = True) -> HtsimExport:
    """Write the folder; everything is worked out (and any refusal raised) before the first
    file is written."""
    from designer.core.errors import DesignerError
    from designer.core.safe_io import ExportFolder, FileRefused
    from designer.core.solver.compile import compile_project
    from designer.core.traffic.network import build_network
    from designer.core.traffic.patterns import permutation
    from designer.core.writers.output import ExportError

    d = Path(folder)
    if d.exists() and not d.is_dir():
        raise ExportError(f"{d} is a file; give a folder")
    if nbytes < 1:
        raise SimulatorInputError("the buffer must be at least one byte")
    proj, cat, note = htsim_design(project, catalog)
    ct = clos_tiers(proj, cat)
    topo = topology_text(proj, cat, ct)
    line = ct.tiers[0].down_gbps
    hm = host_map(proj, cat, ct)
    if nodes is not None:
        if not 2 <= nodes <= hm.nodes:
            raise SimulatorInputError(f"--nodes: between 2 and {hm.nodes:,}")
        hm = HostMap(hm.host[:nodes], nodes, hm.gpus, hm.servers[:nodes])
    c = compile_project(proj, cat)
    host_gpu, gpu_host = _gpu_numbering(c, hm, ct.hosts)
    perm = None
    if "permutation" in patterns:
        pm = permutation(c, 0)
        perm = (pm.src, pm.dst)
    out = HtsimExport(d, ct.hosts, refit_note=note)
    mats: dict[str, Flows] = {}
    for pat in patterns:  # every refusal before anything is written
        f, k = split_large(flows(hm, pat, nbytes, gpu_host, perm))
        if not len(f):
            raise SimulatorInputError(f"the {pat} pattern has no flows across nodes here")
        mats[pat] = f
        if k:
            out.split[pat] = k
    ends = {p: int(np.ceil(END_FACTOR * ideal_us(f, line) + END_MARGIN_US))
            for p, f in mats.items()}
    for p, end in ends.items():
        if end > MAX_FLOW_BYTES:  # htsim reads -end (µs) with atoi: a 32-bit int as well
            raise SimulatorInputError(
                f"the {p} pattern would need htsim to run {end / 1e6:,.0f} s of simulated "
                "time, past its 32-bit -end; pass smaller --bytes or --nodes")
    paths = spray_paths(proj, cat)
    out.spray_paths = paths
    prediction = {"design": proj.name, "line_gbps": line, "hosts": ct.hosts,
                  "spray_paths": paths, "refit": note, "patterns": {}}
    net = build_network(c) if predict_flows else None
    for pat, f in mats.items():
        entry: dict = {"flows": len(f), "bytes": int(f.size.sum()),
                       "ideal_us": ideal_us(f, line), "end_us": ends[pat], "routings": {}}
        if predict_flows and len(f) > PREDICT_MAX_FLOWS:
            out.not_predicted[pat] = (f"{len(f):,} flows; the prediction is made up to "
                                      f"{PREDICT_MAX_FLOWS:,}")
        elif predict_flows:
            try:
                rtt = {r: round_trip_us(ct, f.src, f.dst, r) for r in ROUTINGS}
                for r in ROUTINGS:
                    entry["routings"][r] = predict(c, net, f, host_gpu, line, pat, r,
                                                   rtt_us=rtt[r], path_ids=paths)
                entry["spray_even"] = predict(c, net, f, host_gpu, line, pat, "spray",
                                              rtt_us=rtt["spray"])
                entry["ecmp_without_pfc"] = predict(c, net, f, host_gpu, line, pat, "ecmp",
                                                    pfc=False, rtt_us=rtt["ecmp"])
            except DesignerError as exc:
                out.not_predicted[pat] = str(exc)
        prediction["patterns"][pat] = entry
    # write: through the one safe path (a linked folder or a special file refused, a link at
    # a file's name replaced, never written through; run.sh executable within the umask)
    try:
        folder = ExportFolder(d, "htsim export")
        folder.write_stream("design.topo", [topo])
        out.files.append((d / "design.topo", 0))
        for pat, f in mats.items():
            # htsim's output of an earlier export's matrix would be read against this one
            for r in ROUTINGS:
                for ext in ("out", "dat"):
                    (d / f"{pat}.{r}.{ext}").unlink(missing_ok=True)
            folder.write_stream(f"{pat}.cm", matrix_chunks(
                ct.hosts, f, f"{pat} of {nbytes:,} bytes per GPU on {proj.name}"))
            out.files.append((d / f"{pat}.cm", len(f)))
        folder.write("run.sh", run_script(proj.name, ct.hosts, line, ends, paths),
                     executable=True)
        out.files.append((d / "run.sh", 0))
        folder.write(PREDICTION, json.dumps(prediction, indent=1) + "\n")
        out.files.append((d / PREDICTION, 0))
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    if note:  # the design htsim runs, for 'designer load' and the window
        from designer.core.fileformat import save_project

        save_project(proj, d / REFIT_FILE, keep_backup=False)
        out.files.append((d / REFIT_FILE, 0))
    return out
