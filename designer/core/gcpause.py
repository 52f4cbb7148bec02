"""Hold Python's cyclic garbage collector off while a design's objects are built in bulk.

Generating or solving a design of 131,040 GPUs makes tens of thousands of device objects and
dicts that hold no reference cycles; the collector's passes over the growing heap while they
are made took a quarter of the time (0.3 s of 1.2 s generating 1,820 NVL72 racks). Reference
counting frees everything as before; the collector runs again when the work ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
