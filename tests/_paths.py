"""Where the tests find the checkout, their recorded data and the bundled examples, whatever
folder a test file sits in (tests mirror the packages, so their depth varies)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
PROJECTS = ROOT / "projects"
