"""Which piece kinds the camera can tell apart by colour and shape alone.

Kinds with the same footprint, size, height and colour and no printed top face look the same
from above. Enrolling each of them for its colour would ask the user for many pieces per colour
that teach the reader nothing new, and counting them apart by colour is impossible. So each such
group is counted as one kind, its first in the layout (``representative``). A kind with a printed
face (layout ``face``, ``vision/faces.py``) is its own look -- but for a face printed on the
owner's colour (``face.ground`` "owner"): Zhang Yi's talent counters are 16 mm squares in their
state's colour like its army counters, with the talent's name printed on them. Colour counting
counts such a piece with the plain kind of its look (a talent as one more army counter of its
state), and ``face_kinds`` names the kinds that are then told apart from it by face
(``vision.counted_faces``); enrolment asks for one of each (``vision.enrolment.enrolment_types``)
to learn its face.
"""

from __future__ import annotations

from typing import Any

from vision.layout import Layout, PieceSpec


def look(spec: PieceSpec) -> tuple[Any, ...] | None:
    """What the camera sees of a kind without its face; None for a printed kind (its own look)."""
    if getattr(spec, "face", None) is not None and not spec.on_owner_colour:
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


def face_kinds(layout: Layout) -> dict[str, str]:
    """Printed kinds counted by colour with another kind (a face on the owner's colour: Zhang Yi's
    talents) -> the kind they are counted as (``army``); they are told apart by face afterwards."""
    reps = representatives(layout)
    return {k: reps[k] for k, spec in layout.pieces.items() if spec.printed and reps[k] != k}
