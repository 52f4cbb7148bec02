"""Which groups of the canvas are folded into boxes: on opening, after an edit, on request.

A large design opens folded, and groups an edit adds to it arrive folded, so the canvas never
has to draw tens of thousands of devices at once; a rack-scale system arrives as one rack.
The folding is kept in the document's view state, so a saved design reopens as it was left.
"""

from __future__ import annotations

from designer.gui.canvas.groups import GroupIndex, is_rack_key

COLLAPSE_ABOVE = 300  # designs with more devices open with their groups collapsed


class Folding:
    """Collapse and expand the groups of a ``CanvasScene``.

    Part of ``CanvasScene`` (a mixin, not used alone). Relies on the scene's ``doc``,
    ``index`` (the group index shown), ``collapsed``, ``vg`` (what is shown now),
    ``_generator_ref``, the ``collapsedChanged`` signal, and on ``flush`` (sync) and
    ``_refresh_visible`` (drawing).
    """

    def _folding(self, index: GroupIndex, n: int, initial_collapsed: list[str] | None
                 ) -> set[str]:
        """The groups collapsed once ``index`` (of ``n`` devices) is shown. Changes nothing."""
        old_keys = set(self.index.keys)
        collapsed = set(self.collapsed)
        generator = self.doc.project.generator
        if generator is not None and generator != self._generator_ref:
            old_keys = set()  # a newly generated design: fold it like a freshly opened one
            collapsed = set()
        keys = set(index.keys)
        if initial_collapsed is not None:
            return {k for k in initial_collapsed if k in keys}
        if not old_keys and n > COLLAPSE_ABOVE:
            return index.default_collapsed()
        collapsed &= keys
        added = keys - old_keys  # an edit adds few groups, if any: look at those only
        if n > COLLAPSE_ABOVE:  # new groups of a large design arrive folded
            collapsed |= index.default_collapsed(added)
        # a rack-scale system arrives as one rack (double-click opens it to its trays)
        collapsed |= {k for k in added if is_rack_key(k)}
        return collapsed

    def _store_collapsed(self) -> None:
        self.doc.view_state["collapsed"] = sorted(self.collapsed)

    def set_collapsed(self, keys: set[str]) -> None:
        self.flush()
        keys = {k for k in keys if k in self.index.key_id}
        if keys == self.collapsed:
            return
        self.collapsed = keys
        self._store_collapsed()
        self._refresh_visible()
        self.collapsedChanged.emit()

    def collapse(self, key: str) -> None:
        self.set_collapsed(self.collapsed | {key})

    def expand(self, key: str) -> None:
        self.set_collapsed(self.collapsed - {key})

    def collapse_all(self) -> None:
        self.set_collapsed(self.index.default_collapsed())

    def expand_all(self) -> None:
        self.set_collapsed(set())

    def expand_one_level(self) -> None:
        """Open the outermost collapsed boxes shown now."""
        self.flush()
        self.set_collapsed(self.collapsed - set(self.vg.boxes))

    def collapse_one_level(self) -> None:
        """Fold the innermost open groups that still show devices."""
        self.flush()
        frames = [k for k in self.vg.frames]
        if not frames:
            self.collapse_all()
            return
        deepest = max(k.count("/") for k in frames)
        self.set_collapsed(self.collapsed | {k for k in frames if k.count("/") == deepest})
