"""Where the numbers come from: price books and measured latencies a project carries.

The catalog ships estimates with their sources; a project may bring better ones: a supplier's
quote (a price book) or latencies measured on the real hardware (``ib_send_lat``, perftest).
They override the catalog for that project only and every figure says which one it used.
"""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names
from designer.core.sources.apply import apply_sources, price_origin
from designer.core.sources.model import (
    LatencyMeasurement,
    PriceBook,
    Sources,
)

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "SourcesError": "apply",
    "nic_per_end_ns": "apply",
    "with_latency": "edit",
    "with_price_book": "edit",
    "without_latency": "edit",
    "without_price_book": "edit",
    "assumption_lines": "figures",
    "AmbiguousNumber": "numbers",
    "read_perftest": "perftest",
    "BookImport": "pricebook_io",
    "RateNeeded": "pricebook_io",
    "read_price_book": "pricebook_io",
    "usd_rate": "pricebook_io",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.sources.apply import SourcesError, nic_per_end_ns
    from designer.core.sources.edit import (
        with_latency,
        with_price_book,
        without_latency,
        without_price_book,
    )
    from designer.core.sources.figures import assumption_lines
    from designer.core.sources.numbers import AmbiguousNumber
    from designer.core.sources.perftest import read_perftest
    from designer.core.sources.pricebook_io import BookImport, RateNeeded, read_price_book, usd_rate

__all__ = [
    "AmbiguousNumber",
    "BookImport",
    "LatencyMeasurement",
    "PriceBook",
    "RateNeeded",
    "Sources",
    "SourcesError",
    "apply_sources",
    "assumption_lines",
    "nic_per_end_ns",
    "price_origin",
    "read_perftest",
    "read_price_book",
    "usd_rate",
    "with_latency",
    "with_price_book",
    "without_latency",
    "without_price_book",
]
