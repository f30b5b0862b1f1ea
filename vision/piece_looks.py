"""Which piece kinds the camera can tell apart by colour and shape alone.

Kinds with the same footprint, size, height and colour and no printed top face look the same
from above: Zhang Yi's army counters and its 16 talent counters are all 16 mm squares in their
state's colour. Enrolling each of them would ask the user for 18 counters per colour that teach
the reader nothing new, and counting them apart is impossible. So each such group is enrolled
and read as one kind, its first in the layout (``representative``): a talent counter on the
map is read as one more counter of its colour. A kind with a printed face (layout ``face``,
``vision/faces.py``) is its own look.
"""

from __future__ import annotations

from typing import Any

from vision.layout import Layout, PieceSpec


def look(spec: PieceSpec) -> tuple[Any, ...] | None:
    """What the camera sees of a kind without its face; None for a printed kind (its own look)."""
    if getattr(spec, "face", None) is not None:
        return None
    return spec.footprint, tuple(spec.size), spec.height, spec.neutral, spec.rgb


def representatives(layout: Layout) -> dict[str, str]:
    """Each kind -> the kind it is read as: the first kind in the layout with the same look."""
    first: dict[tuple[Any, ...], str] = {}
    out: dict[str, str] = {}
    for kind, spec in layout.pieces.items():
        key = look(spec)
        out[kind] = kind if key is None else first.setdefault(key, kind)
    return out


def read_kinds(layout: Layout) -> tuple[str, ...]:
    """The kinds the board reader reads (one per look), in layout order. Dice are not among
    them: the dice reader reads the tray (``vision.dice``, the layout's ``holds`` of ``dice``)."""
    reps = representatives(layout)
    dice = set(layout.holds.get("dice", ()))
    return tuple(k for k in layout.pieces if reps[k] == k and k not in dice)


def alike(layout: Layout) -> dict[str, tuple[str, ...]]:
    """Each read kind -> the kinds read as it (itself first); only groups of more than one."""
    out: dict[str, list[str]] = {}
    for kind, rep in representatives(layout).items():
        out.setdefault(rep, []).append(kind)
    return {k: tuple(v) for k, v in out.items() if len(v) > 1}
