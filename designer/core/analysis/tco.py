"""Total cost of ownership over years, and the cost of a GPU-hour that does useful work.

Capex is the network bill of materials (servers when asked); energy is the network's nameplate
power x load x PUE x hours x $/kWh; support a share of capex per year; space RU x $/RU/month;
tuning and validation an explicit one-off (weeks x cost, always shown): the project's, or the
transport's weeks at $10,000 a week when the project sets none (``estimate``, core/transport).
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.analysis.workload import Economics
from designer.core.solver import Result

HOURS_PER_YEAR = 8760.0


@dataclass(frozen=True)
class Tco:
    capex_usd: float
    energy_usd_per_year: float
    support_usd_per_year: float
    space_usd_per_year: float
    tuning_usd: float
    years: float
    total_usd: float
    gpu_time_usd: float  # GPU-hours at the rate, when servers are not in capex
    useful_gpu_hours: float
    usd_per_useful_gpu_hour: float
    efficiency: float

    def to_json(self) -> dict:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in {
            "capex_usd": self.capex_usd, "energy_usd_per_year": self.energy_usd_per_year,
            "support_usd_per_year": self.support_usd_per_year,
            "space_usd_per_year": self.space_usd_per_year, "tuning_usd": self.tuning_usd,
            "total_usd": self.total_usd, "years": self.years,
            "gpu_time_usd": self.gpu_time_usd, "useful_gpu_hours": self.useful_gpu_hours,
            "efficiency": self.efficiency,
            "usd_per_useful_gpu_hour": self.usd_per_useful_gpu_hour}.items()}


def tco(result: Result, econ: Economics, efficiency: float) -> Tco:
    """``efficiency``: share of GPU time doing useful work (1 - the exposed communication)."""
    capex = result.bom.total_usd
    power_w = result.power_w
    rack_units = result.rack_units
    if econ.include_servers:
        capex += sum(x.total_usd for x in result.bom.compute_lines)
        power_w += sum(x.power_w for x in result.bom.compute_lines)
        rack_units += sum(x.rack_units for x in result.bom.compute_lines)
    energy = power_w / 1000 * HOURS_PER_YEAR * econ.network_load * econ.pue * econ.usd_per_kwh
    support = econ.support_fraction * capex
    space = rack_units * econ.usd_per_ru_month * 12
    tuning = econ.tuning_weeks * econ.tuning_usd_per_week
    total = capex + econ.years * (energy + support + space) + tuning
    hours = result.gpus * econ.years * HOURS_PER_YEAR
    gpu_time = 0.0 if econ.include_servers else hours * econ.gpu_hour_usd
    useful = hours * econ.availability * efficiency
    per_hour = (total + gpu_time) / useful if useful > 0 else float("inf")
    return Tco(capex, energy, support, space, tuning, econ.years, total, gpu_time, useful,
               per_hour, efficiency)


def break_even_gain(delta_usd: float, gpus: int, years: float, gpu_hour_usd: float) -> float:
    """Efficiency gain at which a fabric ``delta_usd`` dearer pays for itself in GPU time."""
    value = gpus * years * HOURS_PER_YEAR * gpu_hour_usd
    return delta_usd / value if value > 0 else float("inf")
