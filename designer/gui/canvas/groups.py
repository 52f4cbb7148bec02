"""Groups of devices the canvas can collapse, and the links drawn between what is visible.

No Qt here: plain numpy over the project's arrays, so it is cheap at 100k GPUs and testable
without a window.

A device's *chain* is the nested groups it belongs to, outermost first, built from its group
labels in the order plane > pod > su > group > domain (a leaf of SU 3 in pod 1 of plane 2 has
the chain plane=2, plane=2/pod=1, plane=2/pod=1/su=3; a tray of an NVL72 rack adds the rack's
``domain`` group, drawn as one rack when collapsed). A device with no label below the plane joins a
tier group of its role ("Core switches"), so an unlabelled tier of hundreds of switches also
folds into one box. When groups are collapsed, each device is shown by the outermost collapsed
group of its chain, else by itself; link bundles between two shown things are summed into one
line with numpy (never one Python object per cable).
"""

from __future__ import annotations

import functools
import itertools
import operator
from dataclasses import dataclass, field

import numpy as np

from designer.core.factorize import factorize
from designer.core.links import LinkTable
from designer.core.model import Device, Role

LEVELS = ("plane", "pod", "su", "group", "domain")
LEVEL_LABELS = {"plane": "Plane", "pod": "Pod", "su": "SU", "group": "Group", "domain": "Rack",
                "tier": ""}
TIER_LABELS = {
    Role.GPU_SERVER.value: "GPU servers",
    Role.APPLIANCE.value: "Appliances",
    Role.LEAF.value: "Leaf switches",
    Role.SPINE.value: "Spine switches",
    Role.CORE.value: "Core switches",
    Role.ROUTER.value: "Routers",
}
GroupKey = str  # "pod=1/su=3", "tier=core", "plane=2/tier=spine"

# Link classes, for colours: which layer of the fabric a bundle belongs to.
EDGE_ENDPOINT, EDGE_LEAF_SPINE, EDGE_SPINE_CORE, EDGE_LOCAL, EDGE_GLOBAL, EDGE_OTHER = range(6)
EDGE_CLASS_NAMES = ("endpoint", "leaf-spine", "spine-core", "local", "global", "other")
ROLES: tuple[Role, ...] = tuple(Role)
_ROLE_ID = {r: i for i, r in enumerate(ROLES)}
_ROLE_CODE = {
    Role.GPU_SERVER.value: 0,
    Role.APPLIANCE.value: 0,
    Role.LEAF.value: 1,
    Role.SPINE.value: 2,
    Role.CORE.value: 3,
    Role.ROUTER.value: 4,
}
_ROLE_CODE_OF = {r: _ROLE_CODE.get(r.value, 5) for r in Role}
_GROUPS = operator.attrgetter("groups")
_ROLE = operator.attrgetter("role")


def key_label(key: GroupKey) -> str:
    """ "pod=1/su=3" -> "SU 3"; "tier=core" -> "Core switches"."""
    last = key.rsplit("/", 1)[-1]
    level, _, value = last.partition("=")
    if level == "tier":
        return TIER_LABELS.get(value, value)
    return f"{LEVEL_LABELS.get(level, level)} {value}"


def key_path_label(key: GroupKey) -> str:
    """ "plane=2/pod=1/su=3" -> "Plane 2 / Pod 1 / SU 3"."""
    parts = key.split("/")
    return " / ".join(key_label("/".join(parts[: i + 1])) for i in range(len(parts)))


def is_rack_key(key: GroupKey) -> bool:
    """A rack-scale system's scale-up domain (its trays): drawn as one rack when collapsed."""
    return key.rsplit("/", 1)[-1].startswith("domain=")


def parent_key(key: GroupKey) -> GroupKey | None:
    return key.rsplit("/", 1)[0] if "/" in key else None


def device_chain(d: Device) -> tuple[GroupKey, ...]:
    parts: list[str] = []
    chain: list[str] = []
    for level in LEVELS:
        value = d.groups.get(level)
        if value is not None:
            parts.append(f"{level}={value}")
            chain.append("/".join(parts))
    if len(parts) == (1 if "plane" in d.groups else 0):
        parts.append(f"tier={d.role.value}")
        chain.append("/".join(parts))
    return tuple(chain)


@dataclass
class GroupIndex:
    """Groups of one device list: who belongs where, at every depth of the chains."""

    keys: list[GroupKey]  # group id -> key
    key_id: dict[GroupKey, int]
    depth_gid: np.ndarray  # (depth, n_devices) group id at each depth, -1 past the chain
    members: list[np.ndarray]  # group id -> device indices (every depth below it too)
    is_tier: np.ndarray  # group id -> tier pseudo-group (drawn only when collapsed)
    depth: np.ndarray  # group id -> depth (0 outermost)
    role_code: np.ndarray  # per device, for edge classes
    group_label: np.ndarray  # per device: dragonfly group label (-1 none), local vs global
    role_id: np.ndarray  # per device: position of its role in ROLES (boxes count by role)

    @classmethod
    def build(cls, devices: tuple[Device, ...]) -> GroupIndex:
        key_id: dict[GroupKey, int] = {}
        depth_gid = _chain_columns(devices, key_id)
        return cls._finish(list(key_id), depth_gid, *_device_codes(devices))

    def carry_from(self, old: GroupIndex) -> GroupIndex:
        """Keep what ``old`` worked out from its keys alone when the keys are the same (an
        edit that empties or adds no group), so it is not worked out again; returns self."""
        if "racks_under" in old.__dict__ and self.keys == old.keys:
            self.__dict__["racks_under"] = old.racks_under
        return self

    def rebuilt(self, devices: tuple[Device, ...], source: np.ndarray) -> GroupIndex:
        """The index of ``devices``, equal to ``build(devices)``, reusing this one.

        ``source[i]`` is the position in this index's device list of a device whose groups
        and role are unchanged, or -1 for a device that is new or changed. An edit touches a
        few devices: only their chains are worked out in Python, the rest is gathered with
        numpy (deleting a switch of 13,312 devices costs a column gather, not a regroup).
        """
        n = len(devices)
        source = np.asarray(source, dtype=np.int64)
        fresh = np.flatnonzero(source < 0)
        key_id = dict(self.key_id)
        new_cols = _chain_columns([devices[i] for i in fresh.tolist()], key_id)
        max_depth = max(self.depth_gid.shape[0], new_cols.shape[0])
        depth_gid = np.full((max_depth, n), -1, dtype=np.int32)
        kept = np.flatnonzero(source >= 0)
        depth_gid[: self.depth_gid.shape[0], kept] = self.depth_gid[:, source[kept]]
        depth_gid[: new_cols.shape[0], fresh] = new_cols
        role_code = np.empty(n, np.int8)
        glabel = np.empty(n, np.int64)
        role_id = np.empty(n, np.int8)
        role_code[kept] = self.role_code[source[kept]]
        glabel[kept] = self.group_label[source[kept]]
        role_id[kept] = self.role_id[source[kept]]
        role_code[fresh], glabel[fresh], role_id[fresh] = _device_codes(
            [devices[i] for i in fresh.tolist()])
        return self._finish(list(key_id), depth_gid, role_code, glabel, role_id,
                            self).carry_from(self)

    @classmethod
    def _finish(
        cls, keys: list[GroupKey], depth_gid: np.ndarray, role_code: np.ndarray,
        glabel: np.ndarray, role_id: np.ndarray, prev: GroupIndex | None = None,
    ) -> GroupIndex:
        """Drop groups no device is in and number the rest in the order ``build`` meets them:
        by the first device that is in a group, outer groups before inner ones. What
        depends on the keys alone is taken from ``prev`` when the keys come out the same."""
        max_depth, n = depth_gid.shape
        flat_gid = depth_gid.ravel()
        on = flat_gid >= 0
        flat_gid = flat_gid[on]
        flat_dev = np.tile(np.arange(n, dtype=np.int64), max_depth)[on]
        flat_depth = np.repeat(np.arange(max_depth, dtype=np.int64), n)[on]
        n_old = len(keys)
        first = np.full(n_old, n, dtype=np.int64)
        np.minimum.at(first, flat_gid, flat_dev)
        level = np.zeros(n_old, dtype=np.int64)
        level[flat_gid] = flat_depth
        used = np.flatnonzero(first < n)
        order = used[np.lexsort((level[used], first[used]))]
        renumber = np.full(n_old + 1, -1, dtype=np.int32)  # last slot keeps -1 as -1
        renumber[order] = np.arange(order.size, dtype=np.int32)
        depth_gid = renumber[depth_gid]
        keys = [keys[g] for g in order.tolist()]
        if prev is not None and keys == prev.keys:  # an edit that made or emptied no group
            key_id, is_tier, depth = prev.key_id, prev.is_tier, prev.depth
        else:
            key_id = dict(zip(keys, range(len(keys)), strict=True))
            is_tier = np.array([k.rsplit("/", 1)[-1].startswith("tier=") for k in keys],
                               dtype=bool)
            depth = np.array([k.count("/") for k in keys], dtype=np.int32)
        members: list[np.ndarray] = []
        if keys:
            gid = renumber[flat_gid]
            # every group sits at one depth, and devices are listed in order within a depth,
            # so a stable sort by group leaves each group's members sorted
            by_group = np.argsort(gid, kind="stable")
            bounds = np.searchsorted(gid[by_group], np.arange(len(keys) + 1))
            devs = flat_dev[by_group]
            cut = bounds.tolist()  # Python ints: slicing by numpy scalars is slower
            members = [devs[a:b] for a, b in itertools.pairwise(cut)]
        return cls(keys, key_id, depth_gid, members, is_tier, depth, role_code, glabel, role_id)

    def __len__(self) -> int:
        return len(self.keys)

    def chain_of(self, device: int) -> list[GroupKey]:
        return [self.keys[g] for g in self.depth_gid[:, device].tolist() if g >= 0]

    def default_collapsed(self, among: set[GroupKey] | None = None) -> set[GroupKey]:
        """Every group of more than one device (or every such group ``among`` these keys),
        so a large design opens as its outermost boxes."""
        if among is not None:
            return {k for k in among if k in self.key_id and len(self.members[self.key_id[k]]) > 1}
        return {k for k, m in zip(self.keys, self.members, strict=True) if len(m) > 1}

    def rack_keys(self) -> set[GroupKey]:
        """The rack-scale domains: a design of any size shows each as one rack at first."""
        return {k for k in self.keys if is_rack_key(k)}

    @functools.cached_property
    def racks_under(self) -> dict[GroupKey, int]:
        """Rack-scale domains inside each group (an SU of 8 NVL72 racks: 8)."""
        out: dict[GroupKey, int] = {}
        for k in self.keys:
            if "domain=" not in k:
                continue
            parts = k.split("/")
            for i in range(1, len(parts)):
                prefix = "/".join(parts[:i])
                out[prefix] = out.get(prefix, 0) + 1
        return out


def _chain_columns(devices, key_id: dict[GroupKey, int]) -> np.ndarray:
    """(depth, len(devices)) group ids of each device's chain; new keys join ``key_id``."""
    # a device's chain depends on its labels and role only: one chain per distinct pair,
    # found with C-level maps (a loop over 37,752 devices took 0.2 s of the GUI thread)
    labels = map(tuple, map(dict.items, map(_GROUPS, devices)))
    pairs = list(zip(labels, map(_ROLE, devices), strict=True))
    distinct, which = factorize(pairs)  # in order of first appearance: key ids as before
    example = dict(zip(pairs, devices, strict=True))
    chains = [tuple(key_id.setdefault(k, len(key_id)) for k in device_chain(example[p]))
              for p in distinct]
    max_depth = max(map(len, chains), default=0)
    table = np.full((max_depth, len(chains)), -1, dtype=np.int32)
    for c, ids in enumerate(chains):
        table[: len(ids), c] = ids
    return table[:, which]


def _device_codes(devices) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    roles = list(map(_ROLE, devices))
    n = len(roles)
    role_code = np.fromiter(map(_ROLE_CODE_OF.__getitem__, roles), np.int8, n)
    glabel = np.fromiter(map(dict.get, map(_GROUPS, devices), itertools.repeat("group"),
                             itertools.repeat(-1)), np.int64, n)
    role_id = np.fromiter(map(_ROLE_ID.__getitem__, roles), np.int8, n)
    return role_code, glabel, role_id


@dataclass
class VisibleGraph:
    """What the canvas shows: devices not folded away, collapsed boxes, and summed links."""

    n_devices: int
    node_of: np.ndarray  # device -> node (a device's own index, or n_devices + group id)
    shown_devices: np.ndarray  # device indices drawn as themselves
    boxes: list[GroupKey]  # collapsed groups drawn as boxes
    frames: list[GroupKey]  # expanded labelled groups drawn as frames
    # aggregated edges between nodes
    edge_u: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    edge_v: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    edge_count: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    edge_bundles: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    edge_speed: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    edge_class: np.ndarray = field(default_factory=lambda: np.empty(0, np.int8))


def visible_graph(
    index: GroupIndex, links: LinkTable, collapsed: set[GroupKey], n_devices: int
) -> VisibleGraph:
    node_of = np.full(n_devices, -1, dtype=np.int64)
    flag = np.zeros(len(index) + 1, dtype=bool)  # last slot: "no group" (gid -1)
    for k in collapsed:
        g = index.key_id.get(k)
        if g is not None:
            flag[g] = True
    for depth in range(index.depth_gid.shape[0]):
        gid = index.depth_gid[depth]
        hit = (node_of < 0) & flag[gid]
        node_of[hit] = n_devices + gid[hit]
    shown = np.flatnonzero(node_of < 0)
    node_of[shown] = shown
    box_ids = np.unique(node_of[node_of >= n_devices] - n_devices)
    boxes = [index.keys[g] for g in box_ids.tolist()]
    # frames: expanded labelled groups that hold something shown (a device or a box)
    frame_ids = np.unique(index.depth_gid[:, shown]) if shown.size else np.empty(0, np.int32)
    open_keys = {index.keys[g] for g in frame_ids.tolist() if g >= 0}
    for k in boxes:
        parent = parent_key(k)
        while parent is not None:
            open_keys.add(parent)
            parent = parent_key(parent)
    frames = sorted(
        k for k in open_keys if k not in collapsed and not index.is_tier[index.key_id[k]]
    )
    vg = VisibleGraph(n_devices, node_of, shown, boxes, frames)
    _aggregate(vg, index, links)
    return vg


def _aggregate(vg: VisibleGraph, index: GroupIndex, links: LinkTable) -> None:
    if not len(links):
        return
    u = vg.node_of[links.a]
    v = vg.node_of[links.b]
    keep = u != v
    if not keep.any():
        return
    u, v = u[keep], v[keep]
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    key = lo * (vg.n_devices + len(index) + 1) + hi
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    count = np.bincount(inverse, weights=links.count[keep]).astype(np.int64)
    bundles = np.bincount(inverse).astype(np.int64)
    speed = np.zeros(uniq.size, np.int64)
    np.maximum.at(speed, inverse, links.speed_gbps[keep].astype(np.int64))
    cls = _link_class(index, links.a[keep], links.b[keep])
    edge_cls = np.zeros(uniq.size, np.int8)
    np.maximum.at(edge_cls, inverse, cls)
    vg.edge_u, vg.edge_v = lo[first], hi[first]
    vg.edge_count, vg.edge_bundles, vg.edge_speed, vg.edge_class = count, bundles, speed, edge_cls


def _link_class(index: GroupIndex, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ra, rb = index.role_code[a], index.role_code[b]
    lo, hi = np.minimum(ra, rb), np.maximum(ra, rb)
    out = np.full(a.shape, EDGE_OTHER, np.int8)
    out[(lo == 0) & (hi >= 1)] = EDGE_ENDPOINT
    out[(lo == 1) & (hi == 2)] = EDGE_LEAF_SPINE
    out[(lo == 2) & (hi == 3)] = EDGE_SPINE_CORE
    routers = (ra == 4) & (rb == 4)
    same = index.group_label[a] == index.group_label[b]
    out[routers & same] = EDGE_LOCAL
    out[routers & ~same] = EDGE_GLOBAL
    return out

