"""The names a design's devices take in other systems: one safe, unique, reversible mapping per
target.

A device name is free text (``Leaf 1``, ``spine:2``, ``Über-1``); the systems a design is
exported to are not: FRR refuses ``hostname Leaf 1`` and a hostname that does not start with a
letter or digit, SONiC keys its tables by hostname and splits keys at ``|``, containerlab makes
a container per node and splits endpoints at ``:``, and two names that differ only in case are
one file on macOS and Windows. So each target has a rule, and ``map_names`` gives every device
a name that

* follows the rule (safe),
* is not given to any other device, case-insensitively (unique: nothing is overwritten),
* is the name itself whenever that already follows the rule and is free, and otherwise the
  name made safe plus a short hash of the device's id, so a renamed device can never take the
  name of another; the table of renamed devices is written beside the export (``plan.json``),
  so every mapped name leads back to its device (reversible).

Targets: ``HOSTNAME`` (an RFC 1123 label: FRR and SONiC hostnames, SONiC table keys, and
containerlab node names, since a node is that switch's container and carries its hostname) and
``FILE`` (a file name on Linux, macOS and Windows alike).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Target:
    name: str
    allowed: re.Pattern[str]  # the characters a mapped name may hold
    valid: re.Pattern[str]  # a whole mapped name
    max_len: int
    rule: str  # the rule in words, for messages and plan.json


HOSTNAME = Target(
    "hostname", re.compile(r"[A-Za-z0-9-]"),
    re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"), 63,
    "RFC 1123 hostname label: letters, digits and '-', at most 63, a letter or digit at "
    "both ends (FRR, SONiC, containerlab)")
FILE = Target(
    "file", re.compile(r"[A-Za-z0-9._-]"),
    re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?"), 100,
    "file name: letters, digits, '.', '_' and '-', at most 100, a letter or digit at both "
    "ends (the same on Linux, macOS and Windows)")
TARGETS = {t.name: t for t in (HOSTNAME, FILE)}
# Names Windows keeps for devices, in any case and with any extension.
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
             *(f"lpt{i}" for i in range(1, 10))}


def is_valid(name: str, target: Target) -> bool:
    return (target.valid.fullmatch(name) is not None
            and name.split(".")[0].lower() not in _RESERVED)


def _safe_stem(name: str, target: Target) -> str:
    """``name`` in the target's characters: accents dropped (NFKD), every run of anything
    else one '-', trimmed to letters or digits at both ends."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    out = "".join(c if target.allowed.fullmatch(c) else "-" for c in ascii_text)
    out = re.sub(r"-{2,}", "-", out)
    return re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", out)


def _hashed(stem: str, key: str, target: Target, digits: int) -> str:
    tag = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:digits]
    room = target.max_len - digits - 1
    stem = re.sub(r"[^A-Za-z0-9]+$", "", stem[:room]) or "device"
    return f"{stem}-{tag}"


@dataclass(frozen=True)
class NameMap:
    """Mapped names in the order given, and the devices renamed (key: (name, mapped))."""

    target: Target
    mapped: tuple[str, ...]
    renamed: dict[str, tuple[str, str]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"rule": self.target.rule,
                "renamed": [{"device": k, "name": n, self.target.name: m}
                            for k, (n, m) in sorted(self.renamed.items())]}


def map_names(items: Sequence[tuple[str, str]], target: Target) -> NameMap:
    """Map ``(key, name)`` pairs (a device's id and its name) to names of ``target``.

    Names that already follow the rule keep it (first come, case-insensitively); the rest,
    and later holders of a taken name, get a safe stem and a hash of their key."""
    taken: set[str] = set()
    out: list[str | None] = [None] * len(items)
    for i, (_key, name) in enumerate(items):
        if is_valid(name, target) and name.lower() not in taken:
            out[i] = name
            taken.add(name.lower())
    renamed: dict[str, tuple[str, str]] = {}
    for i, (key, name) in enumerate(items):
        if out[i] is not None:
            continue
        stem = _safe_stem(name, target) or "device"
        digits = 6
        candidate = _hashed(stem, key, target, digits)
        while candidate.lower() in taken or not is_valid(candidate, target):
            digits += 2
            if digits > 40:  # sha1 has 40 hex digits: fall back to the position
                candidate = _hashed(stem, f"{key}\x00{i}", target, 12)
                if candidate.lower() not in taken:
                    break
                raise ValueError(f"cannot map '{name}' to a unique {target.name}")
            candidate = _hashed(stem, key, target, digits)
        out[i] = candidate
        taken.add(candidate.lower())
        renamed[key] = (name, candidate)
    return NameMap(target, tuple(o for o in out if o is not None), renamed)
