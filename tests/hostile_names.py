"""A RoCE design whose devices carry every kind of name that breaks a naive exporter.

Shared by the export walk (every format of ``designer export``), the consumer tests (LibreOffice,
``vtysh --dryrun``, YAML and JSON parsers) and the fuzz script. Each name is one a project file
accepts (no control characters, at most 200 characters) and one class of damage:
formula starts (``=``, ``+``, ``-``, ``@``, a command form, behind spaces or invisible
characters, or after a separator a spreadsheet may split at), markup, spaces and ``:`` (FRR and
containerlab), ``/`` and ``..`` (paths), accents and scripts other than Latin, names equal but
for case or for the characters a file name cannot hold (so a naive mapping collides), reserved
file names, and the longest name allowed.
"""

from __future__ import annotations

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.model import Project

SWITCH_NAMES = (
    "Leaf 1",  # a space: 'hostname Leaf 1' is refused by FRR
    "leaf:2",  # ':' splits containerlab endpoints
    "Über-leaf",  # not ASCII; FRR wants a letter or digit first
    "=1+1 (leaf)",
    "\u200b=HYPERLINK(\"http://example.invalid\",\"x\")",  # a formula behind a zero-width space
    "spine/1",  # a path separator
    "<b>spine</b> & co",  # markup
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\u00a0+cmd",  # a formula start behind a no-break space
    "x;=1+1",  # a formula after a separator some locales split at
    "s" * 200,  # the longest name a project keeps
)
SERVER_NAMES = (
    "srv a", "srv_a", "srv-a", "SRV-A",  # one file name or one hostname for a naive mapping
    "..", "con", "-2+3", "+1+1", "ℌ𝔬𝔰𝔱 ✓", "שרת-1", "a\u202fb", "\ufeffbom",
)
PROJECT_NAME = "=cmd|' /C calc'!A0 <script>alert(1)</script>"


def hostile_project() -> Project:
    """A two-SU RoCE rail design (16 servers, 16 leaves and their spines) with the names
    above."""
    project = generate(params_from_dict("rail", {"sus": 2, "servers_per_su": 8,
                                                 "gear": "roce-400"}), builtin_catalog())
    devices = list(project.fabric.devices)
    switches = [i for i, d in enumerate(devices) if d.role.is_switch]
    servers_at = [i for i, d in enumerate(devices) if d.role.value == "gpu-server"]
    for i, name in zip(switches, SWITCH_NAMES, strict=False):
        devices[i] = devices[i].model_copy(update={"name": name})
    for i, name in zip(servers_at, SERVER_NAMES, strict=False):
        devices[i] = devices[i].model_copy(update={"name": name})
    project = project.with_fabric(project.fabric.with_devices(tuple(devices)))
    return project.model_copy(update={"name": PROJECT_NAME, "notes": "@notes =1+1"})


def hostile_names(project: Project) -> set[str]:
    return {d.name for d in project.fabric.devices} | {project.name}
