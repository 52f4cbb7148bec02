"""Seeded hostile and odd inputs for the InfraGraph reader, acceptance results, job traces and
the writers (a link or a special file planted at the output), in the manner of
``tests.input_mutations`` (which registers these surfaces).

Known-figure inputs must be read exactly (``wrong`` otherwise); an import that is accepted
must write a project the tool reads back (``invalid`` otherwise); a writer must leave what a
link at its output pointed at unchanged (``escape``) and a FIFO at its output a FIFO
(``damage``); nothing from an input may reach the terminal as a control character
(``injection``).
"""

from __future__ import annotations

import copy
import json
import os
import random
import stat
from collections.abc import Iterator
from pathlib import Path

import yaml

from designer.cli.main import main
from tests import infragraph_cases as ig
from tests._paths import DATA
from tests.fuzz_harness import Case
from tests.writer_links import WRITERS, inputs

NCCL_FILES = sorted((DATA / "acceptance").glob("nccl_*.txt"))
PERFTEST_FILES = sorted((DATA / "acceptance").glob("ib_*.txt"))
TWO_NODE = DATA / "acceptance" / "two-node-roce.fabric.json"
ODD_VALUES = (-1, 0, 1e308, 1e-300, 10**30, "8", [8], {"a": 1}, None, True, 2.5, "nan",
              float(10**20))
ODD_NAMES = ("服务器", "交换机", "a" * 150, "x\x1b[2J", "r\u202el", "a b", "A", "a.b", "a_b",
             "a-b", "=cmd", "..", "/etc/passwd", "")


def _dump(data: object, rng: random.Random) -> tuple[str, bytes]:
    if rng.random() < 0.3:
        return "yaml", yaml.safe_dump(data, allow_unicode=True).encode()
    return "json", json.dumps(data, ensure_ascii=rng.random() < 0.5).encode()


def _damage(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    from tests.input_mutations import _damage_bytes

    return _damage_bytes(data, rng)


def _special(rng: random.Random, folder: Path, name: str, suffix: str) -> tuple[str, Path]:
    from tests.input_mutations import _special as special

    return special(rng, folder, name, suffix)


# -- InfraGraph ----------------------------------------------------------------------------------
def _base_infragraph(fx: dict) -> tuple[dict, int, int]:
    """The fixture design as InfraGraph (this tool's own export), with its device and cable
    counts."""
    if "ig" not in fx:
        from designer.core.fileformat import load_project

        out = fx["out"]
        out.mkdir(exist_ok=True)
        path = out / "base.infragraph.json"
        assert main(["export", "infragraph", str(fx["project"]), "-o", str(path)]) == 0
        p = load_project(fx["project"])
        fx["ig"] = (json.loads(path.read_text()), len(p.fabric.devices),
                    int(p.fabric.links.n_cables))
    return fx["ig"]


def _swap(data: object, rng: random.Random, keys: tuple[str, ...]) -> object:
    """One value under one of ``keys`` somewhere in ``data`` replaced by an odd one."""
    spots = []

    def walk(o):
        if isinstance(o, dict):
            for k, v in o.items():
                if k in keys:
                    spots.append((o, k))
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(data)
    if spots:
        o, k = rng.choice(spots)
        o[k] = rng.choice(ODD_NAMES if k == "name" else ODD_VALUES)
    return data


def infragraph_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    base, n_dev, n_cables = _base_infragraph(fx)
    for i in range(count):
        name = f"ig-{i:05d}"
        roll = rng.random()
        check, expect = "infragraph", None
        suffix = ".json"
        if roll < 0.04:
            kind, path = _special(rng, folder, name, suffix)
        else:
            if roll < 0.25:  # known figures: this tool's export, as JSON or YAML
                kind, data = _dump(base, rng)
                suffix = ".yaml" if kind == "yaml" else ".json"
                expect = [n_dev, n_cables]
            elif roll < 0.45:
                kind, data = _damage(json.dumps(base).encode(), rng)
            elif roll < 0.65:
                kind = "odd-value"
                kind2, data = _dump(_swap(copy.deepcopy(base), rng,
                                          ("count", "name", "instance", "component", "device",
                                           "gigabits_per_second", "scheme", "choice")), rng)
                suffix = ".yaml" if kind2 == "yaml" else ".json"
            else:
                kind = rng.choice(("alias-bomb", "composed", "deep-paths", "own-switches",
                                   "speed", "names", "big-gear"))
                if kind == "alias-bomb":
                    text = ig.alias_bomb(rng.randint(2, 12), rng.randint(2, 10))
                    data, suffix = text.encode(), ".yaml"
                elif kind == "composed":
                    data = json.dumps(ig.composed(rng.randint(1, 9), rng.randint(2, 14))).encode()
                elif kind == "deep-paths":
                    data = json.dumps(ig.deep_paths(rng.choice((2, 10, 100, 1000)))).encode()
                elif kind == "own-switches":
                    data = json.dumps(ig.servers_on_own_switches(
                        rng.choice((10, 1000, 40_000)))).encode()
                elif kind == "speed":
                    data = json.dumps(ig.pair(link_gbps=(
                        rng.choice(("gigabits_per_second", "gigabytes_per_second")),
                        rng.choice((0.5, 1e-300, 1e300, 2e18, 1e308, 400, 3200, 3201))))).encode()
                elif kind == "names":
                    data = json.dumps(ig.pair(rng.choice(ODD_NAMES) or "s",
                                              rng.choice(ODD_NAMES) or "w")).encode()
                else:
                    data = json.dumps(ig.pair(gpus=rng.choice((8, 1024, 1025, 10**7)),
                                              ports=rng.choice((4, 100_000, 10**7)))).encode()
            path = folder / f"{name}{suffix}"
            path.write_bytes(data)
        yield Case(f"{name}-{kind}", ("import", "infragraph", str(path), "-o",
                                      _out(fx, f"{name}.fabric.json"), "--force"),
                   check, expect, "infragraph")


def _out(fx: dict, name: str) -> str:
    fx["out"].mkdir(exist_ok=True)
    return str(fx["out"] / name)


def check_infragraph(stdout: str, case: Case) -> str:
    from designer.core.errors import DesignerError
    from designer.core.fileformat import load_project

    out = case.argv[case.argv.index("-o") + 1]
    try:
        p = load_project(out)
    except DesignerError as exc:
        return f"invalid: the import wrote a project the tool refuses: {exc}"
    if case.expect is not None:
        got = [len(p.fabric.devices), int(p.fabric.links.n_cables)]
        if got != case.expect:
            return f"{got} devices and cables read, {case.expect} written"
    return ""


# -- acceptance results ------------------------------------------------------------------------
def acceptance_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    from designer.core.acceptance.results import parse_nccl

    for i in range(count):
        name = f"acc-{i:05d}"
        src = rng.choice(NCCL_FILES + PERFTEST_FILES)
        text = src.read_text()
        roll = rng.random()
        check, expect = "", None
        target = folder / src.name.replace(".txt", f"-{name}.txt")
        if src in PERFTEST_FILES:  # keep the name the scripts write
            host = rng.choice(("node1", "gpu_1", "a.b", "x-y"))
            target = folder / f"ib_write_bw_{host}_n{i}_rail{i % 8}.txt"
        if roll < 0.04:
            kind, path = _special(rng, folder, name, ".txt")
        else:
            if roll < 0.3 and src in NCCL_FILES:
                reps = rng.choice((1, 2, 50, 2000))
                kind = f"reruns-{reps}"
                data = ((text + "\n") * reps).encode()
                check, expect = "acceptance", len(parse_nccl(text, "x")) * reps
            elif roll < 0.6:
                kind, data = _damage(text.encode(), rng)
            elif roll < 0.85:
                kind = "odd-number"
                lines = text.splitlines(keepends=True)
                k = rng.randrange(len(lines))
                parts = lines[k].split(" ")
                j = rng.randrange(len(parts))
                parts[j] = str(rng.choice(("1e308", "nan", "inf", "-1", "9" * 400, "\x1b[2J",
                                           "=1+1", "")))
                lines[k] = " ".join(parts)
                data = "".join(lines).encode()
            else:
                kind = rng.choice(("long-line", "no-newline", "cr-only"))
                data = (text + "x" * 2_000_000 if kind == "long-line" else
                        text.replace("\n", "") if kind == "no-newline" else
                        text.replace("\n", "\r")).encode()
            path = target
            path.write_bytes(data)
        yield Case(f"{name}-{kind}", ("acceptance", "check", str(TWO_NODE), str(path), "--json"),
                   check, expect, "acceptance")


def check_acceptance(stdout: str, case: Case) -> str:
    runs = json.loads(stdout)["runs"]
    return "" if len(runs) == case.expect else f"{len(runs)} runs read, {case.expect} written"


# -- job traces ---------------------------------------------------------------------------------
def _trace(rng: random.Random) -> tuple[str, str, int]:
    """(format, text, jobs) of a small trace in one of the public formats."""
    n = rng.randint(1, 12)
    fmt = rng.choice(("csv", "acme", "pai", "philly"))
    jobs = [(f"j{k}", round(rng.uniform(0, 48), 3), rng.choice((8, 16, 32)),
             round(rng.uniform(0.1, 5), 3)) for k in range(n)]
    if fmt == "csv":
        text = "job,arrival_h,gpus,duration_h\n" + "".join(
            f"{j},{a},{g},{d}\n" for j, a, g, d in jobs)
    elif fmt == "acme":
        text = "job_id,user,gpu_num,submit_time,start_time,end_time\n" + "".join(
            f"{j},u,{g},{a * 3600},{a * 3600},{(a + d) * 3600}\n" for j, a, g, d in jobs)
    elif fmt == "pai":
        text = "".join(f"{j},t,1,Terminated,{a * 3600},{(a + d) * 3600},1,1,{g * 100},V100\n"
                       for j, a, g, d in jobs)
    else:
        text = json.dumps([{"jobid": j, "submitted_time": a * 3600, "attempts": [
            {"start_time": a * 3600, "end_time": (a + d) * 3600,
             "detail": [{"ip": f"h{k}", "gpus": [str(x) for x in range(8)]}
                        for k in range(g // 8)]}]} for j, a, g, d in jobs])
    return fmt, text, n


def trace_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    for i in range(count):
        name = f"trace-{i:05d}"
        fmt, text, n = _trace(rng)
        suffix = ".json" if fmt == "philly" else ".csv"
        roll = rng.random()
        check, expect = "", None
        argv_extra: tuple[str, ...] = ("--format", fmt) if fmt == "pai" else ()
        if roll < 0.04:
            kind, path = _special(rng, folder, name, suffix)
        else:
            if roll < 0.25:
                kind, data = f"{fmt}-plain", text.encode()
                check, expect = "trace", n
            elif roll < 0.5:
                kind, data = _damage(text.encode(), rng)
            elif roll < 0.85:
                kind = f"{fmt}-odd"
                odd = rng.choice(("1e19", "inf", "-inf", "nan", "NaN", "1e30", "-5", "0",
                                  "1e400", "3.6e12", "1e300", "", "x", "[]", "null", "{}"))
                if fmt == "philly":
                    data = json.loads(text)
                    e = rng.choice(data)
                    field = rng.choice(("submitted_time", "attempts", "start_time", "detail"))
                    value = json.loads(odd) if odd in ("[]", "null", "{}") else odd
                    if field in ("start_time", "detail"):
                        e["attempts"][0][field] = value
                    else:
                        e[field] = value
                    data = json.dumps(data).replace('"nan"', "NaN").encode()
                else:
                    lines = text.splitlines()
                    k = rng.randrange(1 if fmt != "pai" else 0, len(lines))
                    parts = lines[k].split(",")
                    parts[rng.randrange(len(parts))] = odd
                    lines[k] = ",".join(parts)
                    data = ("\n".join(lines) + "\n").encode()
            else:
                kind = rng.choice(("short-row", "bare-cr", "long-field", "many-jobs"))
                if kind == "short-row":
                    data = (text + "j99,u\n").encode()
                elif kind == "bare-cr":
                    data = text.replace(",", "\r", 1).encode()
                elif kind == "long-field":
                    data = text.replace("j0", "j" * 200_000, 1).encode()
                else:
                    fmt, data = "csv", ("job,arrival_h,gpus,duration_h\n" + "".join(
                        f"m{k},{k / 1000},8,1\n" for k in range(60_000))).encode()
                    suffix, argv_extra = ".csv", ()
            path = folder / f"{name}{suffix}"
            path.write_bytes(data)
        yield Case(f"{name}-{kind}", ("cluster", str(fx["project"]), str(path), "--quiet",
                                      "--json", "--no-failures", *argv_extra),
                   check, expect, "trace")


def check_trace(stdout: str, case: Case) -> str:
    jobs = json.loads(stdout)["jobs"]
    return "" if len(jobs) == case.expect else f"{len(jobs)} jobs read, {case.expect} written"


# -- writers: links and special files planted at the output ---------------------------------------
CHEAP_WRITERS = [w for w in WRITERS if w.name not in ("export-report", "export-image",
                                                      "compare-html", "compare-xlsx",
                                                      "sweep")]


def writer_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    files = inputs(folder / "inputs")
    for i in range(count):
        w = rng.choice(CHEAP_WRITERS if rng.random() < 0.9 else WRITERS)
        name = f"w-{i:05d}"
        work = folder / name
        work.mkdir()
        argv = [a.format(out=str(work / "out"), **files) for a in w.argv]
        target = Path(next(a for a in argv if a.startswith(str(work / "out"))))
        outside = folder / f"{name}-outside"
        plant = rng.choice(("link-file", "link-folder", "dangling", "fifo", "link-fifo",
                            "hardlink", "link-in-folder"))
        if plant in ("link-file", "hardlink"):
            outside.write_text("keep me")
            (os.link if plant == "hardlink" else os.symlink)(outside, target)
        elif plant == "link-folder":
            outside.mkdir()
            (outside / "keep").write_text("keep me")
            target.symlink_to(outside)
        elif plant == "dangling":
            target.symlink_to(outside)
        elif plant == "fifo":
            os.mkfifo(target) if not w.folder else (target.mkdir(), os.mkfifo(target / "plan.json"))
        elif plant == "link-fifo":
            os.mkfifo(outside)
            target.symlink_to(outside)
        else:  # a link inside the output folder, at a name the export writes
            outside.write_text("keep me")
            if w.folder:
                target.mkdir()
                for sub in ("plan.json", "hosts.txt", "design.topo", "network.yml",
                            "servers"):
                    (target / sub).symlink_to(outside)
            else:
                target.symlink_to(outside)
        yield Case(f"{name}-{w.name}-{plant}", tuple(argv), "writer",
                   {"outside": str(outside), "plant": plant, "target": str(target)}, "writer")


def check_writer(stdout: str, case: Case) -> str:
    outside = Path(case.expect["outside"])
    plant = case.expect["plant"]
    target = Path(case.expect["target"])
    if plant == "fifo":
        fifo = target / "plan.json" if target.is_dir() else target
        if not stat.S_ISFIFO(os.lstat(fifo).st_mode):
            return "damage: the FIFO at the output was replaced"
        return ""
    if plant == "link-fifo":
        return "" if stat.S_ISFIFO(os.lstat(outside).st_mode) else \
            "damage: the FIFO a link pointed at was replaced"
    if plant == "dangling":
        return "escape: a file was made where a dangling link pointed" if outside.exists() \
            else ""
    if outside.is_dir():
        inside = sorted(p.name for p in outside.iterdir())
        return "" if inside == ["keep"] and (outside / "keep").read_text() == "keep me" else \
            f"escape: the folder a link pointed at now holds {inside[:5]}"
    return "" if outside.read_text() == "keep me" else \
        "escape: the file a link pointed at was rewritten"


# which checks run on every ending (a refusal may still have written through a link)
ALWAYS = {"writer"}
SURFACES_THIRD = ("infragraph", "acceptance", "trace", "writer")
GENERATORS_THIRD = {"infragraph": infragraph_cases, "acceptance": acceptance_cases,
                    "trace": trace_cases, "writer": writer_cases}
CHECKS_THIRD = {"infragraph": check_infragraph, "acceptance": check_acceptance,
                "trace": check_trace, "writer": check_writer}
