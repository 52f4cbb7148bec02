"""Build hook: the wheel carries the top-level ``resources/`` and ``projects/`` folders inside
the package (``designer/_bundled/``), where ``designer.core.paths`` finds them with
``importlib.resources``. Everything else is declared in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

BUNDLED = ("resources", "projects")


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        root = Path(__file__).resolve().parent
        for name in BUNDLED:
            src = root / name
            if src.is_dir():
                dst = Path(self.build_lib) / "designer" / "_bundled" / name
                shutil.copytree(src, dst, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("*.bak", "*.recovery"))


setup(cmdclass={"build_py": BuildWithData})
