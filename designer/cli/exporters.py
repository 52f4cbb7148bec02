"""Registers every export format with ``designer export``. One line per format module."""

from __future__ import annotations
