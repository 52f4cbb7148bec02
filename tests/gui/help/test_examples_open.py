"""Every bundled example opens in the window; large ones open folded into their groups."""

from __future__ import annotations

import pytest

from designer.core.paths import projects_dir

EXAMPLES = sorted(projects_dir().glob("*.fabric.json"))


@pytest.mark.skipif(not EXAMPLES, reason="no example projects")
def test_every_example_opens(window, answers):
    for path in EXAMPLES:
        assert window.open_path(path, ask=False), (path, answers.errors)
        n = len(window.doc.project.fabric.devices)
        shown = len(window.scene.device_items) + len(window.scene.box_items)
        if n > 300:
            assert shown < n / 4, path.name  # opened collapsed
        else:
            assert len(window.scene.device_items) == n, path.name
        assert not window.doc.modified
        assert window.actions_.profile_combo.currentData() == window.doc.project.profile
