"""The design as GraphML for yEd, Gephi, networkx and the like.

One node per device and one edge per pair of connected devices (its cables summed), so the
graph stays the size of the design's drawing rather than of its cable count, and tools that
merge parallel edges anyway (Gephi) show the same thing. Attributes carry what an analyst
filters on: device role, tier, model, group labels; link layer, cable count, speed and
capacity. Names Gephi maps to its own view (``label``, ``x``, ``y``, ``size``, ``r``, ``g``,
``b``, ``weight``) are set, and each node also carries yEd's shape data (position, size,
colour, label) so yEd opens it drawn instead of as one pile.

Written as text in one pass with numpy for the per-pair sums: a 65,536-GPU design (13,000
devices, 200,000 cables) takes well under a second, where building a networkx graph alone
would take about as long.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from designer.core.catalog import Catalog
from designer.core.links import MEDIA
from designer.core.model import GROUP_KEYS, ROLE_COLORS, TIER_OF_ROLE, Project, Role
from designer.core.solver.media import MediaPlan, choose_media
from designer.core.writers.output import write_bytes
from designer.core.writers.safety import xml_text

NODE_SIZE = {Role.GPU_SERVER.value: (50.0, 24.0), Role.APPLIANCE.value: (50.0, 24.0)}
SWITCH_SIZE = (60.0, 30.0)

NODE_KEYS: tuple[tuple[str, str], ...] = (
    ("label", "string"),
    ("name", "string"),
    ("role", "string"),
    ("tier", "int"),
    ("model", "string"),
    ("gpus", "int"),
    *((g, "int") for g in GROUP_KEYS),
    ("x", "double"),
    ("y", "double"),
    ("size", "double"),
    ("r", "int"),
    ("g", "int"),
    ("b", "int"),
)
EDGE_KEYS: tuple[tuple[str, str], ...] = (
    ("label", "string"),
    ("layer", "string"),
    ("cables", "int"),
    ("speed_gbps", "int"),
    ("capacity_gbps", "double"),
    ("medium", "string"),
    ("weight", "double"),
)


def _attr(value: str) -> str:
    return quoteattr(xml_text(value))


def _text(value: str) -> str:
    # a bare CR would be read back as LF (XML line-end rules): keep it as a reference
    return escape(xml_text(value), {"\r": "&#13;"})


def pair_edges(project: Project, media: MediaPlan) -> dict:
    """Links summed per unordered device pair (numpy, no loop over cables or pairs); each
    edge lists the medium classes its cables use and takes the layer of its first cable."""
    links = project.fabric.links
    n = max(len(project.fabric.devices), 1)
    lo = np.minimum(links.a, links.b).astype(np.int64)
    hi = np.maximum(links.a, links.b).astype(np.int64)
    keys, first, inverse = np.unique(lo * n + hi, return_index=True, return_inverse=True)
    count = links.count.astype(np.int64)
    cables = np.bincount(inverse, weights=count, minlength=len(keys)).astype(np.int64)
    capacity = np.bincount(inverse, weights=count * links.speed_gbps, minlength=len(keys))
    speed_min = np.full(len(keys), np.iinfo(np.int64).max, np.int64)
    speed_max = np.zeros(len(keys), np.int64)
    np.minimum.at(speed_min, inverse, links.speed_gbps.astype(np.int64))
    np.maximum.at(speed_max, inverse, links.speed_gbps.astype(np.int64))
    mediums = np.empty(0, dtype=object)
    layer = np.empty(0, dtype=object)
    if len(keys):
        # one bit per medium class a pair's cables use; the few distinct sets are named once
        cable_edge = np.repeat(inverse, count)
        used = np.zeros(len(keys), np.int64)
        np.bitwise_or.at(used, cable_edge, np.left_shift(1, media.medium_class.astype(np.int64)))
        sets, which = np.unique(used, return_inverse=True)
        mediums = np.array([_medium_set(int(x)) for x in sets], dtype=object)[which]
        first_cable = np.cumsum(count) - count  # first cable of every bundle
        layer = np.array(media.layers, dtype=object)[media.layer[first_cable[first]]]
    return {
        "a": (keys // n).astype(np.int64),
        "b": (keys % n).astype(np.int64),
        "cables": cables,
        "capacity_gbps": capacity,
        "speed_min": speed_min,
        "speed_max": speed_max,
        "layer": layer,
        "medium": mediums,
    }


def _medium_set(bits: int) -> str:
    """``dac+mmf`` for the classes set in ``bits`` (by ``MEDIA`` code), in name order; code 0
    (no medium found) is left out."""
    return "+".join(sorted(name for code, name in enumerate(MEDIA) if code and bits >> code & 1))


def _hex_rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def graphml_chunks(
    project: Project, catalog: Catalog, media: MediaPlan | None = None
) -> Iterator[str]:
    """The file as text chunks; ``media``: the solver's choice (``Result.media``), made here
    when not given."""
    if media is None:
        media = choose_media(project, catalog)
    fabric = project.fabric
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield (
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"'
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        ' xmlns:y="http://www.yworks.com/xml/graphml"'
        ' xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns'
        ' http://www.yworks.com/xml/schema/graphml/1.1/ygraphml.xsd">\n'
    )
    yield '  <key id="g_name" for="graph" attr.name="name" attr.type="string"/>\n'
    yield '  <key id="g_profile" for="graph" attr.name="profile" attr.type="string"/>\n'
    yield '  <key id="n_yfiles" for="node" yfiles.type="nodegraphics"/>\n'
    for name, kind in NODE_KEYS:
        yield f'  <key id="n_{name}" for="node" attr.name="{name}" attr.type="{kind}"/>\n'
    for name, kind in EDGE_KEYS:
        yield f'  <key id="e_{name}" for="edge" attr.name="{name}" attr.type="{kind}"/>\n'
    yield '  <graph id="fabric" edgedefault="undirected">\n'
    yield f'    <data key="g_name">{_text(project.name)}</data>\n'
    yield f'    <data key="g_profile">{_text(project.profile)}</data>\n'

    gpu_cache: dict[str, int] = {}

    def gpus_of(model: str) -> int:
        # an unknown model must not stop a diagram export: it shows 0 GPUs
        if model not in gpu_cache:
            spec = catalog.get(model) if model in catalog else None
            gpu_cache[model] = int(getattr(spec, "gpus", 0) or 0)
        return gpu_cache[model]

    for d in fabric.devices:
        role = d.role.value
        fill, outline = ROLE_COLORS.get(role, ("#FFFFFF", "#666666"))
        w, h = NODE_SIZE.get(role, SWITCH_SIZE)
        r, g, b = _hex_rgb(outline)
        label = _text(d.name)
        parts = [
            f'    <node id={_attr(d.id)}>\n',
            '      <data key="n_yfiles"><y:ShapeNode>'
            f'<y:Geometry x="{d.x - w / 2:.1f}" y="{d.y - h / 2:.1f}" width="{w:.0f}"'
            f' height="{h:.0f}"/><y:Fill color="{fill}" transparent="false"/>'
            f'<y:BorderStyle color="{outline}" type="line" width="1.0"/>'
            f'<y:NodeLabel fontSize="10">{label}</y:NodeLabel>'
            '<y:Shape type="roundrectangle"/></y:ShapeNode></data>\n',
            f'      <data key="n_label">{label}</data>\n',
            f'      <data key="n_name">{label}</data>\n',
            f'      <data key="n_role">{role}</data>\n',
            f'      <data key="n_tier">{TIER_OF_ROLE.get(d.role, 0)}</data>\n',
            f'      <data key="n_model">{_text(d.model)}</data>\n',
            f'      <data key="n_gpus">{gpus_of(d.model)}</data>\n',
        ]
        for key in GROUP_KEYS:
            if key in d.groups:
                parts.append(f'      <data key="n_{key}">{int(d.groups[key])}</data>\n')
        parts.append(
            f'      <data key="n_x">{d.x:.1f}</data>\n      <data key="n_y">{d.y:.1f}</data>\n'
            f'      <data key="n_size">{w / 2:.0f}</data>\n'
            f'      <data key="n_r">{r}</data>\n      <data key="n_g">{g}</data>\n'
            f'      <data key="n_b">{b}</data>\n    </node>\n'
        )
        yield "".join(parts)

    edges = pair_edges(project, media)
    ids = [_attr(d.id) for d in fabric.devices]
    lines: list[str] = []
    for i, (a, b, cables, cap, s_lo, s_hi, layer, medium) in enumerate(zip(
        edges["a"].tolist(), edges["b"].tolist(), edges["cables"].tolist(),
        edges["capacity_gbps"].tolist(), edges["speed_min"].tolist(),
        edges["speed_max"].tolist(), edges["layer"], edges["medium"], strict=True,
    )):
        speed = f"{s_lo}G" if s_lo == s_hi else f"{s_lo}-{s_hi}G"
        lines.append(
            f'    <edge id="e{i}" source={ids[a]} target={ids[b]}>'
            f'<data key="e_label">{cables} x {speed}</data>'
            f'<data key="e_layer">{layer}</data>'
            f'<data key="e_cables">{cables}</data>'
            f'<data key="e_speed_gbps">{s_lo}</data>'
            f'<data key="e_capacity_gbps">{cap:.1f}</data>'
            f'<data key="e_medium">{_text(medium)}</data>'
            f'<data key="e_weight">{cables}</data></edge>\n'
        )
        if len(lines) >= 4096:
            yield "".join(lines)
            lines.clear()
    yield "".join(lines)
    yield "  </graph>\n</graphml>\n"


def graphml_bytes(project: Project, catalog: Catalog, media: MediaPlan | None = None) -> bytes:
    return "".join(graphml_chunks(project, catalog, media)).encode("utf-8")


def write_graphml(
    project: Project,
    catalog: Catalog,
    path: str | os.PathLike[str],
    media: MediaPlan | None = None,
) -> dict[str, int]:
    """Write the GraphML file; returns its node and edge counts."""
    data = graphml_bytes(project, catalog, media)
    write_bytes(path, data)
    edges = data.count(b"<edge ")
    return {"nodes": len(project.fabric.devices), "edges": edges}
