"""What a cluster run is asked: the placement policy, how long, the failure model, money, and
how much of each job's step its communication takes."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from designer.core.cluster.placement import POLICIES
from designer.core.cluster.reliability import FailureSettings
from designer.core.errors import DesignerError

# Slurm's default for how deep its backfill scheduler looks into the queue (bf_max_job_test)
BACKFILL_DEPTH = 500


class ClusterError(DesignerError):
    """A cluster run asked something it cannot do (names the setting)."""


class ClusterSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: str = "pack"
    days: Annotated[float, Field(gt=0, le=3650, allow_inf_nan=False)] | None = None
    failures: FailureSettings = Field(default_factory=FailureSettings)
    usd_per_gpu_hour: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    # exposed communication share of a step on an ideal fabric; None: from the workload
    # estimate of the design (the Workload panel's figure), per workload the trace names
    comm_share: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] | None = None
    traffic: str = ""  # ring, all-to-all or none for every job; "" : by workload
    backfill_depth: Annotated[int, Field(ge=0, le=100_000)] = BACKFILL_DEPTH
    seed: int = 0

    def checked(self) -> ClusterSettings:
        if self.policy not in POLICIES:
            raise ClusterError(f"--policy: unknown '{self.policy}' (choose "
                               f"{', '.join(POLICIES)})")
        if self.traffic not in ("", "ring", "all-to-all", "none"):
            raise ClusterError(f"traffic: unknown '{self.traffic}' (ring, all-to-all, none)")
        return self
