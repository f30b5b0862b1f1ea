"""Home Assistant MQTT discovery: what a table announces so that a venue running Home Assistant
sees it with no configuration (docs/runtime.md "Home Assistant").

One retained config message per entity under ``<discovery prefix>/<component>/<node>/<object>/config``:
sensors *game*, *to play*, *leader* and one *score* per player of the current game, binary sensors
*flag* (a problem while a flag is open) and *online* (connectivity). Every entity reads the
table's own retained topics (``state`` through a template, ``status`` for availability), so the
table publishes nothing extra while it plays. An empty retained payload on a config topic removes
the entity: done for the scores of players who left with a new game, and for everything when a
table is retired. Pure: builds topics and payloads, publishes nothing.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from tableref.mqtt.topics import OFFLINE, ONLINE, TableTopics

DEFAULT_PREFIX = "homeassistant"

_NAMES = "{% set n = value_json.player_names or {} %}"
GAME_TEMPLATE = "{% if value_json.game_name %}{{ value_json.game_name.en }}{% else %}{{ value_json.game or 'none' }}{% endif %}"
TO_PLAY_TEMPLATE = (_NAMES + "{% set a = (value_json.turn or {}).active or [] %}{% set ns = namespace(out=[]) %}"
                    "{% for p in a %}{% set ns.out = ns.out + [n[p] if p in n else p] %}{% endfor %}"
                    "{{ ns.out | join(', ') if ns.out else 'none' }}")
LEADER_TEMPLATE = (_NAMES + "{% set ps = (value_json.scores or {}).players or [] %}"  # nobody leads while all are level
                   "{% if ps %}{% set top = ps | sort(attribute='total', reverse=true) | first %}"
                   "{% set low = ps | map(attribute='total') | min %}"
                   "{% if top.total > low %}{{ n[top.player] if top.player in n else top.player }}{% else %}none{% endif %}"
                   "{% else %}none{% endif %}")
FLAG_TEMPLATE = "{{ 'ON' if value_json.flag else 'OFF' }}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]+", "_", text).strip("_") or "x"


def node_id(topics: TableTopics) -> str:
    """The table's node id in discovery topics (letters, digits, ``_`` and ``-`` only)."""
    if topics.prefix == "tableref":
        return "tableref_" + _slug(topics.table_id)
    return "tableref_" + _slug(f"{topics.prefix}_{topics.table_id}")


def score_template(player: str) -> str:
    """One player's total, or ``None`` (Home Assistant: unknown) when the game has no such player."""
    return ("{% set p = ((value_json.scores or {}).players or []) | selectattr('player', 'equalto', " + repr(player)
            + ") | list %}{{ p[0].total if p else 'None' }}")


def config_topic(discovery_prefix: str, component: str, node: str, obj: str) -> str:
    return f"{discovery_prefix}/{component}/{node}/{obj}/config"


def config_filter(discovery_prefix: str, topics: TableTopics) -> str:
    """A subscription matching every config this table may have announced (to retire it)."""
    return f"{discovery_prefix}/+/{node_id(topics)}/+/config"


def discovery_configs(topics: TableTopics, *, discovery_prefix: str = DEFAULT_PREFIX, table_name: str,
                      players: Sequence[str], player_names: Mapping[str, str] | None = None,
                      dashboard_url: str | None = None, version: str = "") -> dict[str, dict[str, Any]]:
    """Every config message (topic -> payload) for a table playing with ``players``."""
    node = node_id(topics)
    names = dict(player_names or {})
    device: dict[str, Any] = {"identifiers": [node], "name": table_name, "manufacturer": "tableref",
                              "model": "tableref referee"}
    if version:
        device["sw_version"] = version
    if dashboard_url:
        device["configuration_url"] = dashboard_url
    available = {"availability_topic": topics.status, "payload_available": ONLINE, "payload_not_available": OFFLINE}
    common = {"device": device, "origin": {"name": "tableref", "sw_version": version or "unknown"}}

    def entity(obj: str, name: str, **extra: Any) -> dict[str, Any]:
        return {"name": name, "unique_id": f"{node}_{obj}", "object_id": f"{node}_{obj}", **common, **extra}

    out: dict[str, dict[str, Any]] = {
        config_topic(discovery_prefix, "sensor", node, "game"): entity(
            "game", "Game", state_topic=topics.state, value_template=GAME_TEMPLATE, icon="mdi:dice-multiple", **available),
        config_topic(discovery_prefix, "sensor", node, "to_play"): entity(
            "to_play", "To play", state_topic=topics.state, value_template=TO_PLAY_TEMPLATE, icon="mdi:account-arrow-right",
            **available),
        config_topic(discovery_prefix, "sensor", node, "leader"): entity(
            "leader", "Leader", state_topic=topics.state, value_template=LEADER_TEMPLATE, icon="mdi:trophy", **available),
        config_topic(discovery_prefix, "binary_sensor", node, "flag"): entity(
            "flag", "Flag", state_topic=topics.state, value_template=FLAG_TEMPLATE, device_class="problem", **available),
        config_topic(discovery_prefix, "binary_sensor", node, "online"): entity(
            "online", "Online", state_topic=topics.status, payload_on=ONLINE, payload_off=OFFLINE,
            device_class="connectivity"),
    }
    for player in players:
        obj = "score_" + _slug(player)
        label = names.get(player, player)
        name = f"Score {player}" if label == player else f"Score {label} ({player})"
        out[config_topic(discovery_prefix, "sensor", node, obj)] = entity(
            obj, name, state_topic=topics.state, value_template=score_template(player), unit_of_measurement="points",
            state_class="measurement", icon="mdi:counter", **available)
    return out
