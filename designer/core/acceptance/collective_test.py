"""One nccl-tests run the acceptance plan asks for: its rows (size, predicted time and bus
bandwidth, the band) and the command that runs it. Its own module: the plan builds these and
the KPIs read them, and neither should import the other for it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    bytes: int
    time_us: float
    busbw: float  # GB/s, nccl-tests' definition
    low: float
    high: float
    algorithm: str


@dataclass(frozen=True)
class CollectiveTest:
    binary: str
    op: str
    ranks: int
    nodes: int
    gpus_per_node: int
    rail: int | None  # None: every rail
    rows: tuple[Row, ...]
    command: str

    @property
    def name(self) -> str:
        return self.binary if self.rail is None else f"{self.binary} rail {self.rail}"

    def to_json(self) -> dict:
        return {"test": self.binary, "op": self.op, "ranks": self.ranks, "nodes": self.nodes,
                "gpus_per_node": self.gpus_per_node, "rail": self.rail,
                "command": self.command,
                "rows": [{"bytes": r.bytes, "time_us": round(r.time_us, 3),
                          "busbw_gbytes_s": round(r.busbw, 3), "low": round(r.low, 3),
                          "high": round(r.high, 3), "algorithm": r.algorithm}
                         for r in self.rows]}
