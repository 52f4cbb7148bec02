"""Which scale-up domain every GPU server belongs to, from the catalog and the ``domain`` label.

A server whose catalog entry says one domain is one server (an 8-GPU server, or gear with no
``scale_up``) is a domain of its own. Servers of a rack-scale system (``scale_up.servers`` > 1,
the 18 trays of an NVL72) share a domain when they carry the same model and the same
``domain`` group label; a tray without the label is a domain of one tray (and reported, since
its rack is incomplete). All of it is numpy over the devices; the only Python loops go over
gear choices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog, ServerSpec
from designer.core.model import Fabric
from designer.core.problems import DeviceTable

DOMAIN_KEY = "domain"  # the group label naming a device's rack-scale domain


@dataclass(frozen=True)
class DomainSummary:
    """What a design's scale-up domains are, for ``designer solve --json`` and the panels."""

    gpus: int  # GPUs of the usual (most common) domain
    count: int  # domains in the design
    servers: int  # servers (trays) of the usual domain
    fabric: str  # "NVLink 5", or "" when the gear does not say
    gbytes_s: float  # per GPU, one direction (0: the GPUs' datasheet figure applies)
    switch_trays: int  # scale-up switch trays in the whole design
    switch_tray: str  # their catalog id ("" when none)
    rack_scale: bool  # a domain is a rack of its own
    incomplete: int  # domains with fewer servers than their system has
    sizes: dict[int, int]  # GPUs per domain -> how many domains

    def to_json(self) -> dict:
        return {"gpus": self.gpus, "count": self.count, "servers": self.servers,
                "fabric": self.fabric, "gbytes_s_per_gpu": self.gbytes_s,
                "switch_trays": self.switch_trays, "switch_tray": self.switch_tray,
                "rack_scale": self.rack_scale, "incomplete": self.incomplete,
                "sizes": {str(k): v for k, v in sorted(self.sizes.items())}}


@dataclass(frozen=True, eq=False)
class DomainTable:
    """Per device: its domain (0..count-1; -1 for switches, appliances and unknown gear)."""

    of_device: np.ndarray  # int64
    count: int
    gpus: np.ndarray  # int64 per domain
    servers: np.ndarray  # int64 per domain: servers (trays) it has
    expected: np.ndarray  # int64 per domain: servers its system has
    spec_id: tuple[str, ...]  # per domain: the model of its first server
    mixed: np.ndarray  # int64 device indices in a labelled domain of another model
    summary: DomainSummary

    def members(self, d: int) -> np.ndarray:
        return np.flatnonzero(self.of_device == d)


def _first_rank(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ids of ``keys`` numbered by first appearance (domain 0 is the first server's)."""
    if not keys.size:
        return np.empty(0, np.int64), 0
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(uniq.size, np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(uniq.size)
    return rank[inv.reshape(-1)], int(uniq.size)


def domain_table(fabric: Fabric, table: DeviceTable, catalog: Catalog,
                 is_server: np.ndarray, label: np.ndarray | None = None) -> DomainTable:
    """``is_server``: GPU servers of known gear with GPUs; ``label``: the ``domain`` group
    label of every device (0: none), dense or as saved."""
    n = len(fabric.devices)
    if label is None:
        label = fabric.group_label(DOMAIN_KEY)
    label = np.asarray(label, np.int64)
    # per gear choice: the model's code and its scale-up figures
    models: dict[str, int] = {}
    n_choice = len(table.choices)
    model_code = np.zeros(n_choice, np.int64)
    per_domain = np.ones(n_choice, np.int64)
    specs: dict[int, ServerSpec] = {}
    for g, (model, *_) in enumerate(table.choices):
        model_code[g] = models.setdefault(model, len(models))
        spec = catalog.get(model) if model in catalog else None
        if isinstance(spec, ServerSpec):
            specs[int(model_code[g])] = spec
            per_domain[g] = spec.domain_servers
    code = model_code[table.gear] if n else np.empty(0, np.int64)
    want = per_domain[table.gear] if n else np.empty(0, np.int64)
    servers = np.flatnonzero(is_server)
    grouped = (want[servers] > 1) & (label[servers] > 0)
    span = int(label.max(initial=0)) + 1
    # a labelled tray joins (model, label); everything else is alone (a unique negative key)
    key = np.where(grouped, code[servers] * span + label[servers], -(servers + 1))
    dom_of_server, count = _first_rank(key)
    of_device = np.full(n, -1, np.int64)
    of_device[servers] = dom_of_server
    gpus_dev = np.where(is_server, table.gpus, 0)
    dom_gpus = np.bincount(dom_of_server, weights=gpus_dev[servers], minlength=count)
    dom_servers = np.bincount(dom_of_server, minlength=count).astype(np.int64)
    first = np.full(count, -1, np.int64)
    if count:
        first[dom_of_server[::-1]] = servers[::-1]
    first_code = code[first] if count else np.empty(0, np.int64)
    expected = np.array([specs[int(c)].domain_servers if int(c) in specs else 1
                         for c in first_code.tolist()], np.int64)
    names = {v: k for k, v in models.items()}
    spec_id = tuple(names[int(c)] for c in first_code.tolist())
    # a label that gathers trays of different models: each model became its own domain
    mixed = np.empty(0, np.int64)
    if grouped.any():
        # (label, model) pairs as one integer each: a row-wise unique (axis=0) sorts
        # structured rows and held the interpreter 50-150 ms for 32,760 trays
        width = int(code.max(initial=0)) + 1
        pairs = np.unique(label[servers][grouped].astype(np.int64) * width
                          + code[servers][grouped])
        labels, per_label = np.unique(pairs // width, return_counts=True)
        bad = labels[per_label > 1]
        if bad.size:
            mixed = servers[grouped & np.isin(label[servers], bad)]
    summary = _summary(dom_gpus.astype(np.int64), dom_servers, expected, first_code, specs,
                       catalog)
    return DomainTable(of_device, count, dom_gpus.astype(np.int64), dom_servers, expected,
                       spec_id, mixed, summary)


def _summary(gpus: np.ndarray, servers: np.ndarray, expected: np.ndarray,
             codes: np.ndarray, specs: dict[int, ServerSpec], catalog: Catalog) -> DomainSummary:
    count = int(gpus.size)
    if not count:
        return DomainSummary(0, 0, 0, "", 0.0, 0, "", False, 0, {})
    sizes_v, sizes_n = np.unique(gpus, return_counts=True)
    usual = int(sizes_v[np.argmax(sizes_n)])
    # the usual domain's system: the most common model among domains of the usual size
    at_usual = codes[gpus == usual]
    vals, cnt = np.unique(at_usual, return_counts=True)
    spec = specs.get(int(vals[np.argmax(cnt)]))
    su = spec.scale_up if spec is not None else None
    trays = 0
    tray_id = ""
    for c, k in zip(*np.unique(codes, return_counts=True), strict=True):
        s = specs.get(int(c))
        if s is not None and s.scale_up is not None and s.scale_up.switch_trays:
            trays += int(k) * s.scale_up.switch_trays
            tray_id = tray_id or (s.scale_up.switch_tray or "")
    srv_usual = int(np.median(servers[gpus == usual]))
    return DomainSummary(
        gpus=usual, count=count, servers=srv_usual,
        fabric=su.fabric if su is not None else "",
        gbytes_s=float(su.gbytes_s) if su is not None else 0.0,
        switch_trays=trays, switch_tray=tray_id,
        rack_scale=bool(spec is not None and spec.rack_scale),
        incomplete=int((servers < expected).sum()),
        sizes={int(v): int(k) for v, k in zip(sizes_v.tolist(), sizes_n.tolist(), strict=True)},
    )
