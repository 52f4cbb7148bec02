"""The largest design the tool takes, in one place.

Every limit is one the tool meets: a design at the limit loads, validates and solves in seconds
on a 2-core machine (figures in README), and anything beyond is refused before work that grows
with its size starts (a file's device list and link counts are checked before validation).
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
