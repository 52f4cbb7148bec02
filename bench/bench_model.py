"""Project files at scale: a 65,536-GPU 3-tier fat-tree loads, validates and saves.

Targets (issue 2): each under 2 s on a 2-core machine, file under 20 MB.
Run: python bench/bench_model.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import orjson
from _util import best_of

from designer.core.fileformat import load_project, project_from_raw, save_project
from designer.core.generators import generate, params_from_dict


def main() -> None:
    project = generate(params_from_dict("fat-tree", {"gpus": 65536, "tiers": 3}))
    f = project.fabric
    print(
        f"65,536-GPU 3-tier fat-tree: {len(f.devices):,} devices, {len(f.links):,} bundles, "
        f"{f.links.n_cables:,} links"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.fabric.json"
        t_save, _ = best_of(lambda: save_project(project, path))
        size = path.stat().st_size
        t_load, loaded = best_of(lambda: load_project(path))
        raw = orjson.loads(path.read_bytes())
        t_validate, _ = best_of(lambda: project_from_raw(raw))
        t_parse, _ = best_of(lambda: orjson.loads(path.read_bytes()))
    assert loaded == project
    print(f"  save (atomic, with backup)   {t_save:6.3f} s   target < 2 s")
    print(f"  load (read+parse+validate)   {t_load:6.3f} s   target < 2 s")
    print(f"    of which JSON parse        {t_parse:6.3f} s")
    print(f"  validate (model + catalog)   {t_validate:6.3f} s   target < 2 s")
    print(f"  file size                    {size / 1e6:6.1f} MB  target < 20 MB")


if __name__ == "__main__":
    main()
