"""JSON or YAML text from a file someone sent, decoded with bounds.

YAML aliases let a few hundred bytes stand for billions of items (nine aliases nested eight
deep: 43 million, the "billion laughs"): decoding shares them and stays small, but any walk
over the result (``str()``, a copy, a check of every value) runs for hours. So the decoded
data's size counted with every alias expanded (once per distinct object, so the count itself
is linear) is refused past ``MAX_EXPANDED`` items more than the file spelled out, and a
self-referencing alias is refused; files that repeat a block with an anchor still read.
"""

from __future__ import annotations

import orjson
import yaml

from designer.core.errors import DesignerError

# Items aliases may add over what the file spells out: far more than any file repeats with
# anchors, far less than a walk over an alias bomb touches.
MAX_EXPANDED = 2_000_000


class StructuredError(DesignerError):
    """Text that is not JSON or YAML, or holds an alias bomb."""


def expanded_items(data: object) -> tuple[int, int]:
    """(distinct containers and scalars, items with every shared object counted where it is
    used): iterative, each distinct container visited once; a cycle raises ``ValueError``."""
    size: dict[int, int] = {}
    busy: set[int] = set()
    distinct = 0
    stack: list[tuple[object, bool]] = [(data, False)]
    while stack:
        obj, done = stack.pop()
        if not isinstance(obj, dict | list):
            continue
        key = id(obj)
        children = list(obj.keys()) + list(obj.values()) if isinstance(obj, dict) else obj
        if done:
            total = 1
            for c in children:
                total += size.get(id(c), 1) if isinstance(c, dict | list) else 1
            size[key] = total
            busy.discard(key)
            continue
        if key in size:
            continue
        if key in busy:
            raise ValueError("an alias refers to a block that holds it")
        busy.add(key)
        distinct += 1 + len(children)
        stack.append((obj, True))
        for c in children:
            if isinstance(c, dict | list):
                if id(c) in busy:
                    raise ValueError("an alias refers to a block that holds it")
                if id(c) not in size:
                    stack.append((c, False))
    return distinct, size.get(id(data), 1)


def loads(text: str, source: str) -> object:
    """JSON (when the text starts like JSON) or YAML, with the bounds above; refusals name
    ``source``."""
    head = text.lstrip()[:1]
    try:
        if head in ("{", "["):
            return orjson.loads(text)  # JSON has no aliases
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(text, Loader=loader)  # a SafeLoader: plain data only
    except (orjson.JSONDecodeError, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise StructuredError(f"{source}: not valid JSON or YAML ({first})") from None
    except RecursionError:
        raise StructuredError(f"{source}: nested too deeply to read") from None
    if "*" in text:  # no alias, nothing shared
        try:
            distinct, expanded = expanded_items(data)
        except ValueError as exc:
            raise StructuredError(f"{source}: {exc} (a YAML alias cycle)") from None
        if expanded - distinct > MAX_EXPANDED:
            raise StructuredError(
                f"{source}: YAML aliases (*name) repeat {expanded - distinct:,} items, more "
                f"than {MAX_EXPANDED:,}; write the values out")
    return data


def yaml_text(data: object, **options) -> str:
    """``yaml.safe_dump``'s text, written by libyaml's emitter when PyYAML has it (the same
    text, a half or less of the time on a plan of thousands of entries)."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(data, Dumper=dumper, **options)
