"""The core never imports Qt: checked in a fresh interpreter (imports are cached in this one)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_importing_every_core_module_loads_no_qt():
    script = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        import designer.core
        for mod in pkgutil.walk_packages(designer.core.__path__, "designer.core."):
            importlib.import_module(mod.name)
        import designer.cli.main
        from designer.cli.commands import COMMANDS
        from designer.cli.main import build_parser
        build_parser()
        for name in COMMANDS:
            if name != "open":
                build_parser(name)
        qt = {"PySide6", "pyqtgraph", "shiboken6"}
        bad = sorted(m for m in sys.modules if m.split(".")[0] in qt)
        print(",".join(bad))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, f"importing the core failed:\n{out.stderr}"
    assert out.stdout.strip() == "", f"Qt modules loaded by the core or CLI: {out.stdout}"
