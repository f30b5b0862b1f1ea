"""Ming Dynasty's board for the dashboard (scorer/core/boardkit.py): provinces, districts (open
area, cloister, city houses), the province spaces and the borders with their transport symbols,
drawn from the layout; board capture (where each space lies, the provinces' colours and names,
the borders and their symbols)."""

from __future__ import annotations

import copy
import json
from datetime import date
from importlib import resources
from typing import Any, Mapping

from scorer.core.boardkit import (
    BoardKit,
    bbox,
    capture_layout,
    add_placed,
    check_with,
    item_from_space,
    layout_geometry,
    message_json,
    placed_items,
    rect,
)
from scorer.core.types import InvalidRecord, Message
from scorer.games.ming.board import SHIPPED_BOARDS, board_from_json, city_space, cloister_space, province_space, semantic_problems

PROVINCE_HEX = {"red": "#eec4ba", "yellow": "#f0e2b0", "green": "#c8e0c0", "blue": "#c0d0ec", "purple": "#dac6e6",
                "orange": "#f2d0ac"}
COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")
# a layout's pieces (the shipped layout's generator, scripts/layoutgen/ming.py, and a captured board's): a player
# has one prince on the board (``per_owner``), which the camera reader relies on
# per_space: a province space's heap in random games holds up to ~14 family members of one owner, more
# than 12 in 1 of ~1,000 occupied province spaces (what the learned classifier counts up to)
PIECES = {"family": {"footprint": "rect", "size_mm": [12, 12], "height_mm": 15, "owners": "players", "per_space": 12},
          "prince": {"footprint": "circle", "size_mm": [18], "height_mm": 32, "owners": "players", "per_owner": 1}}
HOLDS = {"district": ["family", "prince"], "cloister": ["family"], "city": ["family"], "province-space": ["family"]}
PLAYER_RGB = {"yellow": [245, 205, 40], "green": [40, 150, 70], "blue": [35, 85, 200], "red": [205, 40, 40]}
PLAYER_HEX = {"yellow": "#f2c230", "green": "#2f9e55", "blue": "#2f64d6", "red": "#d63a3a", "neutral": "#f4f1e8"}


def district_spaces(district: str) -> tuple[str, str, str]:
    return district, cloister_space(district), city_space(district)


def province_regions(spaces: list[dict[str, Any]], provinces: list[dict[str, Any]], margin: float = 3.0) -> list[dict[str, Any]]:
    """A captured board's province areas (``province-<id>``, what the Board page tints and names): the box
    around each province's districts, cloisters and cities as placed on the photo."""
    out = []
    for p in provinces:
        pts = []
        for s in spaces:
            if s.get("region") != p["id"] or s.get("kind") == "province-space":
                continue
            if s.get("shape") == "circle":
                (x, y), r = s["centre_mm"], s["radius_mm"]
                pts += [[x - r, y - r], [x + r, y + r]]
            else:
                pts += s["points_mm"]
        if pts:
            x0, y0, x1, y1 = bbox(pts)
            out.append({"id": f"province-{p['id']}", "polygon": rect(x0 - margin, y0 - margin, x1 + margin, y1 + margin)})
    return out


class MingBoardKit(BoardKit):
    game = "ming"
    data_format = "tableref-ming-board"
    setup_key = "board"

    def shipped(self) -> tuple[str, ...]:
        return SHIPPED_BOARDS

    def shipped_doc(self, board_id: str) -> dict[str, Any]:
        if board_id not in SHIPPED_BOARDS:
            raise KeyError(board_id)
        return json.loads(resources.files("scorer.games.ming").joinpath("boards", f"{board_id}.json").read_text("utf-8"))

    def check(self, doc: Any) -> list[Message]:
        return check_with(board_from_json, doc, semantic_problems)

    def describe(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        return {"name": doc.get("name"), "provisional": bool(doc["provisional"]), "players": [2, 3, 4], "side": ""}

    def spaces(self, doc: Mapping[str, Any]) -> tuple[str, ...]:
        out: list[str] = []
        for p in doc.get("provinces", []):
            for d in p.get("districts", []):
                out += district_spaces(d)
            out.append(province_space(p["id"]))
        return tuple(out)

    # -- drawing -------------------------------------------------------------------------------
    def geometry(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if layout is None:
            return None
        geo = layout_geometry(self.game, doc["id"], layout, provisional_board=bool(doc["provisional"]), need=self.spaces(doc))
        if geo is None:
            return None
        names = {p["id"]: Message.of(p["name"]).to_json() for p in doc["provinces"]}
        tint = {f"province-{p['id']}": PROVINCE_HEX.get(p["colour"], "#dddddd") for p in doc["provinces"]}
        for r in geo["regions"]:
            if r["id"] in tint:
                r["fill"] = tint[r["id"]]
                r["label"] = names[r["id"][len("province-"):]]
        at = {s["id"]: s for s in geo["spaces"]}
        symbols = {s["id"]: Message.of(s["name"]).to_json() for s in doc["transport_symbols"]}
        for b in doc["borders"]:
            if b["a"] in at and b["b"] in at:
                a, c = at[b["a"]], at[b["b"]]
                geo["lines"].append({"a": [a["x"], a["y"]], "b": [c["x"], c["y"]], "kind": "symbol", "bend": 0.18,
                                     "label": symbols.get(b["symbol"], b["symbol"])})
        prince_spots = {r["id"]: r for r in layout.get("regions", []) if r["id"].startswith("prince-")}
        for s in geo["spaces"]:
            if s["kind"] == "district":
                s["label"] = s["id"]
                spot = prince_spots.get(f"prince-{s['id']}")
                if spot is not None:
                    s["zones"] = {"prince": bbox(spot["polygon"])}
        geo["owners"] = dict(PLAYER_HEX)
        geo["pieces"] = {"family": {"shape": "pawn", "fill": None, "count": "repeat", "size": 12},
                         "prince": {"shape": "crown", "fill": None, "zone": "prince", "size": 20}}
        geo["legend"] = [
            {"shape": "pawn", "fill": PLAYER_HEX["red"], "label": Message.t("boards.ming.family").to_json()},
            {"shape": "crown", "fill": PLAYER_HEX["blue"], "label": Message.t("boards.ming.prince").to_json()},
            {"shape": "cloister", "label": Message.t("boards.ming.cloister").to_json()},
            {"shape": "tile", "fill": "#f4ecdc", "label": Message.t("boards.ming.city").to_json()},
            {"shape": "line", "label": Message.t("boards.ming.border").to_json()},
        ]
        return geo

    def move_spaces(self, move: Mapping[str, Any]) -> list[str]:
        out: list[str] = []
        if isinstance(move.get("district"), str):
            out.append(move["district"])
        if isinstance(move.get("province"), str):
            out.append(province_space(move["province"]))
        path = [d for d in move.get("path", []) if isinstance(d, str)]
        out += path
        if path and move.get("cloister"):
            out.append(cloister_space(path[-1]))
        for d in move.get("districts", []):
            if isinstance(d, str):
                out += [d, city_space(d)]
        return out

    # -- capture -------------------------------------------------------------------------------
    def capture_spec(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any]:
        at = {s["id"]: s for s in (layout or {}).get("spaces", [])}
        defaults = {"district": {"shape": "rect", "w": 70, "h": 100}, "cloister": {"shape": "circle", "r": 13},
                    "city": {"shape": "rect", "w": 70, "h": 52}, "province-space": {"shape": "rect", "w": 110, "h": 60}}
        items = []

        def add(sid: str, kind: str, pid: str) -> None:
            if sid in at:
                items.append(item_from_space(at[sid], sid, sid=sid, kind=kind, group=pid))
            else:
                items.append(dict({"key": sid, "id": sid, "kind": kind, "group": pid, "values": {}, "placed": False}, **defaults[kind]))

        for p in doc["provinces"]:
            for d in p["districts"]:
                add(d, "district", p["id"])
                add(cloister_space(d), "cloister", p["id"])
                add(city_space(d), "city", p["id"])
            add(province_space(p["id"]), "province-space", p["id"])
        colour_options = [{"value": c, "label": c} for c in COLOURS]
        return {
            "game": self.game, "page": "generic", "data_format": self.data_format, "template": doc["id"],
            "template_size": (layout or {}).get("size_mm"), "name": doc.get("name"), "id_hint": "my-ming",
            "group_label": Message.t("boards.ming.provinces").to_json(),
            "group_fields": [{"key": "colour", "type": "select", "options": colour_options, "colour": True,
                              "label": Message.t("boards.ming.colour").to_json()},
                             {"key": "name_en", "type": "text", "label": Message.t("boards.ming.name_en").to_json()},
                             {"key": "name_zh", "type": "text", "label": Message.t("boards.ming.name_zh").to_json()}],
            "groups": [{"key": p["id"], "label": p["id"], "values": {"colour": p["colour"], "name_en": p["name"]["en"],
                                                                     "name_zh": p["name"]["zh"]}} for p in doc["provinces"]],
            "item_fields": {}, "items": items, "add": None, "fields": [],
            "links": {"label": Message.t("boards.ming.borders").to_json(), "kinds": ["district"],
                      "types": [{"value": s["id"], "label": Message.of(s["name"]).to_json()} for s in doc["transport_symbols"]],
                      "list": [{"a": b["a"], "b": b["b"], "type": b["symbol"]} for b in doc["borders"]]},
            "rules": [Message.t("boards.ming.capture_rule").to_json()],
        }

    def capture_build(self, capture: Mapping[str, Any], template: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        items = placed_items(capture)
        groups = capture.get("groups") or {}
        links = capture.get("links") or []
        if not isinstance(groups, Mapping) or not isinstance(links, list):
            raise InvalidRecord("groups must be an object and links a list", where="capture")
        doc = copy.deepcopy(dict(template))
        doc["id"] = str(capture.get("id", "")).strip()
        name = message_json(capture.get("name"))
        if name:
            doc["name"] = name
        else:
            doc.pop("name", None)
        provisional = bool(capture.get("provisional"))
        doc["provisional"] = provisional
        for p in doc["provinces"]:
            g = groups.get(p["id"], {})
            p["colour"] = str(g.get("colour", p["colour"])).strip()
            p["name"] = {"en": str(g.get("name_en", "")).strip() or p["id"], "zh": str(g.get("name_zh", "")).strip() or p["id"]}
            if not provisional:
                p.pop("provisional_fields", None)
        doc["borders"] = []
        for i, link in enumerate(links):
            if not isinstance(link, Mapping):
                raise InvalidRecord("a border needs a, b and a symbol", where=f"capture.links[{i}]")
            border: dict[str, Any] = {"a": str(link.get("a", "")), "b": str(link.get("b", "")), "symbol": str(link.get("type", ""))}
            if provisional:
                border["provisional"] = True
            doc["borders"].append(border)
        if not provisional:
            doc["return_cards"].pop("provisional", None)
            for s in doc["transport_symbols"]:
                s.pop("provisional", None)
        doc["notes"] = [f"Captured with the tableref dashboard on {date.today().isoformat()}."]
        kinds = {sid: kind for p in doc["provinces"] for d in p["districts"]
                 for sid, kind in zip(district_spaces(d), ("district", "cloister", "city"))}
        kinds.update({province_space(p["id"]): "province-space" for p in doc["provinces"]})
        region = {sid: sid.split("d")[0] if not sid.startswith("province-space-") else sid.rsplit("-", 1)[1] for sid in kinds}
        spaces = []
        for it in items:
            if it["key"] not in kinds:
                raise InvalidRecord(f"unknown item {it['key']!r}", where="capture.items")
            add_placed(spaces, it, it["key"], kinds[it["key"]], region[it["key"]])
        layout = capture_layout(dict(capture, id=doc["id"]), game=self.game, board=doc["id"], spaces=spaces,
                                regions=province_regions(spaces, doc["provinces"]),
                                pieces=PIECES, players=PLAYER_RGB, holds=HOLDS)
        return doc, layout


KIT = MingBoardKit()
