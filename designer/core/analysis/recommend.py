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


def recommend(gpus: int, comm_fraction: float, econ: Economics, design_is_ib: bool,
              loss_fraction: float, loss_usd: float, premium_usd: float | None = None,
              gain: float | None = None) -> Recommendation:
    """``loss_*``: what this design's fabric costs against an ideal one over ``econ.years``.
    ``premium_usd`` and ``gain``: the dearer fabric's extra TCO and efficiency gain when a
    comparison supplies them (IB minus RoCE)."""
    rs = rules(gpus, comm_fraction, econ)
    ib = sum(1 for r in rs if r.fired and r.favours == IB)
    eth = sum(1 for r in rs if r.fired and r.favours == ETH)
    choice = IB if ib > eth else ETH if eth > ib else ""
    value = gpus * econ.years * 8760 * econ.gpu_hour_usd
    if premium_usd is not None and gain is not None:
        # a cheaper InfiniBand gives a negative threshold: it pays unless it loses more
        # efficiency than its savings are worth
        need = premium_usd / value if value > 0 else float("inf")
        be_choice = IB if gain > need else ETH
        cost = (f"costs ${premium_usd:,.0f} more" if premium_usd > 0 else
                f"costs ${-premium_usd:,.0f} less")
        eff = f"gains {gain:.1%}" if gain >= 0 else f"loses {-gain:.1%}"
        text = (f"InfiniBand {cost} over {econ.years:g} years and {eff} efficiency; it pays "
                f"when the gain exceeds {need:.2%}: {be_choice}")
    else:
        be_choice = (IB if design_is_ib else ETH) if loss_fraction < 0.05 else \
            (ETH if design_is_ib else IB)
        text = (f"this design loses {loss_fraction:.1%} of GPU time to its fabric against an "
                f"ideal one, ${loss_usd:,.0f} over {econ.years:g} years: a fabric that closed "
                f"the gap pays if it costs less than that much more")
    if not choice:
        return Recommendation(be_choice, rs, text, True,
                              f"the rules tie ({ib} each way); the break-even decides")
    agrees = be_choice == choice
    note = "" if agrees else (f"the rules say {choice}, the break-even from this design's own "
                              f"numbers says {be_choice}")
    return Recommendation(choice, rs, text, agrees, note)
