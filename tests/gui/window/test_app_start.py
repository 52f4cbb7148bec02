"""Starting the app where Qt cannot open a window gives a message, not an abort."""

from __future__ import annotations

import pytest

from designer.gui import app


@pytest.mark.parametrize(("soname", "package"), [
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
])
def test_missing_library_is_named_as_its_debian_package(soname, package):
    assert app.debian_package(soname) == package


def test_no_display_exits_2_with_one_line(monkeypatch, capsys):
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert app.run_app(None) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no display" in err[0]


def test_missing_x11_libraries_exit_2_naming_packages(monkeypatch, capsys):
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(app, "_missing_x11_libraries", lambda: ["libxcb-icccm4"])
    assert app.run_app(None) == 2
    assert "apt-get install libxcb-icccm4" in capsys.readouterr().err
