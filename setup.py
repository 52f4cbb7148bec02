"""Build hook: the wheel carries the top-level ``resources/``, ``projects/`` and ``docs/`` folders
(and mkdocs.yml, the pages' order) inside the package (``designer/_bundled/``), where
``designer.core.paths`` finds them with ``importlib.resources``: Help > Documentation reads the
pages there. Everything else is declared in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

BUNDLED = ("resources", "projects", "docs")
BUNDLED_FILES = ("mkdocs.yml",)


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        root = Path(__file__).resolve().parent
        for name in BUNDLED:
            src = root / name
            if src.is_dir():
                dst = Path(self.build_lib) / "designer" / "_bundled" / name
                shutil.copytree(src, dst, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("*.bak", "*.recovery", "hooks",
                                                              "__pycache__"))
        for name in BUNDLED_FILES:
            if (root / name).is_file():
                shutil.copy2(root / name, Path(self.build_lib) / "designer" / "_bundled" / name)


setup(cmdclass={"build_py": BuildWithData})
