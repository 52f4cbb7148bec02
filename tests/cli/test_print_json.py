"""JSON output goes through the shown stream in one piece, still strict JSON."""

from __future__ import annotations

import io
import json
import math
import sys

from designer.cli.commands._common import print_json
from designer.cli.terminal import shown_output


class _Counting(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def test_print_json_writes_once_through_the_shown_stream(monkeypatch):
    inner = _Counting()
    monkeypatch.setattr(sys, "stdout", inner)
    data = {"jobs": [{"id": i, "slowdown": 1.0 + i / 7, "x": math.inf} for i in range(500)],
            "name": "evil\x1b[2J"}
    with shown_output():
        print_json(data)
    # json.dump would write each token on its own: thousands of writes here
    assert inner.writes == 1
    back = json.loads(inner.getvalue())
    assert back["jobs"][3] == {"id": 3, "slowdown": 1.0 + 3 / 7, "x": None}
    assert back["name"] == "evil\x1b[2J"  # escaped by the encoder, never raw on the terminal
    assert "\x1b" not in inner.getvalue()
