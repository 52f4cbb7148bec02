"""Tooltip texts of the canvas: a device's ports used and free, a box's contents, a line's
cables, speed, medium and ports. Built on demand when the mouse rests, never stored."""

from __future__ import annotations

from typing import TYPE_CHECKING

from designer.core.catalog import TECH_LABELS
from designer.core.editing import bundle_info
from designer.core.errors import DesignerError
from designer.core.ports import port_layout, used_port_counts
from designer.gui.canvas.groups import EDGE_CLASS_NAMES, key_path_label

if TYPE_CHECKING:
    from designer.gui.canvas.scene_view import SceneView


def device(scene: SceneView, device_id: str) -> str:
    fabric = scene.fabric
    i = fabric.index[device_id]
    d = fabric.devices[i]
    cat = scene.doc.catalog
    lines = [f"<b>{d.name}</b> &nbsp;<span style='color:#5d6876'>{d.role.label}</span>"]
    try:
        spec = cat.get(d.model)
        lay = port_layout(d, cat)
        used = int(used_port_counts(fabric)[i])
        techs = "/".join(TECH_LABELS.get(t, t) for t in lay.techs)
        lines.append(f"{spec.name}")
        lines.append(f"{lay.count} x {lay.speed_gbps}G ports ({techs})")
        lines.append(f"Ports: <b>{used}</b> used, <b>{lay.count - used}</b> free")
        if lay.gpus:
            lines.append(f"{lay.gpus} GPUs, {lay.per_gpu or '?'} port(s) per GPU")
    except DesignerError as exc:
        lines.append(f"<span style='color:#c62828'>{exc}</span>")
    if d.groups:
        lines.append(", ".join(f"{k} {v}" for k, v in d.groups.items()))
    if d.id != d.name:
        lines.append(f"id {d.id}")
    lines.append("<span style='color:#5d6876'>Drag the dot on its right edge to link it</span>")
    return "<br>".join(lines)


def box(scene: SceneView, key: str) -> str:
    g = scene.index.key_id[key]
    members = scene.index.members[g]
    look = scene.box_look(key, members, scene.box_rect(members))
    return (
        f"<b>{key_path_label(key)}</b> (collapsed)<br>{look.summary}<br>"
        "<span style='color:#5d6876'>Double-click to expand</span>"
    )


def edge(scene: SceneView, edge: int) -> str:
    a, b = scene.edge_nodes(edge)
    vg = scene.vg
    count, speed = int(vg.edge_count[edge]), int(vg.edge_speed[edge])
    layer = EDGE_CLASS_NAMES[int(vg.edge_class[edge])]
    name = lambda k: key_path_label(k[4:]) if k.startswith("box:") else k  # noqa: E731
    head = f"<b>{name(a)}</b> — <b>{name(b)}</b>"
    if a.startswith("box:") or b.startswith("box:"):
        return (
            f"{head}<br>{count:,} links of up to {speed}G in {int(vg.edge_bundles[edge]):,} "
            f"bundle(s) ({layer})"
        )
    info = bundle_info(scene.doc.project, scene.doc.catalog, a, b)
    length = f"{info.length_m:g} m" if info.length_m is not None else "default length"
    return (
        f"{head}<br><b>{info.count}</b> x {info.speed_gbps}G, medium {info.medium}, {length}"
        f"<br>ports {a}: {info.a_ports} · {b}: {info.b_ports}"
    )
