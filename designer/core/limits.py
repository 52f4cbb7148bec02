"""The largest design the tool takes, in one place.

Every limit is one the tool meets: a design at the limit loads, validates and solves in seconds
on a 2-core machine (figures in docs/performance.md), and anything beyond is refused before work
that grows with its size starts (a file's device list and link counts are checked before
validation).
"""

from __future__ import annotations

# A million GPUs is past any cluster built so far; a 524,288-GPU fat-tree solves in about 5 s.
MAX_GPUS = 1 << 20
# Devices of one design: a million GPUs in 8-GPU servers with their switches is about 200,000.
MAX_DEVICES = 500_000
# Physical cables of one design (the sum of the bundles' counts): a million GPUs in a 3-tier
# fat-tree have about 3.1 million.
MAX_CABLES = 4_000_000
# Link bundles in a file: at most one per cable.
MAX_LINK_ROWS = MAX_CABLES
# A group label (SU, pod, plane, rail ...) is a number from 0 (no group) up to this.
MAX_GROUP_LABEL = 2**31 - 1

# -- options that set how much work a command does ------------------------------------------------
# Flows one load trial routes (connections x queue pairs): about half a kilobyte and 30 us
# each, so two million is about 1 GB and a minute; all trials together at most ten times that.
MAX_FLOWS_PER_TRIAL = 2_000_000
MAX_FLOW_ROUTES = 20_000_000
MAX_TRIALS = 10_000
# Queue pairs per connection: NCCL opens 1 by default (NCCL_IB_QPS_PER_CONNECTION) and a few
# dozen at most in practice.
MAX_FLOWS_PER_PAIR = 1024
# Random seeds are what numpy takes: 0 to 2**32 - 1.
MAX_SEED = 2**32 - 1

# -- money and time: what the domain allows (a figure past these is a typo, and 1e308 would
# print inf and nan) --------------------------------------------------------------------------
GPU_HOUR_USD_MIN = 0.01  # a cent: a free GPU hour makes every break-even infinite
GPU_HOUR_USD_MAX = 1_000.0  # far above any cloud or owned price of a GPU hour
RUN_DAYS_MAX = 3_650.0  # a training run of ten years
YEARS_MAX = 50.0  # a TCO horizon: longer than any data hall is used
USD_PER_KWH_MAX = 10.0
USD_PER_RU_MONTH_MAX = 100_000.0
TUNING_WEEKS_MAX = 520.0
TUNING_USD_PER_WEEK_MAX = 10_000_000.0
NETWORK_SLOWDOWN_MAX = 1_000.0  # a network a thousand times slower than ideal is broken
# A workload's size: 100 trillion parameters, a GPU of an exaflop, 10^16 training tokens.
PARAMS_B_MAX = 100_000.0
PEAK_TFLOPS_MAX = 1_000_000.0
NVLINK_GBYTES_S_MAX = 100_000.0
COMPUTE_S_MAX = 1_000_000.0
TRAIN_TOKENS_B_MAX = 10_000_000.0
