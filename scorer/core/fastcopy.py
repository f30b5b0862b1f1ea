"""``dataclasses.replace`` for hot paths.

``replace`` re-runs ``__init__`` through keyword plumbing; on the engines' state values (20-30
slots) that cost as much as the rest of a move. ``make_evolve`` generates, once per class, a
function that copies every slot directly and overrides the named ones.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def make_evolve(cls: type[T]) -> Callable[..., T]:
    """``evolve(obj, field=value, ...)`` for the frozen dataclass ``cls``; unknown fields raise
    ``TypeError`` like ``replace`` does. No validation runs: only for values already checked."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    params = ", ".join(f"{name}=_K" for name in names)
    lines = [f"def evolve(s, *, {params}):", "    n = _new(_cls)"]
    lines += [f"    _set(n, {name!r}, s.{name} if {name} is _K else {name})" for name in names]
    lines += ["    return n"]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_set": object.__setattr__, "_K": object()}
    exec("\n".join(lines), namespace)  # noqa: S102 - generated from the class's own field names
    evolve = namespace["evolve"]
    evolve.__doc__ = f"Copy of a {cls.__name__} with the given fields replaced (no __init__)."
    return evolve
