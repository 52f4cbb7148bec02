"""The articles' decision rules, each with whether it fired, the figure and the source, next
to the break-even this design's own numbers give. Never a black box: the choice is the vote of
the rules that fired, and a disagreement with the break-even is said in words.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.analysis.workload import Economics

IB, ETH = "InfiniBand", "Ethernet"
SRC_BANDS = "Epoka, 'RoCE vs InfiniBand for AI', decision by cluster size"
SRC_TIERS = "'GPU Cluster Networking: InfiniBand vs. RoCE', TCO by scale tier"
COMM_SHARE = 0.30


@dataclass(frozen=True)
class Rule:
    rule: str
    fired: bool
    figure: str
    source: str
    favours: str  # IB, ETH or ""

    def to_json(self) -> dict:
        return {"rule": self.rule, "fired": self.fired, "figure": self.figure,
                "source": self.source, "favours": self.favours}


@dataclass(frozen=True)
class Recommendation:
    choice: str
    rules: tuple[Rule, ...]
    break_even: str
    agrees: bool
    note: str
    winner: str = ""  # the chosen side's column (its profile), when two were weighed
    assumptions: tuple[str, ...] = ()  # each side's transport, routing and servers
    sensitivity: tuple[dict, ...] = ()  # whether the verdict flips under other routing

    def to_json(self) -> dict:
        return {"choice": self.choice, "winner": self.winner or self.choice,
                "rules": [r.to_json() for r in self.rules],
                "break_even": self.break_even, "agrees_with_break_even": self.agrees,
                "note": self.note, "assumptions": list(self.assumptions),
                "sensitivity": list(self.sensitivity)}


def rules(gpus: int, comm_fraction: float, econ: Economics) -> tuple[Rule, ...]:
    n = f"{gpus:,} GPUs"
    share = f"communication {comm_fraction:.0%} of the step"
    grown = gpus * 2
    team = f"team tunes RoCE: {'yes' if econ.team_tunes_roce else 'no'}"
    return (
        Rule("up to 512 GPUs: Ethernet with RoCE is the usual default", gpus <= 512, n,
             SRC_BANDS, ETH),
        Rule("512 to 2,048 GPUs: Ethernet unless communication exceeds about 30% of the step",
             512 < gpus <= 2048 and comm_fraction <= COMM_SHARE, f"{n}, {share}", SRC_BANDS,
             ETH),
        Rule("above 2,048 GPUs: InfiniBand, latency advantages compound", gpus > 2048, n,
             SRC_BANDS, IB),
        Rule("communication above about 30% of the step favours the faster fabric",
             comm_fraction > COMM_SHARE, share, SRC_BANDS, IB),
        Rule("up to 128 GPUs: RoCE's cost advantage is clearest", gpus <= 128, n, SRC_TIERS,
             ETH),
        Rule("1,000 GPUs or more, synchronized pre-training, no team to tune PFC/ECN/DCQCN: "
             "InfiniBand removes the configuration risk", gpus >= 1000 and not
             econ.team_tunes_roce, f"{n}, {team}",
             SRC_TIERS, IB),
        Rule("team able to tune PFC/ECN/DCQCN: RoCE is credible at scale", econ.team_tunes_roce,
             team, SRC_TIERS, ETH),
        Rule("growth expected in 24-36 months: decide for the grown cluster (above 2,048 GPUs: "
             "InfiniBand)", econ.growth_expected and grown > 2048,
             f"growth expected: {'yes' if econ.growth_expected else 'no'}, x2 = {grown:,} GPUs",
             SRC_BANDS, IB),
        Rule("vendor lock-in to avoid: Ethernet's open ecosystem", econ.avoid_lock_in,
             f"avoid lock-in: {'yes' if econ.avoid_lock_in else 'no'}", SRC_TIERS, ETH),
    )


UNDECIDED = "Undecided"


@dataclass(frozen=True)
class Side:
    """One technology's design in a comparison: what the verdict needs of it."""

    label: str
    tco_usd: float
    efficiency: float
    usd_per_useful_gpu_hour: float
    work_usd: float | None = None  # the cost of a step of work (network and servers)
    step_s: float | None = None

    @property
    def cost_of_work(self) -> float:
        return self.usd_per_useful_gpu_hour if self.work_usd is None else self.work_usd


def recommend(gpus: int, comm_fraction: float, econ: Economics, loss_fraction: float,
              loss_usd: float) -> Recommendation:
    """One design on its own: the rules' vote, never the technology that happens to be open.
    A tie is left undecided: only a comparison with the other technology can break it."""
    rs = rules(gpus, comm_fraction, econ)
    ib, eth = _votes(rs)
    text = (f"this design loses {loss_fraction:.1%} of GPU time to its fabric against an ideal "
            f"one, ${loss_usd:,.0f} over {econ.years:g} years: a fabric that closed the gap pays "
            f"if it costs less than that much more")
    if ib == eth:
        return Recommendation(UNDECIDED, rs, text, True,
                              f"the rules tie ({ib} each way): compare this design with the "
                              "other technology at its best (Compare, or designer compare "
                              "--profiles) to break the tie by cost per step of work")
    return Recommendation(IB if ib > eth else ETH, rs, text, True, "")


def recommend_pair(gpus: int, comm_fraction: float, econ: Economics, ib_side: Side,
                   eth_side: Side) -> Recommendation:
    """InfiniBand against Ethernet: the same verdict whichever design is open or listed first.
    ``comm_fraction``: the larger of the two (a symmetric input to the rules)."""
    rs = rules(gpus, comm_fraction, econ)
    ib, eth = _votes(rs)
    premium = ib_side.tco_usd - eth_side.tco_usd
    gain = ib_side.efficiency - eth_side.efficiency
    value = gpus * econ.years * 8760 * econ.gpu_hour_usd
    share = abs(premium) / eth_side.tco_usd if eth_side.tco_usd > 0 else 0.0
    need = abs(premium) / value if value > 0 else float("inf")
    eff = f"gains {gain:.1%}" if gain >= 0 else f"loses {-gain:.1%}"
    if premium > 0:
        money = (f"InfiniBand ({ib_side.label}) costs ${premium:,.0f} ({share:.0%}) more over "
                 f"{econ.years:g} years and {eff} efficiency; it pays when it gains more than "
                 f"{need:.2%}")
    else:
        money = (f"InfiniBand ({ib_side.label}) costs ${-premium:,.0f} ({share:.0%}) less over "
                 f"{econ.years:g} years and {eff} efficiency; it stays ahead unless it loses "
                 f"more than {need:.2%}")
    per_step = ib_side.work_usd is not None and eth_side.work_usd is not None
    what = "cost per step (network and servers)" if per_step else "cost per useful GPU-hour"
    fmt = ",.2f" if per_step else ",.3f"
    work = (f"{what}: {ib_side.label} ${ib_side.cost_of_work:{fmt}}, {eth_side.label} "
            f"${eth_side.cost_of_work:{fmt}}")
    cheaper_side = ib_side if ib_side.cost_of_work < eth_side.cost_of_work else eth_side
    cheaper = IB if cheaper_side is ib_side else ETH
    text = f"{money}; {work}"
    if ib == eth:
        return Recommendation(cheaper, rs, text, True,
                              f"the rules tie ({ib} each way); the lower {what} decides: "
                              f"{cheaper_side.label}", cheaper_side.label)
    choice = IB if ib > eth else ETH
    agrees = choice == cheaper
    note = "" if agrees else (f"the rules say {choice}; the {what} favours "
                              f"{cheaper_side.label}")
    winner = ib_side.label if choice == IB else eth_side.label
    return Recommendation(choice, rs, text, agrees, note, winner)


def _votes(rs: tuple[Rule, ...]) -> tuple[int, int]:
    return (sum(1 for r in rs if r.fired and r.favours == IB),
            sum(1 for r in rs if r.fired and r.favours == ETH))
