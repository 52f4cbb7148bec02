"""The wheel carries the data the app needs (the gear catalog, the example projects, the icon)
inside the package, and its version comes from one place. CI also installs the wheel into a
fresh virtual environment outside the checkout and runs the app from it (.ci/run)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

import designer
from designer.core.paths import projects_dir, resources_dir
from tests._paths import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # pip builds in the checkout's own build/ folder: two builds at once (two test workers,
    # or two test runs) tore each other's files away. So the build holds a lock every
    # process on the machine sees, and a run builds once (under xdist its workers'
    # temporary folders have one parent, made for this run).
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "wheel-shared"
    shared.mkdir(exist_ok=True)
    checkout = hashlib.sha1(str(ROOT.resolve()).encode()).hexdigest()[:12]
    lock_path = Path(tempfile.gettempdir()) / f"fabric-designer-wheel-{checkout}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = sorted(shared.glob("fabric_designer-*.whl"))
        if not built:
            build = tmp_path_factory.mktemp("build")
            done = subprocess.run(
                [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "-q", "-w", str(shared), str(ROOT)],
                capture_output=True, text=True, check=False, cwd=build,
                env={"PATH": "/usr/bin:/bin", "HOME": str(build), "PIP_NO_INPUT": "1"})
            assert done.returncode == 0, done.stderr[-3000:]
            built = sorted(shared.glob("fabric_designer-*.whl"))
    (found,) = built
    return found


def test_the_wheel_carries_the_catalog_examples_and_icon(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in (resources_dir() / "catalog").glob("*.json"):
        assert f"designer/_bundled/resources/catalog/{f.name}" in names
    assert "designer/_bundled/resources/icons/fabric-designer.svg" in names
    examples = sorted(p.name for p in projects_dir().glob("*.fabric.json"))
    assert examples and all(f"designer/_bundled/projects/{n}" in names for n in examples)
    assert not [n for n in names if n.endswith((".pyc", ".bak", ".recovery"))]
    # Help > Documentation reads the pages and their order from the package
    assert {"designer/_bundled/docs/index.md", "designer/_bundled/mkdocs.yml",
            "designer/_bundled/docs/getting-started.md"} <= names
    assert not [n for n in names if n.startswith("designer/_bundled/docs/hooks/")]


def test_the_version_is_the_packages(wheel):
    assert wheel.name.startswith(f"fabric_designer-{designer.__version__}-")
    meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert f"Version: {designer.__version__}\n" in text


def test_an_installed_package_finds_its_bundled_data(tmp_path, wheel, monkeypatch):
    """Unpacked where no checkout is beside it, the package reads its data with
    importlib.resources."""
    zipfile.ZipFile(wheel).extractall(tmp_path)
    code = ("import designer.core.paths as p, designer.core.catalog as c;"
            "import designer.core.docs as d, designer.core.examples as e;"
            "print(p.resources_dir()); print(p.projects_dir());"
            "print(len(list(c.builtin_catalog())));"
            "print(d.docs_dir()); print(len(d.pages())); print(len(e.examples()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin"},
                          check=False)
    assert done.returncode == 0, done.stderr
    res, proj, items, docs, n_pages, n_examples = done.stdout.split()
    assert res == str(tmp_path / "designer" / "_bundled" / "resources")
    assert proj == str(tmp_path / "designer" / "_bundled" / "projects")
    assert int(items) > 20
    assert docs == str(tmp_path / "designer" / "_bundled" / "docs")
    assert int(n_pages) > 20  # the site's nav, read from the bundled mkdocs.yml
    assert int(n_examples) == len(list(projects_dir().glob("*.fabric.json")))
