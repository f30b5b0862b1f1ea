"""What every generated layout shares: the file skeleton, corner markers, small shapes."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from scorer.core.boardkit import MARKER_MM, corner_markers

BACKGROUND = [226, 214, 184]


def octagon(x: float, y: float, r: float) -> list[list[float]]:
    """A circle-like polygon for artwork regions (the layout schema's regions are polygons)."""
    return [[round(x + r * math.cos(math.pi / 8 + k * math.pi / 4), 2), round(y + r * math.sin(math.pi / 8 + k * math.pi / 4), 2)]
            for k in range(8)]


def region(rid: str, polygon: Sequence[Sequence[float]], tint: Sequence[int] | None = None, label: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": rid}
    if label:
        out["label"] = label
    if tint is not None:
        out["tint_rgb"] = [int(v) for v in tint]
    out["polygon"] = [[round(float(x), 2), round(float(y), 2)] for x, y in polygon]
    return out


def layout_doc(*, layout_id: str, game: str, board: str | None, source: str, size: Sequence[float],
               spaces: list[dict[str, Any]], regions: list[dict[str, Any]], pieces: Mapping[str, Any],
               holds: Mapping[str, Any], players: Mapping[str, Any] | None, notes: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "$schema": "../schemas/layout.schema.json",
        "id": layout_id,
        "game": game,
        "provisional": True,
        "generated_by": f"python scripts/make_provisional_layouts.py (from {source})",
        "notes": list(notes),
        "size_mm": [float(size[0]), float(size[1])],
        "background_rgb": BACKGROUND,
        "markers": corner_markers(size, MARKER_MM),
        "regions": regions,
        "spaces": spaces,
        "pieces": dict(pieces),
        "holds": dict(holds),
    }
    if board:
        out["board"] = board
    if players:
        out["players"] = dict(players)
    return out


MARKER_NOTE = (f"Corner markers are {MARKER_MM:.0f} mm AprilTags (36h11, ids 0-3): 34 mm markers were too small "
               "to decode on a board far from the camera.")
