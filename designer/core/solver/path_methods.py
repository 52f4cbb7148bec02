"""Which way the hops-and-latency stage goes, and class rows read from the distance table.

The search per colour of alike GPU classes (paths.py) is cheapest when classes are alike;
cables of their own lengths (a floor plan) make them differ, and then the attachment-switch
distance table of switch_pairs.py is cheaper: the pair distribution straight from it when
every GPU has one cable, else each class's row from it instead of a search.
"""

from __future__ import annotations

import numpy as np

from designer.core.solver import switch_pairs
from designer.core.solver.compile import Compiled

# one search's cost per link against one element of the table products: measured on the
# 3-tier fat trees and rail designs of 256 to 16,384 GPUs (bench/bench_hops_sizes.py), where
# 8 sent 8,192 GPUs to the table (45 ms) instead of the search per colour (21 ms)
SEARCH_COST = 3


def _by_search(c: Compiled, n_colours: int, samples: int) -> float:
    """Searches: one per colour and its checks, or one per class when there are fewer."""
    searches = min(c.classes.n, n_colours * (1 + samples))
    return searches * max(1, c.indices.size) * SEARCH_COST


def prefer_switch_pairs(c: Compiled, n_colours: int, samples: int, force: bool | None) -> bool:
    """The switch-pair method when it applies and costs less than searching once per colour
    (plus the checks on other members): few colours, as in a generated design with default
    lengths, keep the search per colour. ``force``: tests force (True) or forbid (False)."""
    if force is not None:
        return force and switch_pairs.applies(c)
    return _by_search(c, n_colours, samples) > switch_pairs.work(c) and switch_pairs.applies(c)


def prefer_table_rows(c: Compiled, n_colours: int, samples: int, force: bool | None) -> bool:
    """Rows from the distance table when classes have several cables, the tables fit, and
    that costs less than a search per colour."""
    cl = c.classes
    if (np.diff(cl.ptr) == 1).all():
        return False  # one cable per GPU: the switch-pair method or the search per colour
    if force is not None:
        return force and switch_pairs.tables_fit(c)
    per_class = max(1, round(cl.att_switch.size / max(cl.n, 1)))
    by_rows = cl.n * max(1, cl.att_switch.size) * per_class * 4
    return _by_search(c, n_colours, samples) > by_rows and switch_pairs.tables_fit(c)


def rows_from_table(c: Compiled, row, ctl, make_acc):
    """Every class's row (paths.path_stats ``row``) merged into one accumulator, with the
    distances from each attachment switch read from the table instead of searched."""
    cl = c.classes
    att = np.unique(cl.att_switch)
    table = switch_pairs.float_distances(c, att, ctl)
    pos = np.full(c.n_switches, -1, np.int64)
    pos[att] = np.arange(att.size)

    class Rows(dict):
        """Distances from an attachment switch to every switch, as a search would give them
        (only attachment switches are read)."""

        def __missing__(self, x: int) -> np.ndarray:
            v = np.full(c.n_switches, np.inf)
            v[att] = table[pos[x]]
            return v

    rows = Rows()
    total = make_acc()
    for u in range(cl.n):
        total.merge(row(u, rows), 1.0)
        if u % 64 == 0:
            ctl.step((u + 1) / cl.n)
    return total
