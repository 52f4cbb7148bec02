"""The articles' decision rules, each with whether it fired, the figure and the source, next
to the break-even this design's own numbers give. Never a black box: the choice is the vote of
the rules that fired, and a disagreement with the break-even is said in words.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.analysis.workload import Economics

IB, ETH = "InfiniBand", "Ethernet (RoCE)"
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

    def to_json(self) -> dict:
        return {"choice": self.choice, "rules": [r.to_json() for r in self.rules],
                "break_even": self.break_even, "agrees_with_break_even": self.agrees,
                "note": self.note}


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
                              "--profiles) to break the tie by cost per useful GPU-hour")
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
    # a cheaper InfiniBand gives a negative threshold: it pays unless it loses more
    # efficiency than its savings are worth
    need = premium / value if value > 0 else float("inf")
    cost = f"costs ${premium:,.0f} more" if premium > 0 else f"costs ${-premium:,.0f} less"
    eff = f"gains {gain:.1%}" if gain >= 0 else f"loses {-gain:.1%}"
    per_hour = (f"cost per useful GPU-hour: {ib_side.label} "
                f"${ib_side.usd_per_useful_gpu_hour:,.3f}, {eth_side.label} "
                f"${eth_side.usd_per_useful_gpu_hour:,.3f}")
    cheaper = IB if ib_side.usd_per_useful_gpu_hour < eth_side.usd_per_useful_gpu_hour else ETH
    text = (f"InfiniBand {cost} over {econ.years:g} years and {eff} efficiency; it pays when "
            f"the gain exceeds {need:.2%}; {per_hour}")
    if ib == eth:
        return Recommendation(cheaper, rs, text, True,
                              f"the rules tie ({ib} each way); the lower cost per useful "
                              f"GPU-hour decides: {cheaper}")
    choice = IB if ib > eth else ETH
    agrees = choice == cheaper
    note = "" if agrees else (f"the rules say {choice}; the cost per useful GPU-hour favours "
                              f"{cheaper}")
    return Recommendation(choice, rs, text, agrees, note)


def _votes(rs: tuple[Rule, ...]) -> tuple[int, int]:
    return (sum(1 for r in rs if r.fired and r.favours == IB),
            sum(1 for r in rs if r.fired and r.favours == ETH))
