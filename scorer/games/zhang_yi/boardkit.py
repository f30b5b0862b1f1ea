"""Zhang Yi's map for the dashboard (scorer/core/boardkit.py): the areas as polygons (city areas
marked), the borders (open, river, mountain), the holding boxes and the dice tray, drawn from the
layout; board capture (areas drawn as polygons on a photo of the printed map, with their names,
cities and set-up, the borders with their types, the counter mix and the generals' bonuses): how
an owner replaces the invented SAMPLE map."""

from __future__ import annotations

import copy
from datetime import date
from typing import Any, Mapping

from scorer.core.boardkit import (
    BoardKit,
    capture_layout,
    add_placed,
    item_from_space,
    layout_geometry,
    message_json,
    placed_items,
    tint,
)
from scorer.core.types import InvalidRecord, Message
from scorer.games.zhang_yi.board import BORDER_TYPES, map_from_json, missing_fields, semantic_problems, shipped_map_json
from scorer.games.zhang_yi.data import GENERAL, STATE_ZH, STATES, TALENT_NAMES, state_label, talent_label

SHIPPED = ("sample",)
STATE_HEX = {"qin": "#3a3a3e", "chu": "#c4342c", "qi": "#2e68ce", "yan": "#7c4eb0", "zhao": "#2e9654", "wei": "#e28a1e",
             "han": "#c8a424"}
STATE_RGB = {s: [int(h[k:k + 2], 16) for k in (1, 3, 5)] for s, h in STATE_HEX.items()}
BOXES = (("box-chits", "box", "boards.zhang_yi.box_chits"), ("box-graveyard", "box", "boards.zhang_yi.box_graveyard"),
         ("box-talent-pool", "box", "boards.zhang_yi.box_talent_pool"), ("dice-tray", "dice", "boards.zhang_yi.dice_tray"))
COUNTER = {"footprint": "rect", "size_mm": [16, 16], "height_mm": 3, "owners": "players"}
AREA_ID = "^[a-z][a-z0-9_]{0,40}$"


def _problems(doc: Any) -> list[str]:
    found, _warnings = semantic_problems(doc)
    return (missing_fields(doc) if not doc.get("complete") else []) + found


class ZhangYiBoardKit(BoardKit):
    game = "zhang_yi"
    data_format = "zhang-yi-map"
    setup_key = "board"

    def shipped(self) -> tuple[str, ...]:
        return SHIPPED

    def shipped_doc(self, board_id: str) -> dict[str, Any]:
        if board_id not in SHIPPED:
            raise KeyError(board_id)
        return shipped_map_json(board_id)

    def layout_id(self, board_id: str) -> str:
        return f"zhang-yi-{board_id}" if board_id in SHIPPED else board_id

    def check(self, doc: Any) -> list[Message]:
        try:
            map_from_json(doc, "map")
        except InvalidRecord as exc:
            try:
                details = _problems(doc)
            except (KeyError, TypeError, ValueError, AttributeError):
                details = []
            return [Message.t("boards.problem", text=d) for d in (details or [str(exc)])]
        return []

    def describe(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        return {"name": doc.get("name"), "provisional": bool(doc.get("provisional")) or bool(doc.get("sample")),
                "players": [2, 3], "side": ""}

    def spaces(self, doc: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(a.get("space_id", a["id"]) for a in doc.get("areas", []))

    # -- drawing -------------------------------------------------------------------------------
    def geometry(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if layout is None:
            return None
        geo = layout_geometry(self.game, doc.get("id"), layout, provisional_board=bool(doc.get("provisional") or doc.get("sample")),
                              need=self.spaces(doc))
        if geo is None:
            return None
        areas = {a.get("space_id", a["id"]): a for a in doc["areas"]}
        space_of = {a["id"]: a.get("space_id", a["id"]) for a in doc["areas"]}
        at = {s["id"]: s for s in geo["spaces"]}
        boxes = {sid: key for sid, _kind, key in BOXES}
        for s in geo["spaces"]:
            a = areas.get(s["id"])
            if a is not None:
                s["kind"] = "city" if a["city"] else "area"
                s["label"] = Message.of({"en": a.get("name_en") or a["id"], "zh": a.get("name_zh") or a.get("name_en") or a["id"]}).to_json()
                s["mark"] = "city" if a["city"] else None
                if a.get("setup_state"):
                    s["fill"] = tint(STATE_HEX[a["setup_state"]], 0.25)
            elif s["id"] in boxes:
                s["label"] = Message.t(boxes[s["id"]]).to_json()
        for b in doc["borders"]:
            a, c = at.get(space_of.get(b["a"], "")), at.get(space_of.get(b["b"], ""))
            if a is not None and c is not None:
                geo["lines"].append({"a": [a["x"], a["y"]], "b": [c["x"], c["y"]], "kind": b["type"] or "open"})
        geo["owners"] = dict(STATE_HEX, neutral="#f4f1e8")
        pieces: dict[str, Any] = {"army": {"shape": "counter", "fill": None, "count": "number", "size": 16}}
        for t in TALENT_NAMES:
            pieces[f"talent-{t.id}"] = {"shape": "disc", "fill": None, "size": 16, "label": talent_label(t.id).to_json()}
        pieces["talent-*"] = {"shape": "disc", "fill": None, "size": 16, "label": "{suffix}"}
        geo["pieces"] = pieces
        geo["legend"] = [
            {"shape": "counter", "fill": STATE_HEX["qin"], "text": "3", "label": Message.t("boards.zhang_yi.army").to_json()},
            {"shape": "disc", "fill": STATE_HEX["chu"], "label": Message.t("boards.zhang_yi.talent").to_json()},
            {"shape": "city", "label": Message.t("boards.zhang_yi.city").to_json()},
            {"shape": "line-river", "label": Message.t("boards.zhang_yi.river").to_json()},
            {"shape": "line-mountain", "label": Message.t("boards.zhang_yi.mountain").to_json()},
        ]
        return geo

    def move_spaces(self, move: Mapping[str, Any]) -> list[str]:
        out = [move[k] for k in ("area", "from", "to") if isinstance(move.get(k), str)]
        out += [p["area"] for p in move.get("placements", []) if isinstance(p, Mapping) and isinstance(p.get("area"), str)]
        return out

    # -- capture -------------------------------------------------------------------------------
    def capture_spec(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any]:
        at = {s["id"]: s for s in (layout or {}).get("spaces", [])}
        items = []
        for a in doc["areas"]:
            sid = a.get("space_id", a["id"])
            values = {"id": a["id"], "name_zh": a.get("name_zh", ""), "name_en": a.get("name_en", ""), "city": bool(a["city"]),
                      "setup_state": a["setup_state"] or "", "setup_strength": a["setup_strength"] or 0}
            if sid in at:
                items.append(item_from_space(at[sid], f"area:{a['id']}", sid="{id}", kind="area", values=values))
        for sid, kind, _key in BOXES:
            if sid in at:
                items.append(item_from_space(at[sid], sid, sid=sid, kind=kind))
            else:
                items.append({"key": sid, "id": sid, "kind": kind, "group": None, "values": {}, "shape": "rect", "w": 140, "h": 90,
                              "placed": False})
        states = [{"value": "", "label": Message.t("boards.zhang_yi.neutral").to_json()}] + [
            {"value": s, "label": state_label(s).to_json()} for s in STATES]
        area_fields = [
            {"key": "id", "type": "text", "pattern": AREA_ID, "label": Message.t("boards.zhang_yi.area_id").to_json()},
            {"key": "name_zh", "type": "text", "label": Message.t("boards.zhang_yi.name_zh").to_json()},
            {"key": "name_en", "type": "text", "label": Message.t("boards.zhang_yi.name_en").to_json()},
            {"key": "city", "type": "check", "label": Message.t("boards.zhang_yi.city_field").to_json()},
            {"key": "setup_state", "type": "select", "options": states, "label": Message.t("boards.zhang_yi.setup_state").to_json()},
            {"key": "setup_strength", "type": "number", "min": 0, "max": 64, "label": Message.t("boards.zhang_yi.setup_strength").to_json()},
        ]
        fields = []
        for s in STATES:
            mix = doc["states"][s]
            for key in ("counters_1_2", "counters_3_4"):
                fields.append({"key": f"{s}.{key}", "type": "number", "min": 0, "max": 8, "value": mix.get(key),
                               "label": Message.t(f"boards.zhang_yi.{key}", state=state_label(s)).to_json()})
        for t in doc["talents"]:
            if t["kind"] == GENERAL:
                name = talent_label(t["id"])
                fields.append({"key": f"bonus.{t['id']}", "type": "number", "min": 0, "max": 9, "value": t.get("bonus"),
                               "label": Message.t("boards.zhang_yi.bonus", general=name).to_json()})
        return {
            "game": self.game, "page": "generic", "data_format": self.data_format, "template": doc.get("id"),
            "template_size": (layout or {}).get("size_mm"), "name": doc.get("name") if not doc.get("sample") else None,
            "id_hint": "my-map", "groups": [], "group_fields": [], "item_fields": {"area": area_fields}, "items": items,
            "add": {"kind": "area", "shape": "polygon", "id": "{id}", "label": Message.t("boards.zhang_yi.add_area").to_json(),
                    "values": {"id": "", "name_zh": "", "name_en": "", "city": False, "setup_state": "", "setup_strength": 0}},
            "links": {"label": Message.t("boards.zhang_yi.borders").to_json(), "kinds": ["area"],
                      "types": [{"value": b, "label": Message.t(f"boards.zhang_yi.border_{b}").to_json()} for b in BORDER_TYPES],
                      "list": [{"a": f"area:{b['a']}", "b": f"area:{b['b']}", "type": b["type"] or "open"} for b in doc["borders"]]},
            "fields": fields,
            "rules": [Message.t("boards.zhang_yi.capture_rule").to_json()],
        }

    def capture_build(self, capture: Mapping[str, Any], template: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        items = placed_items(capture)
        links = capture.get("links") or []
        fields = capture.get("fields") or {}
        if not isinstance(links, list) or not isinstance(fields, Mapping):
            raise InvalidRecord("links must be a list and fields an object", where="capture")
        doc: dict[str, Any] = {"format": "zhang-yi-map/1", "game": "zhang_yi", "id": str(capture.get("id", "")).strip()}
        name = message_json(capture.get("name"))
        if name:
            doc["name"] = name
        provisional = bool(capture.get("provisional"))
        doc.update(data_version=1, complete=True, sample=False, provisional=provisional,
                   source=f"captured with the tableref dashboard on {date.today().isoformat()}")
        doc["states"] = {s: {"zh": STATE_ZH[s], "army_counters": 8, "counters_1_2": _int(fields.get(f"{s}.counters_1_2")),
                             "counters_3_4": _int(fields.get(f"{s}.counters_3_4"))} for s in STATES}
        areas, spaces, area_of_key = [], [], {}
        for it in items:
            v = it["values"]
            if it.get("kind") == "area" or it["key"].startswith("area:"):
                aid = str(v.get("id", "")).strip()
                area: dict[str, Any] = {"id": aid}
                for key in ("name_zh", "name_en"):
                    if str(v.get(key, "")).strip():
                        area[key] = str(v[key]).strip()
                area.update(city=bool(v.get("city")), setup_state=(str(v.get("setup_state") or "") or None),
                            setup_strength=_int(v.get("setup_strength")) or 0)
                areas.append(area)
                area_of_key[it["key"]] = aid
                add_placed(spaces, it, aid or it["key"], "city" if area["city"] else "area")
            elif it["key"] in {sid for sid, _k, _m in BOXES}:
                add_placed(spaces, it, it["key"], dict((s, k) for s, k, _m in BOXES)[it["key"]])
            else:
                raise InvalidRecord(f"unknown item {it['key']!r}", where="capture.items")
        doc["areas"] = areas
        borders = []
        for i, link in enumerate(links):
            if not isinstance(link, Mapping):
                raise InvalidRecord("a border needs a, b and a type", where=f"capture.links[{i}]")
            borders.append({"a": area_of_key.get(str(link.get("a")), str(link.get("a"))),
                            "b": area_of_key.get(str(link.get("b")), str(link.get("b"))), "type": link.get("type") or "open"})
        doc["borders"] = borders
        talents = copy.deepcopy(list(template.get("talents", [])))
        for t in talents:
            if t.get("kind") == GENERAL:
                t["bonus"] = _int(fields.get(f"bonus.{t['id']}"))
        doc["talents"] = talents
        pieces: dict[str, Any] = {"army": dict(COUNTER)}
        pieces.update({f"talent-{t.id}": dict(COUNTER) for t in TALENT_NAMES})
        layout = capture_layout(dict(capture, id=doc["id"]), game=self.game, board=doc["id"], spaces=spaces, regions=[],
                                pieces=pieces, players=STATE_RGB)
        return doc, layout


def _int(v: Any) -> int | None:
    if isinstance(v, bool) or v is None or v == "":
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


KIT = ZhangYiBoardKit()
