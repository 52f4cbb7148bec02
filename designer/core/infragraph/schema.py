"""What the InfraGraph schema (version 3.1, ``infragraph.proto`` / ``openapi.yaml``) asks of
names and endpoints, shared by the writer and the reader.

An Infrastructure holds ``devices`` (a device is components, links and edges inside it),
``links`` (named link kinds with a physical bandwidth), ``instances`` (``count`` copies of a
device) and ``edges`` between instance endpoints. An endpoint names an instance and a
component with Python slice notation (``leaf[3]`` and ``port[32:36]``); a ``one2one`` edge pairs
the expanded endpoints in order, ``many2many`` pairs each with each. Names match
``NAME_PATTERN``.
"""

from __future__ import annotations

import re

NAME_PATTERN = re.compile(r"^[\sa-zA-Z0-9\-_()><\[\]]+$")
_BAD = re.compile(r"[^a-zA-Z0-9\-_]+")

# component names this tool writes
XPU, NIC, PORT, ASIC, SCALE_UP = "xpu", "nic", "port", "asic", "scale_up_switch"
SCHEMA_VERSION = "3.1.0"


def safe_name(text: str, fallback: str = "item") -> str:
    """``text`` reduced to the characters every InfraGraph name may hold (dots and slashes
    become underscores), never empty."""
    out = _BAD.sub("_", text).strip("_")
    return out or fallback


def one(name: str, index: int) -> str:
    return f"{name}[{index}]"


def span(name: str, start: int, count: int) -> str:
    """``name[start]`` for one, ``name[start:start+count]`` for several (0-based)."""
    if count == 1:
        return f"{name}[{start}]"
    return f"{name}[{start}:{start + count}]"
