"""Distinct values of a long list and each item's code, for columns over tens of thousands of
devices: the work per distinct value stays in Python, the work per item in C-level maps."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T", bound=Hashable)


def factorize(keys: Sequence[T]) -> tuple[list[T], np.ndarray]:
    """The distinct keys in the order each first appears, and each key's position among
    them (int64)."""
    distinct = list(dict.fromkeys(keys))
    code = dict(zip(distinct, itertools.count()))
    return distinct, np.fromiter(map(code.__getitem__, keys), np.int64, len(keys))
