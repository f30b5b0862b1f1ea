"""The Great Wall of China: a play mat, not a printed board. Four wall sections (two players use
the first two, three the first three), each a strip with its two tokens at one end and, beside
them, the row where every player lays cards (position 1 nearest the tokens).

The engine sees a section as one space (``section-<n>``: every card and token in it), so the
token spots and the card row are artwork regions inside it. Sizes are invented around a
57 x 88 mm card."""

from __future__ import annotations

from typing import Any

from scorer.core.boardkit import polygon_space, rect
from scripts.layoutgen.common import MARKER_NOTE, layout_doc, octagon, region

SECTIONS = 4
WIDTH, HEIGHT = 760.0, 620.0
X0, X1 = 75.0, 685.0
Y0, PITCH, STRIP = 75.0, 120.0, 110.0
TOKENS_W = 100.0
TOKEN_R = 17.0
KINDS = ("wall", "gate", "tower", "noble", "soldier", "cavalry", "dragon")
CROSSWISE = "dragon"  # lies on another card (rules: the dragon covers a card)
PLAYER_RGB = {"blue": [35, 85, 200], "red": [205, 40, 40], "yellow": [245, 205, 40], "green": [40, 150, 70], "grey": [128, 128, 132]}
TOKEN_VALUES = (1, 2, 3, 4, 5, 7, 8)


def section_box(i: int) -> tuple[float, float, float, float]:
    y = Y0 + i * PITCH
    return X0, y, X1, y + STRIP


def layout(layout_id: str = "great-wall", sections: int = SECTIONS) -> dict[str, Any]:
    spaces: list[dict[str, Any]] = []
    regions: list[dict[str, Any]] = []
    for i in range(sections):
        sid = f"section-{i + 1}"
        x0, y0, x1, y1 = section_box(i)
        yc = (y0 + y1) / 2
        spaces.append(polygon_space(sid, "section", rect(x0, y0, x1, y1)))
        regions.append(region(f"{sid}-tokens", rect(x0 + 2, y0 + 2, x0 + TOKENS_W, y1 - 2), tint=[200, 190, 170]))
        regions.append(region(f"{sid}-token-1", octagon(x0 + TOKENS_W / 2, yc - 24, TOKEN_R), tint=[236, 226, 200]))
        regions.append(region(f"{sid}-token-2", octagon(x0 + TOKENS_W / 2, yc + 24, TOKEN_R), tint=[236, 226, 200]))
        regions.append(region(f"{sid}-row", rect(x0 + TOKENS_W + 4, y0 + 2, x1 - 2, y1 - 2), tint=[232, 222, 196]))
    card = {"footprint": "rect", "size_mm": [57, 88], "height_mm": 0.5, "owners": "players"}
    pieces: dict[str, Any] = {k: dict(card) for k in KINDS}
    pieces[CROSSWISE] = dict(card, crosswise=True)  # laid across the card it covers (vision/card_rows.py)
    for v in TOKEN_VALUES:
        pieces[f"token-{v}"] = {"footprint": "circle", "size_mm": [26], "height_mm": 2, "owners": "neutral", "rgb": [214, 180, 90],
                                "face": {"label": str(v)}}  # the value printed on the token (vision/faces.py)
    return layout_doc(
        layout_id=layout_id, game="great_wall", board=None, source="the Great Wall's set-up: 4 wall sections",
        size=(WIDTH, HEIGHT), spaces=spaces, regions=regions, pieces=pieces,
        holds={"section": list(KINDS) + [f"token-{v}" for v in TOKEN_VALUES]}, players=PLAYER_RGB,
        notes=["Geometry invented: The Great Wall has no printed board; this is a play mat. Capture your own table on the dashboard.",
               "Each section-<n> is one space of the engine's visible_board (its cards and tokens); the regions "
               "section-<n>-tokens, -token-1/2 and -row show where the tokens and the card row lie inside it.",
               "Cards lie upright in one fanned row per section, a dragon across the card it covers, a claimed token on "
               "a card of its owner (vision/card_rows.py; docs/great-wall.md, Camera).",
               MARKER_NOTE])
