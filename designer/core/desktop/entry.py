"""The freedesktop.org files that put the application on a Linux desktop: the ``.desktop``
entry (Desktop Entry Specification 1.4) and the shared-mime-info package that gives project
files (``*.fabric.json``) a type of their own."""

from __future__ import annotations

import sys
from pathlib import Path

APP_ID = "fabric-designer"
DESKTOP_FILE = f"{APP_ID}.desktop"
MIME_TYPE = "application/x-fabric-designer"
PROJECT_GLOB = "*.fabric.json"
ICON_NAME = APP_ID


def designer_command() -> list[str]:
    """The command that starts this installation's ``designer``: the script beside the running
    interpreter (a virtual environment's or pipx's), else ``python -m designer``."""
    script = Path(sys.executable).parent / "designer"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "designer"]


def _exec_quote(arg: str) -> str:
    """One argument of an Exec line, quoted as the specification asks when it must be."""
    reserved = set(' \t\n"\'\\><~|&;$*?#()`')
    if not any(c in reserved for c in arg):
        return arg.replace("%", "%%")
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`").replace(
        "$", "\\$").replace("%", "%%")
    # inside a desktop file's string value a backslash is itself escaped once more
    return '"' + escaped.replace("\\", "\\\\") + '"'


def desktop_entry(command: list[str] | None = None) -> str:
    exec_line = " ".join(_exec_quote(a) for a in (command or designer_command()))
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.4",
        "Name=Fabric Designer",
        "GenericName=GPU Cluster Network Designer",
        "Comment=Design, generate and analyse the back-end network fabric of GPU clusters",
        f"Exec={exec_line} %f",
        f"Icon={ICON_NAME}",
        "Terminal=false",
        "Categories=Development;Engineering;",
        f"MimeType={MIME_TYPE};",
        "Keywords=network;fabric;InfiniBand;RoCE;Ethernet;fat-tree;GPU;cluster;",
        "StartupNotify=true",
        "",
    ])


def mime_package() -> str:
    """The MIME type of project files. Their glob weighs more than ``*.json`` so they are not
    taken for plain JSON, of which they are a sub-class."""
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">',
        f'  <mime-type type="{MIME_TYPE}">',
        "    <comment>Fabric Designer project</comment>",
        '    <sub-class-of type="application/json"/>',
        f'    <glob pattern="{PROJECT_GLOB}" weight="80"/>',
        f'    <icon name="{ICON_NAME}"/>',
        "  </mime-type>",
        "</mime-info>",
        "",
    ])
