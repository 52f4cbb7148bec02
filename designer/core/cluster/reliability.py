"""Failure rates per component, the blast radius each failure has on this design, the mean
time to interruption by job size and the spares to stock.

Rates are failures per 1,000 component-days, each with its source, and editable:

- GPU, host, NIC and software from Llama 3 (Dubey et al., arXiv 2407.21783, section 3.3.4,
  Table 5): 419 unexpected interruptions in 54 days of a 16,384-GPU job on 2,048 hosts (one
  back-end NIC per GPU). GPU: faulty GPU 148 + HBM3 72 + SRAM 19 + GPU system processor 17 +
  silent data corruption 6 + thermal interface and sensor 6 = 268. Host: host maintenance 32 +
  SSD 3 + power supply 3 + chassis 2 + IO expansion board 2 + CPU 2 + system memory 2 = 46.
  NIC: 7. Software: software bug 54 + NCCL watchdog timeouts 7 + dependency 2 = 63 (a restart,
  nothing to repair). Network switch and cable, 35, is not spread over a count the paper gives;
  the per-part network rates come from Alibaba's field figures instead:
- link (a cable and its two optics) and switch from Alibaba HPN (Qian et al., SIGCOMM 2024,
  section 2): 0.057% of NIC-to-ToR links fail in a month, 0.051% of ToR switches crash in a
  month; applied to every link and every switch of the design.
- scale-up switch tray (rack-scale domains only): no published field rate; taken as a switch's
  (an assumption), nine trays per 72 GPUs (GB200 NVL72).
- laser module (co-packaged-optics switches only): the external laser source modules the
  catalog gives each such switch, at the rate of the catalog's laser module MTBF (1,000,000 h,
  an assumption from Meta's pluggable-module field figures); a failure darkens the ports it
  lights until the module is swapped (hot-swappable: one hour).

Repair times are assumptions (the papers give none): the hours a failed part keeps its GPUs
out of the scheduler's reach.

Blast radius, on this design's graph: a GPU takes its job down; a host or a NIC its server's
or GPU's; a NIC-side link or a leaf takes down the GPUs left with no live NIC link (GPUs with a
second link, on another plane or a second ToR, keep running, which is why HPN dual-homes its
hosts) and interrupts the jobs crossing it; a fabric link or an upper-tier switch interrupts
the jobs whose traffic crosses it and takes no GPU; a scale-up tray takes its whole domain.

The check against published figures (tests): the mean time to interruption of a job of N
GPUs on a design of N GPUs must fall between the MTTF the HPCA 2025 study (Kokolis et al.,
arXiv 2410.21680) projects from its two clusters' failure rates, 6.50 (RSC-1) and 2.34
(RSC-2) failures per 1,000 node-days of 8 GPUs, and 16,384 GPUs over 54 days must see
Llama 3's 419 within Poisson spread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from designer.core.catalog import SwitchSpec
from designer.core.cluster.topology import Topology
from designer.core.solver.compile import Compiled

NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]

LLAMA3 = "Llama 3, arXiv 2407.21783 Table 5 (54 days, 16,384 GPUs)"
HPN = "Alibaba HPN, SIGCOMM 2024 section 2"
LLAMA3_DAYS = 54.0
LLAMA3_GPUS = 16_384
LLAMA3_HOSTS = 2_048
LLAMA3_INTERRUPTIONS = 419
# "higher than 90% effective training time" over those 54 days (Llama 3, section 3.3.4)
LLAMA3_EFFECTIVE_TRAINING = 0.90
# Checkpoints (Young 1974, "A first order approximation to the optimum checkpoint interval",
# CACM 17(9); Daly 2006, FGCS 22(3)): writing one costs C of training time, so the interval
# that loses least is tau = sqrt(2 x C x MTTI), and a job then loses C/tau + (tau/2 + R)/MTTI
# of its time (R the restart). C by default is Llama 3's own: the 405B's training state at 16
# bytes a parameter (BF16 weights, FP32 master weights and two Adam moments: 6.48 TB) written
# at the sustained 2 TB/s of the Tectonic file system it checkpointed to (Llama 3, section
# 3.3.1, "Storage"): 3.24 s. At its one interruption per 3.09 h that gives tau = 4.3 min.
# The restart R has no published figure (Llama 3, MegaScale and the HPCA 2025 study say they
# shortened it, none gives it): 15 minutes stays an assumption, and it decides the result:
# Llama 3's "higher than 90%" needs R under 14 minutes at that C.
LLAMA3_PARAMS = 405e9
TRAINING_STATE_BYTES_PER_PARAM = 16.0
LLAMA3_STORAGE_BYTES_PER_S = 2e12  # Tectonic, sustained (7 TB/s peak)
CHECKPOINT_WRITE_H = (LLAMA3_PARAMS * TRAINING_STATE_BYTES_PER_PARAM
                      / LLAMA3_STORAGE_BYTES_PER_S / 3600.0)
CHECKPOINT_H_SOURCE = ("Young/Daly optimum sqrt(2 x C x MTTI) for each job, C = "
                       f"{CHECKPOINT_WRITE_H * 3600:.2f} s: Llama 3's 405B training state "
                       "(16 bytes a parameter, 6.48 TB) at its storage's sustained 2 TB/s "
                       "(arXiv 2407.21783, section 3.3.1)")
RESTART_H_SOURCE = ("assumption: 15 minutes to restart from a checkpoint (Llama 3, MegaScale "
                    "and the HPCA 2025 study publish none); Llama 3's over 90% effective "
                    "training time needs it under 14 minutes. A system built for fast "
                    "recovery restarts 4,800 devices in 150 s (FlashRecovery, arXiv "
                    "2509.03047)")
HPCA_RSC1_PER_1000_NODE_DAYS = 6.50
HPCA_RSC2_PER_1000_NODE_DAYS = 2.34
HPCA_GPUS_PER_NODE = 8

COMPONENTS = ("gpu", "host", "nic", "software", "link", "switch", "scaleup", "laser")
LASER_MTBF_H = 1_000_000.0  # the catalog's els-cpo-6.4t figure (see its sources)


def _per_1000(count: float, units: float, days: float) -> float:
    return 1000.0 * count / (units * days)


class Rate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    per_1000_days: NonNegative  # failures per 1,000 component-days
    repair_h: NonNegative = 24.0
    source: str = Field(default="", max_length=300)


def _defaults() -> dict[str, Rate]:
    return {
        "gpu": Rate(per_1000_days=_per_1000(268, LLAMA3_GPUS, LLAMA3_DAYS), repair_h=72.0,
                    source=LLAMA3 + ": GPU, HBM3, SRAM, GSP, SDC, thermal (268)"),
        "host": Rate(per_1000_days=_per_1000(46, LLAMA3_HOSTS, LLAMA3_DAYS), repair_h=24.0,
                     source=LLAMA3 + ": host maintenance, SSD, PSU, chassis, IO board, CPU, "
                     "memory (46)"),
        "nic": Rate(per_1000_days=_per_1000(7, LLAMA3_GPUS, LLAMA3_DAYS), repair_h=24.0,
                    source=LLAMA3 + ": NIC (7), one back-end NIC per GPU"),
        "software": Rate(per_1000_days=_per_1000(63, LLAMA3_HOSTS, LLAMA3_DAYS), repair_h=0.0,
                         source=LLAMA3 + ": software bug, NCCL watchdog, dependency (63), "
                         "per host"),
        "link": Rate(per_1000_days=1000 * 0.00057 / 30, repair_h=4.0,
                     source=HPN + ": 0.057% of links fail per month"),
        "switch": Rate(per_1000_days=1000 * 0.00051 / 30, repair_h=8.0,
                       source=HPN + ": 0.051% of ToR switches crash per month"),
        "scaleup": Rate(per_1000_days=1000 * 0.00051 / 30, repair_h=8.0,
                        source="assumption: a switch's rate per NVLink switch tray"),
        "laser": Rate(per_1000_days=1000 * 24 / LASER_MTBF_H, repair_h=1.0,
                      source="laser module of a co-packaged-optics switch: MTBF 1,000,000 h "
                      "(catalog els-cpo-6.4t, an assumption from Meta's ECOC 2025 pluggable "
                      "figures); hot-swapped"),
    }


class FailureSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    rates: dict[str, Rate] = Field(default_factory=_defaults)
    # None: each job's Young/Daly optimum from its own MTTI; a number: a fixed interval
    checkpoint_h: Annotated[float | None, Field(gt=0, le=10_000, allow_inf_nan=False)] = None
    checkpoint_write_h: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] = (
        CHECKPOINT_WRITE_H)
    restart_h: NonNegative = 0.25
    spares_lead_days: Annotated[float, Field(gt=0, le=365, allow_inf_nan=False)] = 14.0

    def rate(self, name: str) -> Rate:
        return self.rates.get(name) or _defaults()[name]

    def with_rate(self, name: str, **changes) -> FailureSettings:
        r = self.rate(name).model_copy(update=changes)
        return self.model_copy(update={"rates": {**self.rates, name: r}})


@dataclass(frozen=True)
class Parts:
    """Counts of every failing part on this design, and what each takes down."""

    counts: dict[str, int]
    nic_links: int  # GPU attachments
    fabric_links: int
    trays_per_domain: int
    single_homed: float  # share of GPUs with one NIC link
    # laser modules of co-packaged-optics switches: the switch of each module, its slot on
    # that switch and how many ports one module lights
    laser_switch: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    laser_slot: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    laser_lit: int = 0


def parts(c: Compiled, topo: Topology) -> Parts:
    cl = c.classes
    g = c.gpu_class[c.gpu_class >= 0]
    n_att = cl.n_att[g] if g.size else np.empty(0, np.int64)
    nic_links = int(n_att.sum())
    cab = c.cables
    both = c.is_switch[cab["a"]] & c.is_switch[cab["b"]]
    fabric = int(both.sum())
    trays = 0
    if topo.domain_gpus > topo.gpus_per_server > 0:
        trays = max(1, topo.domain_gpus // 8)  # GB200 NVL72: 9 trays per 72 GPUs
    n_dom = int(topo.domain.max(initial=-1)) + 1 if trays else 0
    l_sw, l_slot, lit = laser_modules(c)
    counts = {"gpu": c.n_gpus, "host": int(topo.server_device.size), "nic": c.n_gpus,
              "software": int(topo.server_device.size), "link": nic_links + fabric,
              "switch": c.n_switches, "scaleup": n_dom * trays, "laser": int(l_sw.size)}
    return Parts(counts, nic_links, fabric, trays,
                 float((n_att == 1).mean()) if n_att.size else 0.0, l_sw, l_slot, lit)


def laser_modules(c: Compiled) -> tuple[np.ndarray, np.ndarray, int]:
    """Every laser module of the design's co-packaged-optics switches: (switch index, slot on
    the switch, ports one module lights). Switch indices count switches only, as
    ``Compiled`` numbers them (``c.is_switch`` order)."""
    t = c.table
    per = np.zeros(len(t.choices), np.int64)
    lit = 0
    for g, (model, *_) in enumerate(t.choices):
        spec = c.catalog.get(model) if model in c.catalog else None
        if isinstance(spec, SwitchSpec) and spec.cpo and spec.laser_module:
            per[g] = spec.laser_modules
            lit = max(lit, c.catalog.laser(spec.laser_module).ports_lit)
    n_sw = per[t.gear[c.is_switch]] if t.gear.size else np.zeros(0, np.int64)
    sw = np.repeat(np.arange(n_sw.size, dtype=np.int64), n_sw)
    slot = np.arange(sw.size, dtype=np.int64) - np.repeat(np.cumsum(n_sw) - n_sw, n_sw)
    return sw, slot, lit


@dataclass(frozen=True)
class Blast:
    component: str
    gpus_down: float  # GPUs out of reach per failure (mean over the parts)
    jobs: str  # what it interrupts, in words


def blast_radius(c: Compiled, topo: Topology, pt: Parts) -> tuple[Blast, ...]:
    att = np.bincount(_attached_switch(c), minlength=c.n_switches)
    leaves = att[att > 0]
    dual = pt.single_homed < 0.5
    leaf_gpus = float(leaves.mean()) if leaves.size else 0.0
    out = [Blast("gpu", 1.0, "its job"),
           Blast("host", float(topo.gpus_per_server), f"the jobs on its server "
                 f"({topo.gpus_per_server} GPUs)"),
           Blast("nic", 0.0 if dual else 1.0, "its GPU's job" if not dual else
                 "none: the GPU keeps a second NIC link (degraded)"),
           Blast("software", 0.0, "its job (a restart)"),
           Blast("link", 0.0 if dual else pt.nic_links / max(pt.counts["link"], 1),
                 "a NIC-side link: its GPU's job; a fabric link: the jobs crossing it"),
           Blast("switch", 0.0 if dual else float(leaf_gpus * np.count_nonzero(att)
                                                  / max(c.n_switches, 1)),
                 (f"a leaf: its {leaf_gpus:.0f} GPUs' jobs" if not dual else
                  "a leaf: no GPU lost (each has a link on another plane or ToR)")
                 + "; above the leaves: the jobs crossing it")]
    if pt.trays_per_domain:
        out.append(Blast("scaleup", float(topo.domain_gpus),
                         f"its whole {topo.domain_gpus}-GPU scale-up domain"))
    if pt.counts.get("laser"):
        share = pt.nic_links / max(pt.counts["link"], 1)
        out.append(Blast("laser", 0.0 if dual else pt.laser_lit * share,
                         f"the {pt.laser_lit} ports it lights: their GPUs' jobs (GPUs with a "
                         "link on another plane keep running) and the jobs crossing them"))
    return tuple(out)


def _attached_switch(c: Compiled) -> np.ndarray:
    """The switch of every GPU attachment (one row per GPU and NIC link)."""
    cl = c.classes
    g = c.gpu_class[c.gpu_class >= 0]
    n_att = cl.n_att[g]
    rows = np.repeat(cl.ptr[g], n_att) + (np.arange(int(n_att.sum()))
                                          - np.repeat(np.cumsum(n_att) - n_att, n_att))
    return cl.att_switch[rows]


def job_rate_per_h(fs: FailureSettings, gpus: int, gpus_per_server: int, nic_links: float,
                   fabric_links: float, switches: float, trays: float = 0.0,
                   lasers: float = 0.0) -> float:
    """Interruptions per hour of one job: the parts in its blast radius times their rates."""
    hosts = -(-gpus // max(gpus_per_server, 1))
    r = (gpus * fs.rate("gpu").per_1000_days + hosts * fs.rate("host").per_1000_days
         + gpus * fs.rate("nic").per_1000_days + hosts * fs.rate("software").per_1000_days
         + (nic_links + fabric_links) * fs.rate("link").per_1000_days
         + switches * fs.rate("switch").per_1000_days
         + trays * fs.rate("scaleup").per_1000_days
         + lasers * fs.rate("laser").per_1000_days)
    return r / 1000.0 / 24.0


def mtti_by_size(c: Compiled, topo: Topology, fs: FailureSettings,
                 sizes: list[int] | None = None) -> list[tuple[int, float]]:
    """Mean hours to interruption of a packed job of each size on this design: its GPUs,
    hosts, NICs, its share of the NIC links, and the switches and fabric links of the part of
    the fabric it spans (its share of them, by GPUs)."""
    pt = parts(c, topo)
    n = max(c.n_gpus, 1)
    sizes = sizes or [s for s in (8, 64, 512, 1024, 4096, 16384, 65536, 131072) if s <= n]
    return [(s, job_mtti_h(c, topo, fs, pt, s)) for s in sizes]


def job_mtti_h(c: Compiled, topo: Topology, fs: FailureSettings, pt: Parts,
               gpus: int) -> float:
    """Mean hours to interruption of a packed job of ``gpus`` GPUs on this design."""
    share = gpus / max(c.n_gpus, 1)
    r = job_rate_per_h(fs, gpus, topo.gpus_per_server, pt.nic_links * share,
                       pt.fabric_links * share, c.n_switches * share,
                       pt.counts["scaleup"] * share, pt.counts["laser"] * share)
    return 1.0 / r if r > 0 else float("inf")


def checkpoint_interval_h(fs: FailureSettings, mtti_h: float) -> float:
    """Hours between checkpoints: the fixed interval when one is set, else Young's optimum
    sqrt(2 x C x MTTI) (first order; Daly 2006 shows it within a few per cent of the exact
    optimum while C is small against the MTTI)."""
    if fs.checkpoint_h is not None:
        return fs.checkpoint_h
    if mtti_h == float("inf"):
        return float("inf")  # nothing interrupts it: no checkpoint needed
    return (2.0 * fs.checkpoint_write_h * max(mtti_h, 0.0)) ** 0.5


def effective_training(fs: FailureSettings, mtti_h: float) -> float:
    """Share of wall time a job trains, first order: writing checkpoints costs C of every
    interval tau, and each interruption (one per ``mtti_h``) loses half an interval of work
    and the restart (Young 1974; the HPCA 2025 study's ETTR estimate has the same terms)."""
    if not mtti_h > 0:
        return 0.0
    tau = checkpoint_interval_h(fs, mtti_h)
    write = fs.checkpoint_write_h / tau if tau > 0 else 0.0
    lost = 0.0 if mtti_h == float("inf") else (tau / 2 + fs.restart_h) / mtti_h
    return max(0.0, 1.0 - write - lost)


def hpca_mttf_h(gpus: int, per_1000_node_days: float) -> float:
    """The HPCA 2025 study's projection: MTTF = 1 / (nodes x r_f)."""
    nodes = gpus / HPCA_GPUS_PER_NODE
    return 24.0 * 1000.0 / (nodes * per_1000_node_days)


@dataclass(frozen=True)
class Spares:
    component: str
    count: int
    per_month: float
    stock: int  # parts to hold to cover the lead time at 99%


def poisson_quantile(lam: float, q: float = 0.99) -> int:
    """The smallest k with P(N <= k) >= q for N ~ Poisson(lam)."""
    if lam <= 0:
        return 0
    k = 0
    term = np.exp(-lam)
    cdf = term
    while cdf < q and k < 1_000_000:
        k += 1
        term *= lam / k
        cdf += term
    return k


def spares(pt: Parts, fs: FailureSettings) -> tuple[Spares, ...]:
    out = []
    for name in ("gpu", "host", "nic", "link", "switch", "scaleup", "laser"):
        cnt = pt.counts[name]
        if not cnt:
            continue
        lam = cnt * fs.rate(name).per_1000_days / 1000.0
        stock = poisson_quantile(lam * fs.spares_lead_days)
        out.append(Spares(name, cnt, lam * 30.0, stock))
    return tuple(out)
