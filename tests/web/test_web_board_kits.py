"""Board kits (scorer/core/boardkit.py) through the dashboard's board library and API: each game's
drawing, board capture writing a data file and a layout that pass the game's validator and the
layout validator, a game set up on the captured board, and the spaces of a recorded move."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from scorer.core import SetupOptions, get_game
from scorer.core.boardkit import moved_spaces
from scorer.core.registry import board_kit
from scorer.data_files import kind_of
from vision.layout import layout_from_json, load_layout
from web.boards import BoardLibrary
from web.errors import BadInput, Conflict

ROOT = Path(__file__).resolve().parents[2]

GAMES = ("cheops", "great_wall", "ming", "zhang_yi")
SETUPS = {"cheops": {"players": ["blue", "red"], "seed": 4}, "great_wall": {"players": ["blue", "red"], "seed": 1},
          "ming": {"players": ["yellow", "green"], "seed": 2},
          "zhang_yi": {"players": ["red", "blue"], "sample_map_confirmed": True, "seed": 3}}


def capture_from_spec(spec: dict[str, Any], capture_id: str, size: list[float], markers: dict[str, Any]) -> dict[str, Any]:
    """What the capture page sends when every space stays where the template put it."""
    return {"template": spec["template"], "id": capture_id, "name": {"en": "Our board", "zh": "我们的版图"},
            "provisional": False, "size_mm": size, "markers": markers,
            "groups": {g["key"]: dict(g["values"]) for g in spec["groups"]},
            "fields": {f["key"]: f.get("value") for f in spec["fields"]},
            "items": [dict(i, placed=True) for i in spec["items"]],
            "links": [dict(l) for l in (spec["links"] or {}).get("list", [])]}


def shipped_capture(lib: BoardLibrary, game: str, capture_id: str) -> dict[str, Any]:
    spec = lib.capture_spec(game)
    layout = lib.layout_doc(board_kit(game).default_board(), game)
    return capture_from_spec(spec, capture_id, layout["size_mm"], layout["markers"])


@pytest.mark.parametrize("game", GAMES)
def test_geometry_draws_every_layout_space(tmp_path, game):
    lib = BoardLibrary(tmp_path)
    kit = board_kit(game)
    board_id = kit.default_board()
    geo = lib.geometry(board_id, game)
    layout = load_layout(kit.layout_id(board_id))
    assert geo["game"] == game and geo["source"] == "layout" and geo["provisional_layout"] is True
    assert {s["id"] for s in geo["spaces"]} == set(layout.space_ids)
    assert geo["legend"] and all("en" in e["label"] and "zh-Hans" in e["label"] for e in geo["legend"])
    assert geo["markers"]["size_mm"] >= 50
    assert [b.id for b in lib.list(game)] == [board_id]


@pytest.mark.parametrize("game", GAMES)
def test_capture_of_the_shipped_positions_writes_valid_files(tmp_path, game):
    lib = BoardLibrary(tmp_path)
    kit = board_kit(game)
    capture = shipped_capture(lib, game, f"our-{game.replace('_', '-')}")
    board, layout = lib.build_capture(game, capture)
    assert lib.check_capture(board, layout, game) == []
    written = lib.save_capture(board, layout, game=game)
    parsed = layout_from_json(json.loads(Path(written["layout"]).read_text()))  # the camera's layout validator
    shipped = json.loads(Path(ROOT, "vision", "layouts", f"{parsed.id if kit.data_format is None else kit.layout_id(kit.default_board())}.json").read_text())
    # what the camera knows of the pieces (sizes, heights, per_owner, printed faces, a die) and of which space
    # holds what survives a capture; the capture decides only colours (Cheops' treasures)
    captured = json.loads(Path(written["layout"]).read_text())
    assert {k: {a: b for a, b in v.items() if a != "rgb"} for k, v in captured["pieces"].items()} == \
        {k: {a: b for a, b in v.items() if a != "rgb"} for k, v in shipped["pieces"].items()}
    assert captured.get("holds") == shipped.get("holds")
    if kit.data_format is None:  # The Great Wall: the table's own mat replaces the shipped one
        assert sorted(written) == ["layout"] and parsed.id == "great-wall"
        assert lib.geometry("great-wall", game)["provisional_layout"] is False
        return
    doc = json.loads(Path(written["board"]).read_text())
    kind = kind_of(doc)
    obj = kind.from_json(doc, "captured")  # the game's own validator (tableref boards validate)
    assert kind.game == game and getattr(obj, "provisional", False) is False
    assert set(kit.spaces(doc)) <= set(parsed.space_ids)
    assert [b.id for b in lib.list(game) if b.source == "captured"] == [doc["id"]]
    geo = lib.geometry(doc["id"], game)
    assert geo["provisional_board"] is False and geo["provisional_layout"] is False
    # a game set up on the captured board (its setup names the file, as the New game form does)
    setup = dict(SETUPS[game], board=lib.setup_ref(doc["id"], game))
    state = get_game(game).setup(SetupOptions.from_json(setup))
    assert lib.resolve(game, setup["board"]) == doc["id"]
    assert get_game(game).state_to_json(state) is not None
    with pytest.raises(Conflict):
        lib.save_capture(board, layout, game=game)


def test_cheops_capture_changes_what_the_photo_shows(tmp_path):
    lib = BoardLibrary(tmp_path)
    capture = shipped_capture(lib, "cheops", "mine")
    for item in capture["items"]:
        if item["key"] == "r6c3":
            item["values"]["eye"] = False
        if item["key"] == "r11c6":
            item["values"]["eye"] = True
        if item["key"] == "r1c1":
            item["x"] += 7.5
    capture["groups"]["c2"] = {"id": "purple", "zh": "紫"}
    board, layout = lib.build_capture("cheops", capture)
    assert "r11c6" in board["eye_spaces"] and "r6c3" not in board["eye_spaces"]
    assert board["treasure_colours"][1] == {"id": "purple", "zh": "紫"}
    parsed = layout_from_json(layout)
    assert {"dot-purple", "price-purple", "price-purple-law"} <= set(parsed.space_ids)
    assert parsed.held_kinds(parsed.space("price-purple")) == ("treasure-purple",)
    assert parsed.space("r11c6").kind == "eye" and parsed.space("r6c3").kind == "pyramid"
    shipped = load_layout("cheops")
    assert parsed.space("r1c1").centre[0] == pytest.approx(shipped.space("r1c1").centre[0] + 7.5)


def test_a_space_left_off_the_photo_is_named(tmp_path):
    lib = BoardLibrary(tmp_path)
    capture = shipped_capture(lib, "ming", "mine")
    for item in capture["items"]:
        if item["key"] in ("p2d3-cloister", "province-space-p5"):
            item["placed"] = False
    board, layout = lib.build_capture("ming", capture)
    problems = " ".join(p.en for p in lib.check_capture(board, layout, "ming"))
    assert "p2d3-cloister" in problems and "province-space-p5" in problems
    with pytest.raises(BadInput):
        lib.save_capture(board, layout, game="ming")
    assert not (tmp_path / "boards").exists()


def test_ming_borders_and_colours_come_from_the_capture(tmp_path):
    lib = BoardLibrary(tmp_path)
    capture = shipped_capture(lib, "ming", "mine")
    capture["groups"]["p1"]["colour"] = "orange"
    capture["groups"]["p6"]["colour"] = "red"
    capture["links"] = [l for l in capture["links"] if {l["a"], l["b"]} != {"p1d1", "p1d2"}]
    capture["links"].append({"a": "p1d1", "b": "p1d2", "type": "junk"})
    board, layout = lib.build_capture("ming", capture)
    assert lib.check_capture(board, layout, "ming") == []
    assert board["provinces"][0]["colour"] == "orange"
    assert {"a": "p1d1", "b": "p1d2", "symbol": "junk"} in board["borders"]
    capture["links"].append({"a": "p1d1", "b": "p9d9", "type": "horse"})
    board, layout = lib.build_capture("ming", capture)
    assert lib.check_capture(board, layout, "ming")  # the game's validator refuses an unknown district


def test_zhang_yi_areas_drawn_as_polygons_make_a_playable_map(tmp_path):
    """A map drawn from scratch: two polygons per state's territory and a few neutral ones."""
    lib = BoardLibrary(tmp_path)
    spec = lib.capture_spec("zhang_yi")
    layout0 = lib.layout_doc("sample", "zhang_yi")
    capture = capture_from_spec(spec, "printed-mine", layout0["size_mm"], layout0["markers"])
    areas = [i for i in capture["items"] if i["kind"] == "area"]
    assert all(i["shape"] == "polygon" for i in areas)
    # one more area drawn by hand in the dice tray's corner is refused until named; then accepted
    capture["items"].append({"key": "area:new1", "kind": "area", "shape": "polygon", "placed": True,
                             "points": [[80, 80], [110, 80], [95, 110]], "values": dict(spec["add"]["values"])})
    board, layout = lib.build_capture("zhang_yi", capture)
    assert lib.check_capture(board, layout, "zhang_yi")
    capture["items"][-1]["values"].update(id="hexi", name_zh="河西", name_en="Hexi")
    capture["links"].append({"a": "area:new1", "b": "area:longxi", "type": "mountain"})
    board, layout = lib.build_capture("zhang_yi", capture)
    assert lib.check_capture(board, layout, "zhang_yi") == []
    assert board["sample"] is False and board["complete"] is True
    assert {"a": "hexi", "b": "longxi", "type": "mountain"} in board["borders"]
    parsed = layout_from_json(layout)
    assert parsed.space("hexi").kind == "area" and len(parsed.space("hexi").polygon) == 3
    lib.save_capture(board, layout, game="zhang_yi")
    state = get_game("zhang_yi").setup(SetupOptions.from_json({"players": ["red", "blue"], "board": lib.setup_ref("printed-mine", "zhang_yi")}))
    assert any(a["id"] == "hexi" for a in get_game("zhang_yi").state_to_json(state)["areas"])
    # the counter mix and the generals' bonuses are what the page's fields say
    capture["fields"]["qin.counters_1_2"] = 9
    board, layout = lib.build_capture("zhang_yi", capture)
    assert lib.check_capture(board, layout, "zhang_yi")


def test_malformed_captures_are_bad_input(tmp_path):
    lib = BoardLibrary(tmp_path)
    good = shipped_capture(lib, "cheops", "mine")
    for broken in ({"items": "no"}, {"items": [{"key": "r1c1", "shape": "circle", "x": "a", "y": 1, "r": 3}]},
                   {"items": [{"key": "nonsense", "shape": "circle", "x": 1, "y": 1, "r": 3}]}, {"template": "../x"}):
        with pytest.raises(BadInput):
            lib.build_capture("cheops", dict(copy.deepcopy(good), **broken))


def test_a_captured_id_of_another_game_is_refused(tmp_path):
    lib = BoardLibrary(tmp_path)
    board, layout = lib.build_capture("cheops", shipped_capture(lib, "cheops", "shared-id"))
    lib.save_capture(board, layout, game="cheops")
    board, layout = lib.build_capture("ming", shipped_capture(lib, "ming", "shared-id"))
    assert any("another game" in p.en for p in lib.check_capture(board, layout, "ming"))
    assert [b.id for b in lib.list("ming")] == ["ming-provisional"]  # a Cheops file is not offered to Ming


def test_move_spaces_per_game():
    cases = {
        "cheops": ({"type": "turn", "player": "blue", "steps": [{"do": "place", "tile": "A", "space": "r11c1", "law": 5, "table": "red"}]},
                   ["r11c1", "price-red-law"]),
        "great_wall": ({"type": "play", "player": "blue", "section": "section-2", "cards": ["wall"]}, ["section-2"]),
        "ming": ({"type": "move_prince", "player": "red", "path": ["p1d1", "p1d2"], "deploy": 2, "cloister": True},
                 ["p1d1", "p1d2", "p1d2-cloister"]),
        "zhang_yi": ({"type": "march", "player": "red", "from": "xianyang", "to": "anyi", "strength": 2}, ["xianyang", "anyi"]),
        "china": ({"type": "place", "player": "blue", "pieces": [{"kind": "house", "space": "wei-1"}]}, ["wei-1"]),
    }
    for game, (move, spaces) in cases.items():
        assert moved_spaces(board_kit(game), [move]) == spaces, game


# -- through the API ------------------------------------------------------------------------------

def test_api_board_capture_spec_check_and_save(admin, api):
    for game in GAMES:
        data = api.get(f"/api/board?game={game}").get_json()
        assert data["game"] == game and data["geometry"]["spaces"], game
        assert api.get(f"/api/boards?game={game}").get_json()["boards"]
        assert api.get(f"/api/capture/spec?game={game}").status_code == 200
    assert api.get("/api/board?game=nope").status_code == 404
    assert api.get("/api/board?game=Bad!").status_code == 400
    assert api.get("/api/boards?game=nope").get_json() == {"boards": []}
    games = {g["id"]: g for g in api.get("/api/games").get_json()["games"]}
    assert all(games[g]["capture"] for g in GAMES) and not games["great_wall"]["boards"] and games["ming"]["boards"]
    spec = api.get("/api/capture/spec?game=ming").get_json()
    layout = api.get("/api/board?game=ming").get_json()
    capture = capture_from_spec(spec, "api-ming", layout["geometry"]["size"], layout["geometry"]["markers"])
    res = api.post("/api/capture/check", {"game": "ming", "capture": capture}).get_json()
    assert res["ok"] and res["board"]["id"] == "api-ming" and res["layout"]["spaces"]
    assert api.post("/api/capture/save", {"game": "ming", "capture": capture}).status_code == 401  # admin only
    saved = admin.post("/api/capture/save", {"game": "ming", "capture": capture})
    assert saved.status_code == 200 and saved.get_json()["id"] == "api-ming"
    assert api.get("/api/board?game=ming&id=api-ming").get_json()["geometry"]["provisional_layout"] is False
    started = admin.post("/api/game/new", {"game": "ming", "players": ["yellow", "green"], "board": "api-ming"})
    assert started.status_code == 200, started.get_json()
    assert api.get("/api/state").get_json()["board_id"] == "api-ming"
    board = api.get("/api/board").get_json()  # the running game's board, by default
    assert board["game"] == "ming" and board["id"] == "api-ming"
    refused = admin.post("/api/game/new", {"game": "great_wall", "players": ["blue", "red"], "board": "great-wall"})
    assert refused.status_code == 400  # The Great Wall has no board choice
