"""Desktop integration: the menu entry, the icon, the project-file MIME type and the desktop's
recently used files, installed for one user under temporary XDG folders."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from designer.cli.main import main
from designer.core.desktop import installer as desk
from designer.core.desktop.entry import DESKTOP_FILE, MIME_TYPE, desktop_entry
from designer.core.desktop.recent import add_recent


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def _tool(name: str) -> str:
    exe = shutil.which(name)
    if exe is None:
        pytest.skip(f"{name} is not installed (Debian: xdg-utils, shared-mime-info, "
                    "desktop-file-utils, libfile-mimeinfo-perl)")
    return exe


def test_install_writes_the_entry_icon_and_type_and_uninstall_removes_them(xdg, capsys):
    mimeapps = xdg / "config" / "mimeapps.list"
    mimeapps.parent.mkdir(parents=True)
    mimeapps.write_text("[Default Applications]\ntext/plain=Editor.desktop\n")
    assert main(["desktop", "install"]) == 0
    st = desk.status()
    assert st == {**st, "entry": True, "icon": True, "mime": True,
                  "default_for_projects": True}
    text = mimeapps.read_text()
    assert "text/plain=Editor.desktop" in text  # the user's other defaults stay
    assert f"{MIME_TYPE}={DESKTOP_FILE}" in text
    assert main(["desktop", "uninstall"]) == 0
    st = desk.status()
    assert not (st["entry"] or st["icon"] or st["mime"] or st["default_for_projects"])
    assert "text/plain=Editor.desktop" in mimeapps.read_text()


def test_a_double_click_opens_project_files_here(xdg):
    """What the desktop asks when a *.fabric.json file is double-clicked: its type, and the
    default application for that type (xdg-mime reads the installed files)."""
    xdg_mime = _tool("xdg-mime")
    _tool("update-mime-database")
    _tool("mimetype")  # xdg-mime's generic mode asks File::MimeInfo for a file's type
    desk.install()
    project = xdg / "cluster.fabric.json"
    project.write_text('{"schema_version": 2}')
    env = {"XDG_DATA_HOME": str(xdg / "data"), "XDG_CONFIG_HOME": str(xdg / "config"),
           "PATH": "/usr/bin:/bin", "HOME": str(xdg)}
    kind = subprocess.run([xdg_mime, "query", "filetype", str(project)], capture_output=True,
                          text=True, env=env, check=True).stdout.strip()
    default = subprocess.run([xdg_mime, "query", "default", kind], capture_output=True,
                             text=True, env=env, check=True).stdout.strip()
    assert (kind, default) == (MIME_TYPE, DESKTOP_FILE)
    # a plain JSON file is still JSON
    plain = xdg / "other.json"
    plain.write_text("{}")
    other = subprocess.run([xdg_mime, "query", "filetype", str(plain)], capture_output=True,
                           text=True, env=env, check=True).stdout.strip()
    assert other == "application/json"


def test_the_entry_is_valid_and_quotes_a_path_with_spaces(xdg, tmp_path):
    validate = _tool("desktop-file-validate")
    entry = desktop_entry(["/opt/My Apps/designer"])
    assert 'Exec="/opt/My Apps/designer" %f' in entry
    f = tmp_path / "fabric-designer.desktop"
    f.write_text(entry)
    done = subprocess.run([validate, str(f)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_recently_used_files_reach_the_desktops_list(tmp_path):
    xbel = tmp_path / "recently-used.xbel"
    project = tmp_path / "a b.fabric.json"
    project.write_text("{}")
    assert add_recent(project, xbel)
    assert add_recent(project, xbel)  # the same file again: one entry, counted twice
    root = ET.parse(xbel).getroot()
    marks = root.findall("bookmark")
    assert [m.get("href") for m in marks] == [project.resolve().as_uri()]
    app = marks[0].find(".//{http://www.freedesktop.org/standards/desktop-bookmarks}"
                        "application")
    assert app.get("name") == "Fabric Designer" and app.get("count") == "2"
    assert marks[0].find(".//{http://www.freedesktop.org/standards/shared-mime-info}"
                         "mime-type").get("type") == MIME_TYPE


def test_a_list_that_is_not_xbel_is_left_alone(tmp_path):
    xbel = tmp_path / "recently-used.xbel"
    xbel.write_text("<not-xbel/>")
    assert not add_recent(tmp_path / "x.fabric.json", xbel)
    assert xbel.read_text() == "<not-xbel/>"
    xbel.write_text("<xbel><broken")
    assert not add_recent(tmp_path / "x.fabric.json", xbel)
