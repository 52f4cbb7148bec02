"""The ASTRA-sim export runs as printed: the Chakra trace it writes is the one Chakra's own
writer makes, run.sh finds the program and reads ASTRA-sim's output, and, where ASTRA-sim is
built, the run finishes and its all-reduce time sits beside the tool's estimate."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.cli.main import main
from designer.core.fileformat import load_project
from designer.core.simulate.astrasim import (
    PROGRAM_MULTI_DIM,
    TRACE_FILE,
    read_network_yaml,
    run_script,
    write_astrasim,
)
from designer.core.simulate.chakra import (
    COMM_COLL_NODE,
    COMM_TYPE,
    attributes,
    collective_trace,
    read_trace,
)
from designer.core.solver import solve
from tests._paths import PROJECTS

# astra-sim examples/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce.0.et and .1.et
# (written by its generator_scripts/all_reduce.py through Chakra's protobuf classes)
ASTRA_ALL_REDUCE_8NPUS_1MB = {
    0: "070a05302e302e34481214616c6c5f7265647563655f386e7075735f314d421807520e0a0969735f637075"
       "5f6f70d80100520d0a09636f6d6d5f747970654800520f0a09636f6d6d5f73697a6548808040",
    1: "070a05302e302e344a0801121461" "6c6c5f7265647563655f386e7075735f314d421807520e0a0969735f"
       "6370755f6f70d80100520d0a09636f6d6d5f747970654800520f0a09636f6d6d5f73697a6548808040",
}


@pytest.mark.parametrize("rank", [0, 1])
def test_trace_is_byte_for_byte_chakras(rank: int) -> None:
    ours = collective_trace("all-reduce", 1 << 20, "all_reduce_8npus_1MB", rank)
    assert ours.hex() == ASTRA_ALL_REDUCE_8NPUS_1MB[rank]


@given(op=st.sampled_from(sorted(COMM_TYPE)), nbytes=st.integers(1, 2**62),
       node_id=st.integers(0, 2**40))
def test_trace_reads_back(op: str, nbytes: int, node_id: int) -> None:
    meta, node = read_trace(collective_trace(op, nbytes, "x", node_id))
    assert meta == {1: [b"0.0.4"]}
    assert node.get(1, [0]) == [node_id] and node[3] == [COMM_COLL_NODE]
    assert attributes(node) == {"is_cpu_op": 0, "comm_type": COMM_TYPE[op],
                                "comm_size": nbytes}


def test_trace_refuses_what_chakra_cannot_say() -> None:
    with pytest.raises(ValueError, match="no collective"):
        collective_trace("broadcast-ish", 10, "x")
    with pytest.raises(ValueError, match="at least one byte"):
        collective_trace("all-reduce", 0, "x")


def _export(catalog, name: str, out: Path, nbytes: int = 1 << 30):
    p = load_project(PROJECTS / f"{name}.fabric.json", catalog)
    return write_astrasim(p, solve(p, catalog=catalog), catalog, out, trace_bytes=nbytes)


def test_export_holds_what_run_sh_needs(catalog, tmp_path: Path) -> None:
    ex = _export(catalog, "dgx-superpod-4su-roce-400", tmp_path)
    names = {f.name for f in ex.files}
    assert {"network.yml", "system.json", "remote_memory.json", "run.sh", "prediction.json",
            TRACE_FILE} <= names
    assert os.access(tmp_path / "run.sh", os.X_OK)
    # three dimensions: the congestion-aware backend takes one only, so the unaware one runs
    assert ex.dims == 3 and ex.program == PROGRAM_MULTI_DIM
    pred = json.loads((tmp_path / "prediction.json").read_text())
    assert pred["gpus"] == 1024 and pred["bytes"] == 1 << 30
    assert pred["tool"] and all(t["time_us"] > 0 for t in pred["tool"])
    run = (tmp_path / "run.sh").read_text()
    assert f"PROG={PROGRAM_MULTI_DIM}" in run and "while [ $i -lt 1024 ]" in run
    assert "--workload-configuration=workload/all_reduce " in run
    _, node = read_trace((tmp_path / TRACE_FILE).read_bytes())
    assert attributes(node)["comm_size"] == 1 << 30
    assert attributes(node)["comm_type"] == COMM_TYPE["all-reduce"]


def _fake_astra(folder: Path, finish_ns: list[int]) -> Path:
    """A stand-in for ASTRA-sim: checks it was given the four files and one trace per NPU,
    then logs each NPU's finish as ASTRA-sim does."""
    prog = folder / PROGRAM_MULTI_DIM
    lines = "\n".join(f'echo "[time] [workload] [info] sys[{i}] finished, {t} cycles, '
                      f'exposed communication {t} cycles."' for i, t in enumerate(finish_ns))
    prog.write_text("#!/bin/sh\n"
                    'for a in "$@"; do case "$a" in --workload-configuration=*) '
                    'w=${a#*=} ;; esac; done\n'
                    f'[ -e "$w.{len(finish_ns) - 1}.et" ] || {{ echo "no trace" >&2; exit 3; }}\n'
                    f"{lines}\n")
    prog.chmod(0o755)
    return prog


def test_run_sh_reads_the_last_npu(tmp_path: Path) -> None:
    (tmp_path / TRACE_FILE).write_bytes(collective_trace("all-reduce", 64, "x"))
    (tmp_path / "run.sh").write_text(run_script(PROGRAM_MULTI_DIM, 64, 4, {"ring": 12.5}))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_astra(bin_dir, [1000, 4500, 2000, 3000])
    env = dict(os.environ, ASTRA_SIM_BIN=str(bin_dir))
    out = subprocess.run(["sh", str(tmp_path / "run.sh")], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert "over 4 NPUs: 4.5 us" in out and "tool: ring 12.5 us" in out
    assert sorted(p.name for p in (tmp_path / "workload").iterdir()) == [
        f"all_reduce.{i}.et" for i in range(4)]
    # without the program, a one-line reason and the shell's "not found" status
    env = dict(os.environ, ASTRA_SIM_BIN=str(tmp_path / "none"), PATH="/usr/bin:/bin")
    run = subprocess.run(["sh", str(tmp_path / "run.sh")], env=env, capture_output=True,
                         text=True, check=False)
    assert run.returncode == 127 and "ASTRA_SIM_BIN" in run.stderr


def test_cli_prints_the_next_step(tmp_path: Path, capsys) -> None:
    src = PROJECTS / "dgx-superpod-4su-ib-ndr.fabric.json"
    assert main(["export", "astrasim", str(src), "-o", str(tmp_path / "a"), "--bytes",
                 "64MiB"]) == 0
    out = capsys.readouterr().out
    assert "67,108,864-byte all-reduce" in out and "run.sh" in out and PROGRAM_MULTI_DIM in out
    for size in ("0", str(2**63)):
        assert main(["export", "astrasim", str(src), "-o", str(tmp_path / "b"), "--bytes",
                     size]) == 2
        assert not (tmp_path / "b").exists()  # refused before anything is written


def _astra_sim(program: str) -> str | None:
    folder = os.environ.get("ASTRA_SIM_BIN")
    if folder and os.access(Path(folder) / program, os.X_OK):
        return str(Path(folder) / program)
    return shutil.which(program)


def test_astra_sim_runs_the_export(catalog, tmp_path: Path) -> None:
    """ASTRA-sim itself on the bundled 1,024-GPU RoCE design (built by hand from its public
    source: CI does not build it). Its hierarchical ring reduce-scatters and all-gathers one
    dimension after another, each moving 2 (n-1)/n of what reaches it at that dimension's
    bandwidth; split into pipelined chunks, the whole lies between the slowest dimension's
    time and the sum of every dimension's (plus each step's latency per split)."""
    if _astra_sim(PROGRAM_MULTI_DIM) is None:
        pytest.skip(f"ASTRA-sim's {PROGRAM_MULTI_DIM} is neither in ASTRA_SIM_BIN nor on PATH "
                    "(built from its source by hand; see docs/simulate-and-accept.md)")
    ex = _export(catalog, "dgx-superpod-4su-roce-400", tmp_path)
    run = subprocess.run(["sh", str(tmp_path / "run.sh")], capture_output=True, text=True,
                         check=False, timeout=280)
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if x.startswith("ASTRA-sim:"))
    assert "over 1024 NPUs" in line
    astra_us = float(line.rsplit(":", 1)[1].split()[0])
    net = read_network_yaml((tmp_path / "network.yml").read_text())
    splits = json.loads((tmp_path / "system.json").read_text())["preferred-dataset-splits"]
    stages, latency_us, reach = [], 0.0, float(1 << 30)
    for n, bw, lat in zip(net["npus_count"], net["bandwidth"], net["latency"], strict=True):
        stages.append(2 * (n - 1) / n * reach / (bw * 2**30) * 1e6)  # its GB/s: 2^30 B/s
        latency_us += 2 * (n - 1) * lat / 1000
        reach /= n
    assert max(stages) < astra_us < sum(stages) + splits * latency_us
    ring_us = next(t["time_us"] for t in ex.prediction["tool"] if t["algorithm"] == "ring")
    assert 0.5 < astra_us / ring_us < 2.0
