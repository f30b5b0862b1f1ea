"""The JSON API against a fake table driven by the real China engine (docs/web.md)."""

from __future__ import annotations

import json

import pytest

from scorer.games.china.board import board_from_json
from web.fake import FakeTableService

HOUSE_BLUE = {"type": "place", "player": "blue", "pieces": [{"kind": "house", "space": "wei-1"}]}
HOUSE_GREEN = {"type": "place", "player": "green", "pieces": [{"kind": "house", "space": "wei-2"}]}
OUT_OF_TURN = {"type": "place", "player": "red", "pieces": [{"kind": "house", "space": "wei-3"}]}


def test_state_follows_the_engine(api, service):
    s0 = api.get("/api/state").get_json()
    assert s0["game"] == "china" and s0["turn"]["active"] == ["blue"]
    assert s0["event_id"] == service.events().last_id
    assert service.play(HOUSE_BLUE).ok
    s1 = api.get("/api/state").get_json()
    assert s1["turn"]["active"] == ["green"]
    assert s1["board"]["wei-1"] == [{"owner": "blue", "kind": "house", "count": 1}]
    assert s1["last_move"]["spaces"] == ["wei-1"]
    assert s1["version"] > s0["version"]
    scores = api.get("/api/scores").get_json()
    assert [p["player"] for p in scores["scores"]["players"]] == ["blue", "green", "red"]
    assert scores["scores"]["categories"] == ["provinces", "alliances", "roads"]


def test_history_and_events(api, service):
    service.play(HOUSE_BLUE)
    service.play(OUT_OF_TURN)
    hist = api.get("/api/history").get_json()
    types = [h["type"] for h in hist["events"]]
    assert types == ["new_game", "move_accepted", "flag_raised"]
    assert hist["events"][1]["description"]["en"].startswith("blue")
    first = hist["events"][0]["id"]
    ev = api.get(f"/api/events?since={first}").get_json()
    assert ev["complete"] is True and ev["last_id"] == service.events().last_id
    assert [e["id"] for e in ev["events"]] == sorted(e["id"] for e in ev["events"])
    assert all(e["id"] > first for e in ev["events"])
    assert {"move_accepted", "flag_raised", "state"} <= {e["type"] for e in ev["events"]}
    limited = api.get(f"/api/events?since={first}&limit=1").get_json()
    assert len(limited["events"]) == 1 and limited["more"] is True


@pytest.mark.parametrize("query", ["since=x", "since=-1", "limit=0", "limit=99999"])
def test_events_rejects_bad_numbers(api, query):
    r = api.get(f"/api/events?{query}")
    assert r.status_code == 400
    assert r.get_json()["error"]["code"] == "bad_input"


def test_events_says_when_the_log_lost_some(make_app):
    from tableref.service import EventBus

    svc = FakeTableService(bus=EventBus(keep=5), setup={"players": ["blue", "green", "red"]})
    for _ in range(6):
        svc.play({"type": "exchange", "player": svc.state.players[svc.state.active]})
    client = make_app(svc).test_client()
    assert client.get("/api/events?since=1").get_json()["complete"] is False


def test_board_geometry_covers_every_space(api):
    data = api.get("/api/board").get_json()
    topo, geo = data["topology"], data["geometry"]
    board_from_json(topo)
    need = {s for p in topo["provinces"] for s in p["sites"] + [p["dragon"]]}
    assert need == {s["id"] for s in geo["spaces"]}
    assert geo["provisional_board"] is True
    assert geo["source"] in ("layout", "schematic")
    assert len(geo["alliances"]) == 15 and len(geo["regions"]) == 9
    w, h = geo["size"]
    assert all(0 <= s["x"] <= w and 0 <= s["y"] <= h for s in geo["spaces"])


def test_board_unknown_and_bad_ids(api):
    assert api.get("/api/board?id=nope").status_code == 404
    assert api.get("/api/board?id=../../etc/passwd").status_code == 400


def test_games_and_boards_lists(api):
    games = {g["id"]: g for g in api.get("/api/games").get_json()["games"]}
    assert games["china"]["colours"] == ["blue", "green", "violet", "red", "yellow"]
    assert "fortress" in games["china"]["variants"]
    boards = {b["id"]: b for b in api.get("/api/boards").get_json()["boards"]}
    assert boards["china-a"]["players"] == [3, 4] and boards["china-a"]["source"] == "shipped"


def test_new_game(admin, service):
    r = admin.post("/api/game/new", {"game": "china", "players": ["red", "yellow", "blue", "green", "violet"],
                                      "board": "china-b", "variants": ["fortress"]})
    assert r.status_code == 200, r.get_json()
    snap = service.snapshot()
    assert snap["players"] == ["red", "yellow", "blue", "green", "violet"]
    assert snap["board_id"] == "china-b" and snap["setup"]["variants"] == ["fortress"]


@pytest.mark.parametrize("body, field", [
    ({"game": "china", "players": ["red", "blue"]}, "players"),
    ({"game": "china", "players": ["red", "red", "blue"]}, "players"),
    ({"game": "china", "players": ["red", "blue", "pink"]}, "players"),
    ({"game": "china", "players": ["red", "blue", "green"], "variants": ["teleport"]}, "variants"),
    ({"game": "china", "players": ["red", "blue", "green"], "board": "../../../etc/passwd"}, "id"),
    ({"game": "china", "players": ["red", "blue", "green"], "board": "/etc/passwd"}, "id"),
    ({"game": "china", "players": ["red", "blue", "green"], "board": "no-such-board"}, "board"),
    ({"game": "chess", "players": ["red", "blue", "green"]}, "game"),
    ({"game": "china", "players": ["red", "blue", "green"], "surprise": 1}, None),
    ({"game": "china", "players": "red"}, "players"),
])
def test_new_game_rejects_bad_input(admin, service, body, field):
    before = service.snapshot()["version"]
    r = admin.post("/api/game/new", body)
    assert r.status_code in (400, 404), r.get_json()
    err = r.get_json()["error"]
    assert err["message"]["en"] and err["message"]["zh"]
    if field:
        assert err.get("field") == field
    assert service.snapshot()["version"] == before


def test_new_game_dry_run_names_the_problem(admin, service):
    r = admin.post("/api/game/new", {"game": "china", "players": ["red", "blue", "green"], "board": "china-b"})
    assert r.status_code == 400
    assert "china-b" in r.get_json()["error"]["message"]["en"]


def test_declare_exchange_passes_the_turn(admin, service):
    r = admin.post("/api/declare", {"move": {"type": "exchange", "player": "blue"}})
    assert r.status_code == 200, r.get_json()
    assert service.snapshot()["turn"]["active"] == ["green"]
    bad = admin.post("/api/declare", {"move": {"type": "teleport"}})
    assert bad.status_code == 400 and bad.get_json()["error"]["field"] == "move"


def test_undo_and_override(admin, service):
    service.play(HOUSE_BLUE)
    r = admin.post("/api/undo")
    assert r.status_code == 200
    assert service.snapshot()["turn"]["active"] == ["blue"] and "wei-1" not in service.snapshot()["board"]
    r = admin.post("/api/undo")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "refused"
    service.play(OUT_OF_TURN)
    assert service.snapshot()["flag"]["violations"][0]["rule"] == "turn.not_your_turn"
    r = admin.post("/api/override")
    assert r.status_code == 200
    assert service.snapshot()["flag"] is None
    assert service.history()[-1]["type"] in ("override", "game_over")


def test_camera_picture(api):
    r = api.get("/api/camera.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    meta = api.get("/api/capture/snapshot").get_json()
    assert meta["available"] is True and meta["px_per_mm"] > 0 and len(meta["markers"]["corners"]) == 4
    img = api.get("/api/capture/image")
    assert img.status_code == 200 and img.data[:2] == b"\xff\xd8"


def test_devices(api):
    d = api.get("/api/devices").get_json()
    assert d["sensor_board"]["state"] == "connected" and d["camera"]["markers"]["found"] == [0, 1, 2, 3]


def test_enrolment(admin, service):
    service.present_tag("04A1B2C3D4E5")
    info = admin.get("/api/enrol").get_json()
    assert info["pending"]["uid"] == "04A1B2C3D4E5"
    r = admin.post("/api/enrol", {"uid": "04a1b2c3d4e5", "item": {"owner": "red", "kind": "house"}})
    assert r.status_code == 200, r.get_json()
    assert admin.post("/api/enrol", {"uid": "04A1B2C3D4E6", "item": {"card": "orange"}}).status_code == 200
    assert service.registry() == {"04A1B2C3D4E5": {"owner": "red", "kind": "house"}, "04A1B2C3D4E6": {"card": "orange"}}
    assert admin.get("/api/enrol").get_json()["pending"] is None
    for body in ({"uid": "zz", "item": {"owner": "red", "kind": "house"}},
                 {"uid": "04A1B2C3", "item": {"owner": "pink", "kind": "house"}},
                 {"uid": "04A1B2C3", "item": {"owner": "red", "kind": "dragon"}},
                 {"uid": "04A1B2C3", "item": {"card": "blue"}},
                 {"uid": "04A1B2C3", "item": {"owner": "red", "kind": "house", "card": "red"}},
                 {"uid": "04A1B2C3", "item": {"type": "cow"}}):
        assert admin.post("/api/enrol", body).status_code == 400, body


def test_settings(admin, api):
    r = admin.post("/api/settings", {"table_name": "  Table 3 ", "default_language": "zh-Hans"})
    assert r.status_code == 200 and r.get_json()["settings"]["table_name"] == "Table 3"
    assert api.get("/api/settings").get_json() == {"table_name": "Table 3", "default_language": "zh-Hans"}
    assert "Table 3" in api.get("/").get_data(as_text=True)
    assert admin.post("/api/settings", {"table_name": "x" * 41}).status_code == 400
    assert admin.post("/api/settings", {"default_language": "fr"}).status_code == 400


def test_unknown_api_path_is_json(api):
    r = api.get("/api/nothing-here")
    assert r.status_code == 404 and r.get_json()["error"]["message"]["zh"]


class MinimalService:
    """Only the original TableService methods: optional ones answer 501, not a crash."""

    def __init__(self, inner: FakeTableService):
        self._inner = inner

    def snapshot(self):
        return self._inner.snapshot()

    def events(self):
        return self._inner.events()

    def history(self):
        return self._inner.history()

    def devices(self):
        return {}

    def camera_snapshot(self):
        return None


def test_service_without_optional_methods(make_app, service):
    client = make_app(MinimalService(service)).test_client()
    assert client.get("/api/enrol").status_code == 501
    assert client.get("/api/capture/snapshot").status_code == 501
    assert client.get("/api/camera.jpg").status_code == 503
    assert client.get("/api/state").status_code == 200


def test_pages_render(api):
    for path in ("/", "/board", "/history", "/new", "/devices", "/capture", "/enrol", "/settings", "/login"):
        r = api.get(path)
        assert r.status_code == 200, path
        html = r.get_data(as_text=True)
        boot = html.split('<script id="boot" type="application/json">')[1].split("</script>")[0]
        data = json.loads(boot)
        assert data["csrf"] and data["t"]["nav.board"]


def test_zhang_yi_asks_before_using_its_invented_map(admin, service, api):
    games = {g["id"]: g for g in api.get("/api/games").get_json()["games"]}
    asks = games["zhang_yi"]["confirmations"]
    assert [a["key"] for a in asks] == ["sample_map_confirmed"]
    assert "SAMPLE" in asks[0]["text"]["en"] and "虚构" in asks[0]["text"]["zh"]
    assert games["china"]["confirmations"] == []
    before = service.snapshot()["version"]
    refused = admin.post("/api/game/new", {"game": "zhang_yi", "players": ["red", "blue"]})
    assert refused.status_code == 400 and "sample_map_confirmed" in refused.get_json()["error"]["message"]["en"]
    wrong = admin.post("/api/game/new", {"game": "china", "players": ["red", "blue", "green"], "confirm": ["sample_map_confirmed"]})
    assert wrong.status_code == 400 and wrong.get_json()["error"]["field"] == "confirm"
    assert service.snapshot()["version"] == before
    r = admin.post("/api/game/new", {"game": "zhang_yi", "players": ["red", "blue"], "confirm": ["sample_map_confirmed"]})
    assert r.status_code == 200, r.get_json()
    snap = service.snapshot()
    assert snap["game"] == "zhang_yi" and snap["setup"]["sample_map_confirmed"] is True


def test_ming_neutral_colour_is_offered_and_checked(admin, service, api):
    games = {g["id"]: g for g in api.get("/api/games").get_json()["games"]}
    assert set(games["ming"]["neutral_colours"]) == {"yellow", "green", "blue", "red"} and games["china"]["neutral_colours"] == []
    before = service.snapshot()["version"]
    played = admin.post("/api/game/new", {"game": "ming", "players": ["red", "blue"], "neutral_colour": "red"})
    assert played.status_code == 400 and "red" in played.get_json()["error"]["message"]["en"]  # a colour that plays
    other = admin.post("/api/game/new", {"game": "china", "players": ["red", "blue", "green"], "neutral_colour": "yellow"})
    assert other.status_code == 400 and other.get_json()["error"]["field"] == "neutral_colour"
    assert "代表中立" in other.get_json()["error"]["message"]["zh"]
    cards = admin.post("/api/game/new", {"game": "ming", "players": ["red", "blue"], "cards": "tracked"})  # China's choice
    assert cards.status_code == 400 and cards.get_json()["error"]["field"] == "cards"
    assert "declared" in cards.get_json()["error"]["message"]["en"]
    assert service.snapshot()["version"] == before  # nothing started
    r = admin.post("/api/game/new", {"game": "ming", "players": ["red", "blue"], "neutral_colour": "green"})
    assert r.status_code == 200, r.get_json()
    assert service.snapshot()["setup"]["neutral_colour"] == "green"
