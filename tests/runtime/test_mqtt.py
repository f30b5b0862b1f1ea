"""The MQTT publisher against a real mosquitto broker (a subprocess on a free port): events in
order, the retained state for a late subscriber, the broker killed mid-game and restarted (the
referee goes on, the publisher reconnects and catches up, the device status shows the outage),
and the [mqtt] configuration checks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from mqtt_testkit import broker_factory, free_port, listeners, poll  # noqa: F401  (fixtures)
from tableref.config import ConfigError, config_from_dict
from tableref.mqtt import MqttPublisher, MqttSettings
from tableref.runtime import Runtime


PLAYERS = ["blue", "green", "red"]
SETUP = {"players": PLAYERS, "board": "china-a"}


def table(tmp_path: Path, settings: MqttSettings) -> tuple[Runtime, MqttPublisher]:
    rt = Runtime(store_path=str(tmp_path / "table.sqlite"), game_id="china", setup=SETUP)
    pub = MqttPublisher(settings, order_wait=1.0)
    rt.add_device(pub)
    return rt, pub


def fast(port: int, **kw: Any) -> MqttSettings:
    return MqttSettings(host="127.0.0.1", port=port, table_id="t1", reconnect_min=0.05, reconnect_max=0.4, **kw)


def exchange(rt: Runtime, player: str) -> None:
    """A declared move (China's card exchange): a real move through the referee and the store."""
    res = rt.declare({"type": "exchange", "player": player}, "test")
    assert res.ok, res.message.en


@pytest.fixture
def stopper() -> Iterator[list[Runtime]]:
    runtimes: list[Runtime] = []
    yield runtimes
    for rt in runtimes:
        rt.stop()


def test_events_in_order_and_the_state_retained_for_a_late_subscriber(tmp_path: Path, broker_factory, listeners, stopper) -> None:
    broker = broker_factory()
    live = listeners(broker.port, "tableref/t1/#")
    rt, pub = table(tmp_path, fast(broker.port))
    stopper.append(rt.start())
    for player in PLAYERS:
        exchange(rt, player)
    bus_ids = [e.id for e in rt.events().since(0)]
    assert len(bus_ids) >= 8  # new game + state, then a move and a state per exchange

    poll(lambda: [e["id"] for e in live.json("tableref/t1/events")] == bus_ids, what="every event, in order")
    events = live.json("tableref/t1/events")
    assert [e["type"] for e in events][:2] == ["new_game", "state"]
    held = {e.id: e for e in rt.events().since(0)}
    for e in events:  # the same JSON the dashboard's SSE serves
        assert e == json.loads(json.dumps(held[e["id"]].to_json()))
    moves = [e for e in events if e["type"] == "move_accepted"]
    assert [m["data"]["player"] for m in moves] == PLAYERS
    assert all(m["data"]["description"]["en"] and m["data"]["description"]["zh"] for m in moves)  # bilingual
    poll(lambda: any(s["moves"] == 3 for s in live.json("tableref/t1/state")), what="state after the last move")
    assert live.on("tableref/t1/status")[-1][0] == b"online"

    late = listeners(broker.port, "tableref/t1/+")  # a scoreboard switched on after the moves
    poll(lambda: late.on("tableref/t1/state") and late.on("tableref/t1/status"), what="retained messages")
    (state, retained), = late.on("tableref/t1/state")
    snap = json.loads(state)
    assert retained and snap["moves"] == 3 and snap["event_id"] == rt.snapshot()["event_id"]
    assert snap["scores"] == rt.snapshot()["scores"] and snap["game"] == "china"
    assert late.on("tableref/t1/status") == [(b"online", True)]
    assert late.on("tableref/t1/events") == []  # events are not retained

    status = rt.devices()["mqtt"]
    assert status["state"] == "connected" and status["last_sent_id"] == bus_ids[-1]
    assert status["events_sent"] == len(bus_ids) and status["outages"] == 0 and status["skipped"] == 0

    rt.stop()  # a clean stop says offline (retained)
    assert rt.devices()["mqtt"]["state"] == "stopped"
    after = listeners(broker.port, "tableref/t1/status")
    poll(lambda: after.on("tableref/t1/status") == [(b"offline", True)], what="retained offline after a clean stop")


def test_broker_killed_mid_game_then_back(tmp_path: Path, broker_factory, listeners, stopper) -> None:
    board_user = ("board", "board-pw")
    broker = broker_factory(users={"board": "board-pw", "table1": "table-pw"})
    before = listeners(broker.port, "tableref/t1/#", user=board_user)
    rt, pub = table(tmp_path, fast(broker.port, username="table1", password="table-pw"))
    stopper.append(rt.start())
    exchange(rt, "blue")
    poll(lambda: any(s["moves"] == 1 for s in before.json("tableref/t1/state")), what="first move published")
    sent_before = rt.devices()["mqtt"]["last_sent_id"]

    broker.kill()
    poll(lambda: rt.devices()["mqtt"]["state"] == "down", what="the outage seen")
    exchange(rt, "green")  # the referee does not wait for the broker
    exchange(rt, "red")
    assert rt.snapshot()["moves"] == 3
    down = rt.devices()["mqtt"]
    assert down["outages"] == 1 and down["down_since"] and "connection lost" in down["last_error"]
    assert down["last_sent_id"] == sent_before  # nothing was handed over while the broker was away
    missed = [e.id for e in rt.events().since(sent_before)]
    assert len(missed) >= 4

    # The broker comes back, at first refusing the table's account: a scoreboard connects first,
    # so it sees everything the publisher sends once it is let in.
    broker.set_users({"board": "board-pw"})
    broker.start()
    after = listeners(broker.port, "tableref/t1/#", user=board_user)
    poll(lambda: "Not authorized" in (rt.devices()["mqtt"]["last_error"] or ""), what="the refusal in the status")
    assert rt.devices()["mqtt"]["state"] == "down"
    broker.set_users({"board": "board-pw", "table1": "table-pw"})

    poll(lambda: rt.devices()["mqtt"]["state"] == "connected", what="reconnected")
    # at-least-once: an event whose PUBACK the killed broker never sent is delivered again first
    # (documented; a subscriber de-duplicates by id); everything missed follows, in order
    poll(lambda: [i for i in (e["id"] for e in after.json("tableref/t1/events")) if i > sent_before] == missed,
         what="the missed events, in order")
    got = [e["id"] for e in after.json("tableref/t1/events")]
    assert got == sorted(got) and all(i > sent_before - 2 for i in got), got
    poll(lambda: any(s["moves"] == 3 for s in after.json("tableref/t1/state")), what="the state caught up")
    status = rt.devices()["mqtt"]
    assert status["outages"] == 1 and status["republished"] == len(missed) and status["skipped"] == 0
    assert status["connections"] == 2 and status["last_outage_seconds"] > 0 and status["down_since"] is None
    assert status["last_sent_id"] == missed[-1]

    late = listeners(broker.port, "tableref/t1/+", user=board_user)  # the broker lost its retained messages: put back
    poll(lambda: late.on("tableref/t1/state") and late.on("tableref/t1/status"), what="retained state after the restart")
    assert json.loads(late.on("tableref/t1/state")[-1][0])["moves"] == 3
    assert late.on("tableref/t1/status") == [(b"online", True)]

    exchange(rt, "blue")  # and live publishing goes on
    poll(lambda: any(s["moves"] == 4 for s in after.json("tableref/t1/state")), what="the next move published")


def test_broker_down_at_start_does_not_stop_the_table(tmp_path: Path, broker_factory, listeners, stopper) -> None:
    port = free_port()  # nobody listens here yet
    rt, pub = table(tmp_path, fast(port))
    stopper.append(rt.start())
    exchange(rt, "blue")
    poll(lambda: rt.devices()["mqtt"]["state"] == "down", what="connection failure reported")
    status = rt.devices()["mqtt"]
    assert status["events_sent"] == 0 and "cannot connect" in status["last_error"] and status["down_since"]
    exchange(rt, "green")

    broker_factory(port=port)  # the broker turns up later
    poll(lambda: rt.devices()["mqtt"]["last_sent_id"] == rt.events().last_id, what="everything sent once it is there")
    status = rt.devices()["mqtt"]
    assert status["state"] == "connected" and status["republished"] == status["events_sent"] == len(rt.events().since(0))
    late = listeners(port, "tableref/t1/state")
    poll(lambda: late.on("tableref/t1/state"), what="retained state")
    assert json.loads(late.on("tableref/t1/state")[-1][0])["moves"] == 2


def test_events_no_longer_held_are_counted_not_invented(tmp_path: Path, broker_factory, listeners, stopper) -> None:
    broker = broker_factory()
    rt, pub = table(tmp_path, fast(broker.port))
    stopper.append(rt.start())
    bus = rt.events()
    poll(lambda: rt.devices()["mqtt"]["state"] == "connected" and rt.devices()["mqtt"]["last_sent_id"] == bus.last_id,
         what="start-up events sent")
    sent_before = {e.id for e in bus.since(0)}
    broker.kill()
    poll(lambda: rt.devices()["mqtt"]["state"] == "down", what="the outage seen")
    first_missed = bus.last_id + 1
    exchange(rt, "blue")
    for n in range(2100):  # more than the bus's replay log keeps (2000): unknown tags seen by a reader
        rt.unknown_tag(f"uid-{n}", "test")
    exchange(rt, "green")
    held = [e.id for e in bus.since(0)]
    assert held[0] > first_missed and len(held) == 2000
    broker.start()
    live = listeners(broker.port, "tableref/t1/events")
    poll(lambda: rt.devices()["mqtt"]["last_sent_id"] == bus.last_id, 10.0, what="caught up")
    status = rt.devices()["mqtt"]
    assert status["state"] == "connected"
    assert status["skipped"] == held[0] - first_missed  # said, not invented
    assert status["republished"] == len(held)
    assert status["resubscribed"] >= 1  # its own queue overflowed too, and it read the replay log instead
    poll(lambda: len(live.on("tableref/t1/events")) >= 1 and live.json("tableref/t1/events")[-1]["id"] == bus.last_id,
         10.0, what="the last event delivered")
    got = [e["id"] for e in live.json("tableref/t1/events")]
    skipped = set(range(first_missed, held[0]))
    # at-least-once: a start-up event whose PUBACK the killed broker never sent is delivered again
    # on reconnect (documented); the events the bus no longer held are never sent
    assert got == sorted(got) and not set(got) & skipped and set(got) <= set(held) | sent_before


@pytest.mark.parametrize("section, words", [
    ({"port": 1883}, ["[mqtt] host", "required"]),
    ({"host": "broker", "port": 0}, ["[mqtt] port"]),
    ({"host": "broker", "port": "1883"}, ["[mqtt] port"]),
    ({"host": "broker", "topic_prefix": "venue/+"}, ["[mqtt] topic_prefix", "wildcard"]),
    ({"host": "broker", "topic_prefix": "/venue"}, ["[mqtt] topic_prefix", "empty level"]),
    ({"host": "broker", "table_id": "a/b"}, ["[mqtt] table_id", "one topic level"]),
    ({"host": "broker", "table_id": "#"}, ["[mqtt] table_id"]),
    ({"host": "broker", "password": "x"}, ["[mqtt] password", "username"]),
    ({"host": "broker", "ca_file": "ca.pem"}, ["[mqtt] ca_file", "tls"]),
    ({"host": "broker", "tls": True, "ca_file": "missing.pem"}, ["[mqtt] ca_file", "does not exist"]),
    ({"host": "broker", "qos": 2}, ["[mqtt]", "qos"]),
    ({"host": "broker", "discovery_prefix": "home/#"}, ["[mqtt] discovery_prefix", "wildcard"]),
    ({"host": "broker", "dashboard_url": "table-1:8080"}, ["[mqtt]", "dashboard_url"]),
])
def test_bad_mqtt_configuration_is_one_clear_line(section: dict, words: list[str]) -> None:
    doc = {"game": {"id": "china", "players": PLAYERS, "board": "china-a"}, "mqtt": section}
    with pytest.raises(ConfigError) as info:
        config_from_dict(doc, "t.toml")
    text = str(info.value)
    assert text.startswith("t.toml: ") and "\n" not in text
    for w in words:
        assert w in text, text


def test_mqtt_configuration_defaults() -> None:
    base = {"game": {"id": "china", "players": PLAYERS, "board": "china-a"}}
    assert config_from_dict(base).mqtt is None  # off when absent
    assert config_from_dict({**base, "mqtt": {"host": "b", "enabled": False}}).mqtt is None
    m = config_from_dict({**base, "table": {"name": "Table 7 (hall)"}, "mqtt": {"host": "broker.local"}}).mqtt
    assert m is not None and (m.host, m.port, m.topic_prefix, m.table_id, m.tls) == ("broker.local", 1883, "tableref", "table-7-hall", False)
    assert m.base == "tableref/table-7-hall"
    assert m.discovery and m.discovery_prefix == "homeassistant" and m.dashboard_url is None
    m = config_from_dict({**base, "mqtt": {"host": "b", "discovery": False, "dashboard_url": "http://t7.local:8080/"}}).mqtt
    assert m is not None and not m.discovery and m.dashboard_url == "http://t7.local:8080/"
    m = config_from_dict({**base, "mqtt": {"host": "b", "port": 8883, "topic_prefix": "venue/hall-a", "table_id": "t3",
                                           "username": "t3", "password": "pw", "tls": True}}).mqtt
    assert m is not None and m.base == "venue/hall-a/t3" and m.username == "t3" and m.tls


def test_config_check_and_build_runtime_with_mqtt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tableref.cli import main
    from tableref.runtime_config import build_runtime

    conf = tmp_path / "table.toml"
    conf.write_text('[table]\nname = "Table 2"\n[game]\nid = "china"\nplayers = ["blue", "green", "red"]\n'
                    '[gpio]\nenabled = false\n[mqtt]\nhost = "127.0.0.1"\nport = 1884\n')
    assert main(["config", "check", str(conf)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mqtt"] == {"broker": "127.0.0.1:1884", "topics": "tableref/table-2/{events,state,status,info}", "tls": False,
                           "username": None, "home_assistant": "homeassistant"}
    conf.write_text(conf.read_text() + 'topic_prefix = "a/#"\n')
    assert main(["config", "check", str(conf)]) == 2
    err = capsys.readouterr().err
    assert "[mqtt] topic_prefix" in err and len(err.strip().splitlines()) == 1

    cfg = config_from_dict({"table": {"name": "Table 2", "data_dir": str(tmp_path)}, "game": {"id": "china", "players": PLAYERS},
                            "gpio": {"enabled": False}, "mqtt": {"host": "127.0.0.1"}}, str(conf))
    rt = build_runtime(cfg)
    assert isinstance(rt.devices_["mqtt"], MqttPublisher) and rt.devices_["mqtt"].topic_state == "tableref/table-2/state"
    assert rt.devices()["mqtt"]["state"] == "stopped"  # not started yet


def test_the_commented_example_section_is_valid(tmp_path: Path) -> None:
    from tableref.config import load_config

    example = Path(__file__).resolve().parents[2] / "examples" / "table.toml"
    text = example.read_text(encoding="utf-8")
    head, block = text.split("# [mqtt]", 1)
    uncommented = "[mqtt]" + "\n".join(line[2:] if line.startswith("# ") else line for line in block.splitlines())
    conf = tmp_path / "table.toml"
    conf.write_text(head + uncommented + "\n", encoding="utf-8")
    for name in ("table-tags.json", "table-wiring.json"):
        (tmp_path / name).write_text((example.parent / name).read_text(encoding="utf-8"), encoding="utf-8")
    m = load_config(str(conf)).mqtt
    assert m is not None and m.base == "tableref/table-1" and m.username == "table1" and not m.tls


def test_the_mqtt_package_depends_on_neither_the_runtime_nor_the_configuration() -> None:
    """The venue reuses tableref.mqtt: importing it must not pull in the table's runtime, its
    configuration loader or its devices (they used to import each other in a loop)."""
    code = ("import sys, tableref.mqtt, tableref.mqtt.publisher, tableref.mqtt.discovery\n"
            "bad = sorted(m for m in sys.modules if m in ('tableref.runtime', 'tableref.config', 'tableref.devices', "
            "'tableref.table', 'web') or m.startswith('paho'))\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""  # paho too: imported only when a link starts
    code = "import tableref.runtime, tableref.config, tableref.devices, tableref.mqtt; print('ok')"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "ok"


def _render(template: str, state: dict[str, Any]) -> str:
    """A discovery value template as Home Assistant renders it (a sandboxed Jinja environment)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment().from_string(template).render(value_json=state).strip()


def test_home_assistant_discovery_announces_updates_and_removes(tmp_path: Path, broker_factory, listeners, stopper) -> None:
    from tableref.table import TableSettings

    broker = broker_factory()
    ha = listeners(broker.port, "homeassistant/#", name="home-assistant")
    settings = TableSettings(name="Table 1", player_names=(("blue", "Alice"), ("green", "Bob")))
    rt = Runtime(store_path=str(tmp_path / "table.sqlite"), game_id="china", setup=SETUP, settings=settings)
    rt.add_device(MqttPublisher(fast(broker.port), order_wait=1.0, sweep_delay=0.3))
    stopper.append(rt.start())
    node = "homeassistant/{}/tableref_t1/{}/config"
    expected = {node.format("sensor", o) for o in ("game", "to_play", "leader", "score_blue", "score_green", "score_red")}
    expected |= {node.format("binary_sensor", o) for o in ("flag", "online")}
    poll(lambda: {t for t, p, r in ha.messages if p} >= expected, what="every entity announced")
    configs = {t: json.loads(p) for t, p, r in ha.messages if p}
    assert set(configs) == expected
    for topic, cfg in configs.items():
        assert cfg["device"]["identifiers"] == ["tableref_t1"] and cfg["device"]["name"] == "Table 1"
        assert cfg["unique_id"].startswith("tableref_t1_")
        if topic.endswith("/online/config"):
            assert cfg["state_topic"] == "tableref/t1/status" and "availability_topic" not in cfg
        else:
            assert cfg["state_topic"] == "tableref/t1/state" and cfg["availability_topic"] == "tableref/t1/status"
    assert configs[node.format("sensor", "score_blue")]["name"] == "Score Alice (blue)"
    assert configs[node.format("sensor", "score_red")]["name"] == "Score red"

    exchange(rt, "blue")
    poll(lambda: rt.devices()["mqtt"]["states_sent"] >= 2, what="the state after the move")
    late = listeners(broker.port, "tableref/t1/state", name="ha-state")
    # the publisher may have sent the move's state before the broker retained it: the late listener can get the
    # state before the move first (CI saw it once), then the move's, as a subscriber
    after_move = lambda: [json.loads(p) for p, r in late.on("tableref/t1/state") if json.loads(p)["moves"] == 1]  # noqa: E731
    poll(after_move, what="the state after the move")
    state = after_move()[-1]
    template = lambda obj: configs[node.format("sensor", obj)]["value_template"]  # noqa: E731
    assert _render(template("game"), state) == "Der Kaiser von China (China)"
    assert _render(template("to_play"), state) == "Bob"  # green, by name
    assert _render(template("leader"), state) == "none"  # everyone still on 0
    ahead = {"players": [{"player": "blue", "total": 3}, {"player": "green", "total": 5}, {"player": "red", "total": 5}]}
    assert _render(template("leader"), dict(state, scores=ahead)) == "Bob"  # the first in seat order on a tie
    assert _render(template("score_green"), state) == str(next(p["total"] for p in state["scores"]["players"] if p["player"] == "green"))
    assert _render(configs[node.format("binary_sensor", "flag")]["value_template"], state) == "OFF"
    assert _render(configs[node.format("binary_sensor", "flag")]["value_template"], dict(state, flag={"spaces": []})) == "ON"
    assert _render(template("score_blue"), {"scores": {"players": []}}) == "None"  # unknown, not an error

    # a new game with other players: the new player's score appears, the one who left is removed
    res = rt.new_game({"game": "china", "players": ["blue", "green", "yellow"], "board": "china-a"}, "test", authorised=True)
    assert res.ok, res.message.en
    removed, added = node.format("sensor", "score_red"), node.format("sensor", "score_yellow")
    poll(lambda: (removed, b"", True) in [(t, p, True) for t, p, r in ha.messages] and any(t == added for t, p, r in ha.messages),
         what="score_red removed and score_yellow announced")
    fresh = listeners(broker.port, "homeassistant/#", name="ha-after")
    poll(lambda: len(fresh.messages) >= len(expected), what="the retained configs")
    assert {t for t, p, r in fresh.messages if p} == (expected - {removed}) | {added}


def test_stale_entities_are_swept_after_a_restart_and_the_info_names_the_dashboard(tmp_path: Path, broker_factory, listeners,
                                                                                    stopper) -> None:
    broker = broker_factory()
    stale = "homeassistant/sensor/tableref_t1/score_violet/config"  # announced by a game before a restart
    seed = listeners(broker.port, "nothing/#", name="seed")
    seed.client.publish(stale, json.dumps({"name": "Score violet"}), qos=1, retain=True).wait_for_publish(2)
    ha = listeners(broker.port, "homeassistant/sensor/tableref_t1/+/config", name="ha")
    poll(lambda: ha.on(stale), what="the stale config, retained")
    rt, pub = table(tmp_path, fast(broker.port))
    pub.sweep_delay = 0.3
    stopper.append(rt.start())
    poll(lambda: ha.on(stale)[-1] == (b"", False), what="the stale entity removed")
    check = listeners(broker.port, "homeassistant/#", name="ha-check")
    poll(lambda: len(check.messages) >= 7, what="retained configs")
    assert stale not in {t for t, p, r in check.messages}

    info = listeners(broker.port, "tableref/t1/info")
    poll(lambda: info.on("tableref/t1/info"), what="the retained info")
    doc = json.loads(info.on("tableref/t1/info")[-1][0])
    assert doc["table_id"] == "t1" and doc["dashboard_url"] is None and doc["software"].startswith("tableref ")
    pub.set_dashboard_url("http://table-1.local:8080/")
    poll(lambda: any(json.loads(p).get("dashboard_url") == "http://table-1.local:8080/" for p, r in info.on("tableref/t1/info")),
         what="the dashboard's address published")
    assert rt.devices()["mqtt"]["dashboard_url"] == "http://table-1.local:8080/"
