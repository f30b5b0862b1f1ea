"""The venue's pages and API through Flask's test client: what they show, and that every
state-changing call needs the venue's admin PIN and the CSRF token exactly like the table's
dashboard (the same guard functions); the catalogue has every text the venue pages use."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tableref.mqtt.link import BrokerSettings
from tableref.venue.service import VenueService, VenueSettings
from tableref.venue.web import create_venue_app
from web import i18n

PIN = "2468"
FAST_HASH = "pbkdf2:sha256:2000"
VENUE = Path(__file__).resolve().parents[2] / "tableref" / "venue"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# POSTs that are not organiser changes: getting in and out (rate-limited, still CSRF-checked)
AUTH_ROUTES = {"/api/pin/setup", "/api/login", "/api/logout"}


def state(version: int, **extra: Any) -> bytes:
    snap = {"game": "china", "game_name": {"en": "China", "zh": "中国皇帝"}, "game_no": 1, "version": version, "moves": version,
            "turn": {"active": ["green"], "round": 2, "phase": "play", "awaiting": "move"}, "table": {"name": "Table 1"},
            "player_names": {"blue": "Alice", "green": "Bob", "red": "red"}, "flag": None, "outcome": None,
            "scores": {"players": [{"player": "blue", "total": 7}, {"player": "green", "total": 3}, {"player": "red", "total": 3}]}}
    snap.update(extra)
    return json.dumps(snap).encode()


class Client:
    def __init__(self, app: Any) -> None:
        self.c = app.test_client()
        self.csrf = self.c.get("/api/session").get_json()["csrf"]

    def post(self, url: str, body: Any = None, *, csrf: bool = True, headers: dict[str, str] | None = None) -> Any:
        h = dict(headers or {})
        if csrf:
            h["X-CSRF-Token"] = self.csrf
        resp = self.c.post(url, json={} if body is None else body, headers=h)
        data = resp.get_json(silent=True) or {}
        if "csrf" in data:
            self.csrf = data["csrf"]
        return resp


@pytest.fixture
def venue(tmp_path: Path):  # type: ignore[no-untyped-def]
    # not started: no broker here; the hall is fed the messages a broker would deliver
    v = VenueService(VenueSettings(broker=BrokerSettings("127.0.0.1", 1), data_dir=str(tmp_path / "venue"), name="Hall A"))
    v.hall.handle("t1", "info", json.dumps({"name": "Table 1", "dashboard_url": "http://t1.local:8080/"}).encode(), True)
    v.hall.handle("t1", "status", b"online", True)
    v.hall.handle("t1", "state", state(5), True)
    v.hall.handle("t2", "status", b"offline", True)
    v.hall.handle("t2", "state", state(9, table={"name": "Table 2"}), True)
    yield v
    v.stop()


@pytest.fixture
def app(venue: VenueService, tmp_path: Path):  # type: ignore[no-untyped-def]
    return create_venue_app(venue, data_dir=tmp_path / "venue", initial_pin=PIN,
                            config={"PIN_HASH_METHOD": FAST_HASH, "SSE_KEEPALIVE": 0.2})


def admin(app: Any) -> Client:
    c = Client(app)
    assert c.post("/api/login", {"pin": PIN}).status_code == 200
    return c


def test_pages_and_reading(app: Any, venue: VenueService) -> None:
    c = Client(app)
    page = c.c.get("/").get_data(as_text=True)
    assert 'id="tiles"' in page and "venue.js" in page and "Hall A" in page and "venue.css" in page
    assert 'href="/standings"' in page and "/venue-static/venue.js" in page
    assert c.c.get("/venue-static/venue.js").status_code == 200 and c.c.get("/static/js/app.js").status_code == 200
    assert "standings.js" in c.c.get("/standings").get_data(as_text=True)
    assert c.c.get("/login").status_code == 200
    view = c.c.get("/api/venue").get_json()
    assert [t["name"] for t in view["tiles"]] == ["Table 1", "Table 2"] and view["venue"]["name"] == "Hall A"
    one, two = view["tiles"]
    assert one["dashboard_url"] == "http://t1.local:8080/" and one["online"] is True and one["players"][0]["leader"]
    assert two["online"] is False and view["broker"]["state"] == "connecting" and view["event_id"] == venue.bus.last_id
    zh = c.c.get("/", headers={"Accept-Language": "zh-CN"}).get_data(as_text=True)
    assert "各桌" in zh and "排名" in zh
    assert c.c.get("/api/venue/standings").get_json()["rows"] == []
    assert c.c.get("/api/venue/standings?game=x;drop").status_code == 400
    resp = c.c.get("/api/venue/results.csv")
    assert resp.status_code == 200 and resp.mimetype == "text/csv" and resp.get_data(as_text=True).startswith("finished_utc,")


def test_the_live_stream_replays_the_venue_bus(app: Any, venue: VenueService) -> None:
    since = venue.bus.last_id
    venue.hall.handle("t1", "state", state(6), False)
    resp = app.test_client().get(f"/api/stream?since={since}", buffered=False)
    chunks = []
    for chunk in resp.response:
        chunks.append(chunk.decode())
        if "event: hello" in chunk.decode():
            break
    resp.close()
    events = [json.loads(line[6:]) for c in chunks for line in c.splitlines() if line.startswith("data: {\"id\"")]
    assert [(e["type"], e["data"]["id"], e["data"]["version"]) for e in events] == [("tile", "t1", 6)]


def post_routes(app: Any) -> list[str]:
    return sorted(r.rule for r in app.url_map.iter_rules() if "POST" in r.methods)


def concrete(rule: str) -> str:
    return rule.replace("<int:game_id>", "1").replace("<table_id>", "t2")


def test_every_change_needs_the_pin_and_the_csrf_token(app: Any, venue: VenueService) -> None:
    changes = [r for r in post_routes(app) if r not in AUTH_ROUTES]
    assert set(changes) >= {"/api/venue/players/merge", "/api/venue/players/unmerge", "/api/venue/results/import",
                            "/api/venue/results/<int:game_id>/delete", "/api/venue/tables/<table_id>/retire", "/api/pin/change"}
    anonymous = Client(app)
    for rule in changes:
        resp = anonymous.post(concrete(rule), {})
        assert resp.status_code == 401 and resp.get_json()["error"]["code"] == "pin_required", rule
    logged_in = admin(app)
    for rule in [*changes, *AUTH_ROUTES]:
        resp = logged_in.post(concrete(rule), {}, csrf=False)
        assert resp.status_code == 403 and resp.get_json()["error"]["code"] == "csrf", rule
        resp = logged_in.c.post(concrete(rule), json={}, headers={"X-CSRF-Token": logged_in.csrf, "Origin": "http://evil.example"})
        assert resp.status_code == 403, rule
    # with both, the calls are carried out (or refused on their merits, never by the guard)
    for rule in changes:
        resp = logged_in.post(concrete(rule), {})
        assert resp.status_code not in (401, 403), (rule, resp.get_json())
    assert venue.results.count() == 0


def test_the_organisers_changes(app: Any, venue: VenueService) -> None:
    c = admin(app)
    record = json.loads((EXAMPLES / "china-4p-complete.json").read_text())
    resp = c.post("/api/venue/results/import", {"record": record, "table": "Table 4", "names": {"blue": "Alice", "green": "al"},
                                                 "finished": "2026-11-20"})
    assert resp.status_code == 200 and resp.get_json()["result"]["duplicate"] is False
    assert c.post("/api/venue/results/import", {"record": record, "table": "Table 4", "finished": "2026-11-20"}).get_json()["result"]["duplicate"]
    bad = c.post("/api/venue/results/import", {"record": record, "table": "Table 4"})
    assert bad.status_code == 400 and bad.get_json()["error"]["message"]["zh"]
    assert {r["name"] for r in c.c.get("/api/venue/standings").get_json()["rows"]} == {"Alice", "al"}
    games = c.c.get("/api/venue/games").get_json()["games"]
    assert len(games) == 1 and games[0]["replay_url"] is None  # imported: no table to replay it on
    when = games[0]["finished_text"]  # the date as each language writes it (Babel), for the results page
    assert set(when) >= {"en", "zh-Hans", "zh-Hant"} and "2026" in when["en"] and "年" in when["zh-Hant"]

    resp = c.post("/api/venue/players/merge", {"from": "AL", "into": "alice"})
    assert resp.status_code == 200 and resp.get_json()["message"]["en"].endswith("counts as Alice.")
    assert [r["name"] for r in c.c.get("/api/venue/standings").get_json()["rows"]] == ["Alice"]
    assert c.post("/api/venue/players/merge", {"from": "al", "into": "alice"}).status_code == 409
    assert c.post("/api/venue/players/merge", {"from": "zed", "into": "alice"}).status_code == 404
    assert c.post("/api/venue/players/unmerge", {"name": "al"}).status_code == 200
    assert c.post("/api/venue/players/unmerge", {"name": "al"}).status_code == 404
    assert c.post("/api/venue/players/merge", {"from": "", "into": "alice"}).status_code == 400

    assert c.post("/api/venue/tables/t1/retire").status_code == 409  # online
    assert c.post("/api/venue/tables/zz/retire").status_code == 404
    assert c.post("/api/venue/tables/t2/retire").status_code == 503  # offline, but no broker to clear it on
    gid = games[0]["id"]
    assert c.post(f"/api/venue/results/{gid}/delete").status_code == 200
    assert c.post(f"/api/venue/results/{gid}/delete").status_code == 404
    assert venue.results.count() == 0


def test_every_text_the_venue_pages_use_is_in_both_catalogues() -> None:
    used: set[str] = set()
    for path in (VENUE / "templates").glob("*.html"):
        used |= set(re.findall(r"\bt\('([a-z_.]+)'", path.read_text()))
    for path in (VENUE / "static").glob("*.js"):
        used |= set(re.findall(r"\bt\(\"([a-z_.]+)\"", path.read_text()))
    assert {"venue.title", "venue.broker_down", "standings.title", "venue.offline_for"} <= used
    for lang in ("en", "zh-Hans"):
        missing = sorted(k for k in used if k not in i18n.catalogue(lang))
        assert not missing, (lang, missing)
