"""The venue service against a real mosquitto with several publishing tables (real runtimes with
their event stores, and the dashboard's fake table for flags): complete at once from the retained
state, live, flags, offline tables, a broker outage with no table missing afterwards, finished
games recorded once (and withdrawn when an undo reopens them), retiring a table."""

from __future__ import annotations

import json
import time

from mqtt_testkit import poll
from tableref.venue.hall import BROKER, TILE
from venue_testkit import exchange, finish


def tiles_by_id(venue) -> dict:  # type: ignore[no-untyped-def]
    return {t["id"]: t for t in venue.hall.tiles()}


def current(venue, table_id: str, version: int) -> bool:  # type: ignore[no-untyped-def]
    tile = venue.hall.tile(table_id)
    return tile is not None and tile.get("version") == version


def test_a_venue_opened_late_is_complete_at_once_then_follows_live(broker_factory, tables, venues) -> None:
    broker = broker_factory()
    t1 = tables.runtime(broker.port, "t1", "Table 1", {"blue": "Alice", "green": "Bob"}, url="http://table-1.local:8080/")
    t2 = tables.runtime(broker.port, "t2", "Table 2")
    t3 = tables.fake(broker.port, "t3")
    for _ in range(2):
        exchange(t1)
    exchange(t2)
    from web.fake_demo import random_legal_move
    import random

    rng = random.Random(3)
    t3.play(random_legal_move(t3, rng))
    poll(lambda: all(rt.devices()["mqtt"]["last_sent_id"] == rt.events().last_id for rt in (t1, t2)), what="the tables published")
    time.sleep(0.3)  # the fake table's publisher too

    started = time.monotonic()
    venue = venues(broker.port)
    poll(lambda: len(venue.hall.tiles()) == 3 and current(venue, "t1", t1.snapshot()["version"])
         and current(venue, "t2", t2.snapshot()["version"]) and current(venue, "t3", t3.snapshot()["version"]),
         what="every table from the retained messages")
    assert time.monotonic() - started < 2.0  # at once: no table has to move first
    tiles = tiles_by_id(venue)
    one = tiles["t1"]
    assert one["name"] == "Table 1" and one["online"] is True and one["game"] == "china"
    assert one["dashboard_url"] == "http://table-1.local:8080/"
    assert one["to_play"] == t1.snapshot()["turn"]["active"] == ["red"] and one["round"] == t1.snapshot()["turn"]["round"]
    assert [(p["player"], p["name"], p["total"]) for p in one["players"]] == [("blue", "Alice", 0), ("green", "Bob", 0), ("red", None, 0)]
    assert one["moves"] == 2 and one["flag"] is None and one["over"] is None
    assert tiles["t2"]["name"] == "Table 2" and tiles["t3"]["name"] == "t3"  # the fake table has no name: its id
    assert [t["name"] for t in venue.hall.tiles()] == ["t3", "Table 1", "Table 2"]  # by name, "Table 2" before "Table 10"

    # live: a move, a flag raised and cleared
    sub = venue.events().subscribe()
    exchange(t1)
    poll(lambda: current(venue, "t1", t1.snapshot()["version"]), what="the move on the tile")
    assert tiles_by_id(venue)["t1"]["to_play"] == ["blue"]
    seen = []
    while (e := sub.get(timeout=0)) is not None:
        seen.append(e)
    assert [e.type for e in seen] == [TILE] and seen[0].data["id"] == "t1"  # one update per change, nothing else
    from web.fake_demo import illegal_move

    t3.play(illegal_move(t3, rng))
    poll(lambda: tiles_by_id(venue)["t3"]["flag"] is not None, what="the flag on the tile")
    flag = tiles_by_id(venue)["t3"]["flag"]
    assert flag["message"]["en"] and flag["message"]["zh"] and flag["rules"]
    t3.take_back()
    poll(lambda: tiles_by_id(venue)["t3"]["flag"] is None, what="the flag cleared")

    # a table switched off: greyed, with the time it was last seen
    before = time.time()
    t2.stop()
    poll(lambda: tiles_by_id(venue)["t2"]["online"] is False, what="the table offline")
    assert before - 1 <= tiles_by_id(venue)["t2"]["last_seen"] <= time.time()
    # and a screen opened after that still shows it, offline, with the time of its last move
    late = venues(broker.port, data="venue-late")
    poll(lambda: len(late.hall.tiles()) == 3 and late.hall.tile("t2")["online"] is False, what="the offline table, retained")
    assert late.hall.tile("t2")["last_seen"] is not None
    sub.close()


def test_broker_outage_shows_and_recovers_with_no_table_missing(broker_factory, tables, venues) -> None:
    broker = broker_factory()  # no persistence: a restarted broker has lost every retained message
    runtimes = [tables.runtime(broker.port, f"t{i}", f"Table {i}") for i in (1, 2, 3)]
    fake = tables.fake(broker.port, "t4")
    doomed = tables.runtime(broker.port, "t5", "Table 5")
    venue = venues(broker.port, silent_after=1.5)
    poll(lambda: len(venue.hall.tiles()) == 5 and all(t["online"] for t in venue.hall.tiles()), what="five tables online")
    sub = venue.events().subscribe()

    broker.kill()
    poll(lambda: venue.hall.broker()["state"] == "down", what="the outage on the venue")
    down = venue.hall.broker()
    assert down["since"] and down["last_error"]
    events = []
    while (e := sub.get(timeout=0.2)) is not None:
        events.append(e)
    assert any(e.type == BROKER and e.data["state"] == "down" for e in events)  # the page is told
    assert len(venue.hall.tiles()) == 5  # nothing dropped: the last known state stays
    doomed.stop()  # a table that dies during the outage: its "offline" never reaches a broker
    for rt in runtimes:  # the tables go on during the outage
        exchange(rt)
        exchange(rt)
    from web.fake_demo import random_legal_move
    import random

    fake.play(random_legal_move(fake, random.Random(1)))

    broker.start()
    poll(lambda: venue.hall.broker()["state"] == "connected", 10.0, what="the venue reconnected")
    poll(lambda: all(current(venue, f"t{i}", rt.snapshot()["version"]) for i, rt in enumerate(runtimes, 1))
         and current(venue, "t4", fake.snapshot()["version"]) and all(venue.hall.tile(f"t{i}")["online"] for i in (1, 2, 3, 4)),
         10.0, what="every table back and up to date")
    assert sorted(t["id"] for t in venue.hall.tiles()) == ["t1", "t2", "t3", "t4", "t5"]
    assert all(t["moves"] == 2 for t in venue.hall.tiles() if t["id"] in ("t1", "t2", "t3"))
    # the table that died meanwhile cannot say so: not heard of since the broker came back, it is shown as unknown
    poll(lambda: venue.hall.tile("t5")["online"] is None, 5.0, what="the silent table marked unknown")
    assert venue.hall.tile("t5")["last_seen"] is not None
    assert all(venue.hall.tile(f"t{i}")["online"] is True for i in (1, 2, 3, 4))
    status = venue.status()["link"]
    assert status["outages"] == 1 and status["connections"] == 2
    sub.close()


def test_finished_games_are_recorded_once_and_withdrawn_when_reopened(broker_factory, tables, venues) -> None:
    broker = broker_factory()
    rt = tables.runtime(broker.port, "t1", "Table 1", {"blue": "Alice", "green": "bob"})
    venue = venues(broker.port)
    finish(rt)
    poll(lambda: venue.results.count() == 1, what="the finished game recorded")
    (game,) = venue.results.games()
    assert game["table"] == "Table 1" and game["game"] == "china" and game["game_no"] == 1 and game["source"] == "mqtt"
    seats = {p["colour"]: p for p in game["players"]}
    assert seats["blue"]["player"] == "Alice" and seats["green"]["player"] == "bob" and seats["red"]["player"] is None
    winners = set(rt.snapshot()["outcome"]["winners"])
    assert {c for c, p in seats.items() if p["winner"]} == winners and all(p["rank"] == 1 for p in seats.values() if p["winner"])
    rows = {r["name"]: r for r in venue.results.standings()}
    assert set(rows) == {"Alice", "bob"} and rows["Alice"]["games"] == 1  # the unnamed seat is nobody's result

    # the final state again (a restarted venue, the retained message) changes nothing
    again = venues(broker.port)
    poll(lambda: again.hall.tile("t1") is not None and again.hall.tile("t1")["over"] is not None, what="the second venue")
    time.sleep(0.2)
    assert again.results.count() == 1

    # the same game imported from the table's exported record is recognised, not counted twice
    out = venue.import_record(rt.export_record(), table="Table 1", names={"blue": "Alice"})
    assert out["duplicate"] is True and venue.results.count() == 1

    # an undo after the end reopens the game: the result is withdrawn until it ends again
    assert rt.undo("admin", True).ok
    poll(lambda: venue.results.count() == 0, what="the result withdrawn")
    exchange(rt)
    poll(lambda: venue.results.count() == 1, what="recorded again at the new end")


def test_retiring_a_table_removes_it_from_the_broker_and_home_assistant(broker_factory, tables, venues, listeners) -> None:
    broker = broker_factory()
    t1 = tables.runtime(broker.port, "t1", "Table 1")
    t2 = tables.runtime(broker.port, "t2", "Table 2")
    venue = venues(broker.port, retire_wait=0.5)
    ha = listeners(broker.port, "homeassistant/#", name="ha")
    poll(lambda: len(venue.hall.tiles()) == 2, what="two tables")
    poll(lambda: len({t for t, p, r in ha.messages if p}) == 16, what="both tables' entities")
    from tableref.venue.results import ResultsError

    try:
        venue.retire("t1")
        raise AssertionError("an online table was retired")
    except ResultsError as exc:
        assert exc.code == "conflict" and "online" in exc.message.en
    t1.stop()
    poll(lambda: venue.hall.tile("t1")["online"] is False, what="t1 offline")
    out = venue.retire("t1")
    assert out["entities_removed"] == 8 and venue.hall.tile("t1") is None
    fresh = listeners(broker.port, "#", name="after")
    poll(lambda: any(t.startswith("tableref/t2/") for t, p, r in fresh.messages), what="the retained messages")
    time.sleep(0.3)
    left = {t for t, p, r in fresh.messages if p}
    assert not {t for t in left if "/t1/" in t or "tableref_t1" in t}  # nothing of t1 is left on the broker
    assert len({t for t in left if "tableref_t2" in t}) == 8 and "tableref/t2/state" in left
    assert [t["id"] for t in venue.hall.tiles()] == ["t2"]
    assert t2.devices()["mqtt"]["state"] == "connected"


def test_bad_messages_are_counted_not_fatal(broker_factory, venues, listeners) -> None:
    broker = broker_factory()
    venue = venues(broker.port)
    poll(lambda: venue.hall.broker()["state"] == "connected", what="connected")
    pub = listeners(broker.port, "nothing", name="pub")
    pub.client.publish("tableref/x1/state", b"{not json", qos=1).wait_for_publish(2)
    pub.client.publish("tableref/x1/state", json.dumps([1, 2]), qos=1).wait_for_publish(2)
    pub.client.publish("tableref/x1/status", b"online", qos=1).wait_for_publish(2)
    poll(lambda: venue.hall.messages >= 3, what="the messages handled")
    assert venue.hall.bad_messages == 2 and venue.hall.tile("x1")["online"] is True and venue.hall.tile("x1")["has_state"] is False
