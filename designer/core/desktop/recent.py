"""The desktop's list of recently used files (``$XDG_DATA_HOME/recently-used.xbel``, the XBEL
file GTK and KDE file dialogs and file managers read), so a project opened or saved here shows
under "Recent" elsewhere too."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from pathlib import Path

from designer.core.desktop.entry import MIME_TYPE, designer_command
from designer.core.desktop.installer import data_home, write_text_atomic

BOOKMARK_NS = "http://www.freedesktop.org/standards/desktop-bookmarks"
MIME_NS = "http://www.freedesktop.org/standards/shared-mime-info"
APP_NAME = "Fabric Designer"
MAX_BYTES = 8 * 1024 * 1024  # a larger file is left alone rather than read
MAX_ENTRIES = 1000  # the oldest are dropped past this many

ET.register_namespace("bookmark", BOOKMARK_NS)
ET.register_namespace("mime", MIME_NS)


def recent_file() -> Path:
    return data_home() / "recently-used.xbel"


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def add_recent(path: str | Path, xbel: Path | None = None) -> bool:
    """Record ``path`` as used now. Returns False (and changes nothing) when the list cannot be
    read as XBEL or written: the desktop's list is a courtesy, never a reason to fail."""
    target = xbel or recent_file()
    uri = Path(path).resolve().as_uri()
    try:
        if target.is_file():
            if target.stat().st_size > MAX_BYTES:
                return False
            root = ET.parse(target).getroot()
            if root.tag != "xbel":
                return False
        else:
            root = ET.Element("xbel", {"version": "1.0"})
        now = _now()
        mark = next((b for b in root.findall("bookmark") if b.get("href") == uri), None)
        if mark is None:
            mark = ET.SubElement(root, "bookmark", {"href": uri, "added": now})
        mark.set("modified", now)
        mark.set("visited", now)
        meta = _metadata(mark)
        if meta.find(f"{{{MIME_NS}}}mime-type") is None:
            ET.SubElement(meta, f"{{{MIME_NS}}}mime-type", {"type": MIME_TYPE})
        apps = meta.find(f"{{{BOOKMARK_NS}}}applications")
        if apps is None:
            apps = ET.SubElement(meta, f"{{{BOOKMARK_NS}}}applications")
        app = next((a for a in apps if a.get("name") == APP_NAME), None)
        if app is None:
            app = ET.SubElement(apps, f"{{{BOOKMARK_NS}}}application", {
                "name": APP_NAME, "exec": f"'{' '.join(designer_command())} %u'", "count": "0"})
        app.set("modified", now)
        app.set("count", str(int(app.get("count", "0") or 0) + 1))
        marks = root.findall("bookmark")
        for old in sorted(marks, key=lambda b: b.get("modified", ""))[:-MAX_ENTRIES]:
            root.remove(old)
        ET.indent(root)
        text = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                + ET.tostring(root, encoding="unicode") + "\n")
        write_text_atomic(target, text)
    except (OSError, ET.ParseError, ValueError):
        return False
    return True


def _metadata(mark: ET.Element) -> ET.Element:
    info = mark.find("info")
    if info is None:
        info = ET.SubElement(mark, "info")
    meta = info.find("metadata")
    if meta is None:
        meta = ET.SubElement(info, "metadata", {"owner": "http://freedesktop.org"})
    return meta
