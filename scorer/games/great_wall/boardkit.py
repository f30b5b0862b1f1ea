"""The Great Wall for the dashboard (scorer/core/boardkit.py). It has no printed board and no board
data file: the "board" is the play mat's layout (``great-wall``: four wall sections, each with its
two tokens and the row of cards every player lays beside them). Capturing a table writes that
layout only, under the same id, and it replaces the shipped one for this table."""

from __future__ import annotations

from typing import Any, Mapping

from scorer.core.boardkit import BoardKit, bbox, capture_layout, captured_space, item_from_space, layout_geometry, placed_items, rect
from scorer.core.types import InvalidRecord, Message
from scorer.games.great_wall.data import KINDS

MAT = "great-wall"
SECTIONS = 4
TOKENS_SHARE = 100.0 / 610.0  # the token end of a section strip, as in the shipped mat
TOKEN_HEX = "#d6b45a"
CARD = {"footprint": "rect", "size_mm": [57, 88], "height_mm": 0.5, "owners": "players"}
TOKEN_VALUES = (1, 2, 3, 4, 5, 7, 8)
PLAYER_RGB = {"blue": [35, 85, 200], "red": [205, 40, 40], "yellow": [245, 205, 40], "green": [40, 150, 70], "grey": [128, 128, 132]}


def section_ids(n: int = SECTIONS) -> tuple[str, ...]:
    return tuple(f"section-{i + 1}" for i in range(n))


class GreatWallBoardKit(BoardKit):
    game = "great_wall"
    data_format = None
    setup_key = None

    def shipped(self) -> tuple[str, ...]:
        return (MAT,)

    def shipped_doc(self, board_id: str) -> dict[str, Any]:
        if board_id != MAT:
            raise KeyError(board_id)
        return {"id": MAT, "sections": SECTIONS, "provisional": False}

    def check(self, doc: Any) -> list[Message]:
        return []

    def describe(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        return {"name": Message.t("boards.great_wall.mat").to_json(), "provisional": False, "players": [2, 3, 4, 5], "side": ""}

    def spaces(self, doc: Mapping[str, Any]) -> tuple[str, ...]:
        return section_ids(int(doc.get("sections", SECTIONS)))

    def geometry(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if layout is None:
            return None
        geo = layout_geometry(self.game, None, layout, provisional_board=False, need=self.spaces(doc))
        if geo is None:
            return None
        regions = {r["id"]: r for r in layout.get("regions", [])}
        for s in geo["spaces"]:
            zones = {}
            for zone, suffix in (("tokens", "tokens"), ("main", "row")):
                r = regions.get(f"{s['id']}-{suffix}")
                if r is not None:
                    zones[zone] = bbox(r["polygon"])
            s["zones"] = zones
            n = s["id"].rsplit("-", 1)[-1]
            x0, y0 = bbox(s["points"])[:2] if "points" in s else (s["x"] - s["r"], s["y"] - s["r"])
            geo["texts"].append({"x": x0 + 6, "y": y0 - 3, "anchor": "start",
                                 "label": Message.t("boards.great_wall.section", n=int(n) if n.isdigit() else n).to_json()})
        geo["pieces"] = {k: {"shape": "card", "fill": None, "size": 88, "count": "each",
                             "label": Message.t(f"boards.great_wall.short.{k}").to_json()} for k in KINDS}
        geo["pieces"]["token-*"] = {"shape": "token", "fill": TOKEN_HEX, "label": "{suffix}", "ring": True, "zone": "tokens",
                                    "owned_zone": "main", "size": 26, "count": "each"}
        geo["arrange"] = {"section": "row"}
        geo["legend"] = [
            {"shape": "card", "fill": "#d63a3a", "text": Message.t("boards.great_wall.short.wall").to_json(),
             "label": Message.t("boards.great_wall.card").to_json()},
            {"shape": "token", "fill": TOKEN_HEX, "text": "5", "label": Message.t("boards.great_wall.token").to_json()},
        ]
        return geo

    def move_spaces(self, move: Mapping[str, Any]) -> list[str]:
        return [move["section"]] if isinstance(move.get("section"), str) else []

    def capture_spec(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any]:
        at = {s["id"]: s for s in (layout or {}).get("spaces", [])}
        items = []
        for sid in self.spaces(doc):
            if sid in at:
                items.append(item_from_space(at[sid], sid, sid=sid, kind="section"))
            else:
                items.append({"key": sid, "id": sid, "kind": "section", "group": None, "values": {}, "shape": "rect",
                              "w": 610, "h": 110, "placed": False})
        return {"game": self.game, "page": "generic", "data_format": None, "fixed_id": MAT, "template": MAT,
                "template_size": (layout or {}).get("size_mm"), "name": None, "id_hint": MAT,
                "groups": [], "group_fields": [], "item_fields": {}, "items": items, "add": None, "links": None,
                "fields": [], "rules": [Message.t("boards.great_wall.capture_rule").to_json()]}

    def capture_build(self, capture: Mapping[str, Any], template: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        items = placed_items(capture)
        spaces, regions = [], []
        for it in items:
            if it["key"] not in section_ids():
                raise InvalidRecord(f"unknown item {it['key']!r}", where="capture.items")
            if not it["placed"]:
                continue
            space = captured_space(it, it["key"], "section")
            spaces.append(space)
            x0, y0, x1, y1 = bbox(space["points_mm"])
            split = x0 + (x1 - x0) * TOKENS_SHARE
            yc, r = (y0 + y1) / 2, min((split - x0) / 2, (y1 - y0) / 4) * 0.9
            regions.append({"id": f"{it['key']}-tokens", "polygon": rect(x0 + 1, y0 + 1, split, y1 - 1)})
            regions.append({"id": f"{it['key']}-token-1", "polygon": rect((x0 + split) / 2 - r, yc - 2 * r, (x0 + split) / 2 + r, yc)})
            regions.append({"id": f"{it['key']}-token-2", "polygon": rect((x0 + split) / 2 - r, yc, (x0 + split) / 2 + r, yc + 2 * r)})
            regions.append({"id": f"{it['key']}-row", "polygon": rect(split + 2, y0 + 1, x1 - 1, y1 - 1)})
        pieces: dict[str, Any] = {k: dict(CARD) for k in KINDS}
        for v in TOKEN_VALUES:
            pieces[f"token-{v}"] = {"footprint": "circle", "size_mm": [26], "height_mm": 2, "owners": "neutral", "rgb": [214, 180, 90]}
        layout = capture_layout(dict(capture, id=MAT), game=self.game, board=None, spaces=spaces, regions=regions,
                                pieces=pieces, players=PLAYER_RGB,
                                holds={"section": list(KINDS) + [f"token-{v}" for v in TOKEN_VALUES]})
        return None, layout


KIT = GreatWallBoardKit()
