"""Typed errors raised by the core.

Every error carries a message a person can act on. The GUI and the command line catch
``DesignerError`` and show ``str(error)``; nothing below this module prints or exits.
"""

from __future__ import annotations

# A message is read by a person: past this it is a value pasted whole (a nested list from a
# file, a line of garbage), and is cut, so an error can never fill a terminal or a log.
MAX_MESSAGE = 2000


class DesignerError(Exception):
    """Base of every error the core raises on purpose."""

    def __str__(self) -> str:
        text = super().__str__()
        if len(text) <= MAX_MESSAGE:
            return text
        return f"{text[:MAX_MESSAGE]}… (cut: {len(text):,} characters)"


class CatalogError(DesignerError):
    """A catalog file is malformed, or refers to gear that does not exist."""


class UnknownGear(CatalogError):
    """A design or a command names a catalog id the catalog does not have."""

    def __init__(self, gear_id: str, where: str = "", known: list[str] | None = None) -> None:
        self.gear_id = gear_id
        hint = ""
        if known:
            import difflib

            close = difflib.get_close_matches(gear_id.lower(), known, n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            hint += " ('designer catalog' lists all gear)"
        place = f" ({where})" if where else ""
        super().__init__(f"unknown gear '{gear_id}'{place}{hint}")


class ProjectFileError(DesignerError):
    """A project file cannot be read. ``path`` names the file, ``where`` the place in it."""

    def __init__(self, message: str, path: str | None = None, where: str | None = None) -> None:
        self.path = path
        self.where = where
        self.detail = message
        parts = []
        if path:
            parts.append(str(path))
        if where:
            parts.append(where)
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class FabricError(DesignerError):
    """An edit or a fabric breaks a wiring rule."""


class PortsExhausted(FabricError):
    """A device has no free port for the requested link."""


class SpeedMismatch(FabricError):
    """The two ends of a link cannot run at the requested speed or technology."""


class GeneratorError(DesignerError):
    """Generator parameters that cannot produce a fabric; the message names the limit."""


MEMORY_MESSAGE = "there is not enough memory for this design on this machine"


def readable(exc: BaseException) -> str:
    """One sentence a person can act on, for any error: a DesignerError says what it says; an
    unexpected one is named without its internals (the traceback goes to the log)."""
    if isinstance(exc, DesignerError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return MEMORY_MESSAGE
    if isinstance(exc, RecursionError):
        return "the data is nested too deeply to read"
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror or 'the operating system refused'}{where}"
    return f"an internal error ({type(exc).__name__}) stopped this; please report it"
