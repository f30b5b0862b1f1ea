"""Cheops's board for the dashboard (scorer/core/boardkit.py): the pyramid, its eye spaces and the
price columns drawn from the layout, and board capture (which spaces carry the eye, the scarab
colours, where every space lies on the photo)."""

from __future__ import annotations

import json
from datetime import date
from importlib import resources
from typing import Any, Mapping

from scorer.core.boardkit import (
    BoardKit,
    capture_layout,
    add_placed,
    check_with,
    hex_rgb,
    item_from_space,
    layout_geometry,
    message_json,
    placed_items,
    resolve_id,
)
from scorer.core.types import InvalidRecord, Message
from scorer.games.cheops.data import (FACES, ROWS, SHIPPED_BOARD, SPACES, board_from_json, board_problems, column_spaces,
                                      face_name)

TREASURE_HEX = {"red": "#c83228", "blue": "#2855c8", "green": "#28964a", "yellow": "#f0c828", "white": "#f2f2ea",
                "black": "#202022"}
OTHER_HEX = "#969696"
TILE_HEX = "#e9d7a6"
LAW_HEX = "#5a4630"
COLUMN_ITEMS = {"dot": ("dot-{id}", "dot"), "price": ("price-{id}", "price"), "law": ("price-{id}-law", "price-law")}
TILE = {"footprint": "rect", "size_mm": [38, 38], "height_mm": 3, "owners": "neutral"}


def colours_of(doc: Mapping[str, Any]) -> list[str]:
    return [c["id"] for c in doc["treasure_colours"]]


class CheopsBoardKit(BoardKit):
    game = "cheops"
    data_format = "tableref-cheops-board"
    setup_key = "board"

    def shipped(self) -> tuple[str, ...]:
        return (SHIPPED_BOARD,)

    def shipped_doc(self, board_id: str) -> dict[str, Any]:
        if board_id != SHIPPED_BOARD:
            raise KeyError(board_id)
        return json.loads(resources.files("scorer.games.cheops").joinpath("board.json").read_text("utf-8"))

    def check(self, doc: Any) -> list[Message]:
        return check_with(board_from_json, doc, board_problems)

    def describe(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        return {"name": doc.get("name"), "provisional": bool(doc["provisional"]), "players": [2, 3, 4, 5], "side": ""}

    def spaces(self, doc: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(SPACES) + tuple(s for c in colours_of(doc) for s in column_spaces(c))

    # -- drawing -------------------------------------------------------------------------------
    def geometry(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if layout is None:
            return None
        geo = layout_geometry(self.game, doc["id"], layout, provisional_board=bool(doc["provisional"]), need=self.spaces(doc))
        if geo is None:
            return None
        eyes = set(doc["eye_spaces"])
        colours = colours_of(doc)
        fill = {c: TREASURE_HEX.get(c, OTHER_HEX) for c in colours}
        for s in geo["spaces"]:
            sid = s["id"]
            if sid in SPACES:
                s["kind"] = "eye" if sid in eyes else "pyramid"
                s["mark"] = "eye" if sid in eyes else None
            elif sid.startswith("dot-") and sid[4:] in fill:
                s["fill"] = fill[sid[4:]]
            elif sid == "market-price":
                geo["texts"].append({"x": s["x"], "y": s["y"] + 4, "state": "market_price",
                                     "label": Message.t("boards.cheops.market_price").to_json()})
        pieces: dict[str, Any] = {f"family-{f}": {"shape": "tile", "fill": TILE_HEX, "size": 36,
                                                  "label": face_name(f).to_json()} for f in FACES}
        pieces["neighbour"] = {"shape": "tile", "fill": "#cfe3f2", "size": 36, "label": Message.t("boards.cheops.neighbour_short").to_json()}
        pieces["law"] = {"shape": "tile", "fill": LAW_HEX, "size": 30, "label": "?"}
        pieces["law-*"] = {"shape": "tile", "fill": LAW_HEX, "size": 30, "label": "{suffix}"}
        for c in colours:
            pieces[f"treasure-{c}"] = {"shape": "disc", "fill": fill[c], "size": 18}
        geo["pieces"] = pieces
        geo["legend"] = [
            {"shape": "tile", "fill": TILE_HEX, "text": "A", "label": Message.t("boards.cheops.family").to_json()},
            {"shape": "tile", "fill": "#cfe3f2", "text": Message.t("boards.cheops.neighbour_short").to_json(),
             "label": Message.t("boards.cheops.neighbour").to_json()},
            {"shape": "tile", "fill": LAW_HEX, "text": "?", "label": Message.t("boards.cheops.law").to_json()},
            {"shape": "disc", "fill": fill[colours[0]], "label": Message.t("boards.cheops.treasure").to_json()},
            {"shape": "eye", "label": Message.t("boards.cheops.eye").to_json()},
        ]
        return geo

    def move_spaces(self, move: Mapping[str, Any]) -> list[str]:
        out: list[str] = []
        for step in move.get("steps", []):
            if not isinstance(step, Mapping):
                continue
            for key in ("space", "remove_space"):
                if isinstance(step.get(key), str):
                    out.append(step[key])
            if isinstance(step.get("table"), str):
                out.append(f"price-{step['table']}-law")
            if step.get("do") == "law10" and isinstance(step.get("colour"), str):
                out.append(f"price-{step['colour']}")
            out += [s for s in step.get("swap", []) if isinstance(s, str) and not s.startswith("kept:")]
        return out

    # -- capture -------------------------------------------------------------------------------
    def capture_spec(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any]:
        at = {s["id"]: s for s in (layout or {}).get("spaces", [])}
        colours = doc["treasure_colours"]
        eyes = set(doc["eye_spaces"])
        eye_field = [{"key": "eye", "type": "check", "label": Message.t("boards.cheops.eye_field").to_json()}]
        items: list[dict[str, Any]] = []

        def add(sid: str, key: str, kind: str, default: dict[str, Any], **kw: Any) -> None:
            space = at.get(kw.pop("template_id", sid))
            item = item_from_space(space, key, sid=sid, kind=kind, **kw) if space else dict(
                {"key": key, "id": sid, "kind": kind, "group": kw.get("group"), "values": kw.get("values", {})},
                **default, placed=False)
            items.append(item)

        for i, c in enumerate(colours):
            g = f"c{i + 1}"
            dot, price, law = column_spaces(c["id"])
            add("dot-{id}", f"dot:{g}", "dot", {"shape": "circle", "r": 12}, template_id=dot, group=g)
            add("price-{id}", f"price:{g}", "price", {"shape": "rect", "w": 60, "h": 110}, template_id=price, group=g)
            add("price-{id}-law", f"law:{g}", "price-law", {"shape": "rect", "w": 60, "h": 34}, template_id=law, group=g)
        add("market-price", "market-price", "market", {"shape": "rect", "w": 80, "h": 56})
        for sid in SPACES:
            add(sid, sid, "pyramid", {"shape": "rect", "w": 40, "h": 40}, values={"eye": sid in eyes})
        return {
            "game": self.game, "page": "generic", "data_format": self.data_format,
            "template": doc["id"], "template_size": (layout or {}).get("size_mm"),
            "name": doc.get("name"), "id_hint": "my-cheops",
            "group_label": Message.t("boards.cheops.colours").to_json(),
            "group_fields": [{"key": "id", "type": "text", "pattern": "^[a-z][a-z0-9]*$",
                              "label": Message.t("boards.cheops.colour_id").to_json()},
                             {"key": "zh", "type": "text", "label": Message.t("boards.cheops.colour_zh").to_json()}],
            "groups": [{"key": f"c{i + 1}", "label": str(i + 1), "values": {"id": c["id"], "zh": c["zh"]}} for i, c in enumerate(colours)],
            "item_fields": {"pyramid": eye_field},
            "items": items, "add": None, "links": None, "fields": [],
            "rules": [Message.t("boards.cheops.capture_rule").to_json()],
        }

    def capture_build(self, capture: Mapping[str, Any], template: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        items = placed_items(capture)
        groups = capture.get("groups") or {}
        if not isinstance(groups, Mapping):
            raise InvalidRecord("groups must be an object", where="capture.groups")
        keys = sorted(groups, key=lambda k: (len(k), k))
        colours = [{"id": str(groups[k].get("id", "")).strip(), "zh": str(groups[k].get("zh", "")).strip()} for k in keys]
        eyes = [it["key"] for it in items if it.get("kind") == "pyramid" and it["values"].get("eye")]
        doc: dict[str, Any] = {"format": "tableref-cheops-board/1", "id": str(capture.get("id", "")).strip()}
        name = message_json(capture.get("name"))
        if name:
            doc["name"] = name
        provisional = bool(capture.get("provisional"))
        doc.update(provisional=provisional, rows=ROWS, eye_spaces=sorted(eyes, key=SPACES.index), treasure_colours=colours)
        if provisional:
            doc["provisional_fields"] = ["eye_spaces", "treasure_colours"]
        doc["notes"] = [f"Captured with the tableref dashboard on {date.today().isoformat()}."]
        eye_set = set(eyes)
        spaces = []
        for it in items:
            key = it["key"]
            if key in SPACES:
                add_placed(spaces, it, key, "eye" if key in eye_set else "pyramid")
            elif key == "market-price":
                add_placed(spaces, it, key, "market")
            elif key.split(":")[0] in COLUMN_ITEMS and key.split(":")[-1] in groups:
                template, kind = COLUMN_ITEMS[key.split(":")[0]]
                space = add_placed(spaces, it, resolve_id(template, {}, groups[key.split(":")[-1]]), kind)
                colour = str(groups[key.split(":")[-1]].get("id", "")).strip()
                if kind in ("dot", "price") and colour and space is not None:
                    # the column's marker, and the scarabs sold onto its price table: its own colour only
                    space["holds"] = [f"treasure-{colour}"]
            else:
                raise InvalidRecord(f"unknown item {key!r}", where="capture.items")
        pieces: dict[str, Any] = {f"family-{f}": dict(TILE) for f in FACES}
        pieces["neighbour"] = dict(TILE)
        pieces["law"] = dict(TILE, rgb=[90, 70, 45])
        for c in colours:
            if c["id"]:
                pieces[f"treasure-{c['id']}"] = {"footprint": "circle", "size_mm": [18], "height_mm": 9, "owners": "neutral",
                                                 "rgb": hex_rgb(TREASURE_HEX.get(c["id"], OTHER_HEX))}
        layout = capture_layout(dict(capture, id=doc["id"]), game=self.game, board=doc["id"], spaces=spaces, regions=[],
                                pieces=pieces, players=None)
        return doc, layout


KIT = CheopsBoardKit()
