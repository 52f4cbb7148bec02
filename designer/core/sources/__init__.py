"""Where the numbers come from: price books and measured latencies a project carries.

The catalog ships estimates with their sources; a project may bring better ones: a supplier's
quote (a price book) or latencies measured on the real hardware (``ib_send_lat``, perftest).
They override the catalog for that project only and every figure says which one it used.
"""

from designer.core.sources.apply import apply_sources, price_origin
from designer.core.sources.model import (
    LatencyMeasurement,
    PriceBook,
    Sources,
)

__all__ = ["LatencyMeasurement", "PriceBook", "Sources", "apply_sources", "price_origin"]
