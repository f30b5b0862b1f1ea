"""Helpers for the venue tests (a module with a unique name, imported directly by the tests):
tables publishing to a real broker, and moves that end a game quickly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tableref.mqtt import MqttPublisher, MqttSettings
from tableref.runtime import Runtime
from tableref.table import TableSettings

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}
FAST = {"reconnect_min": 0.05, "reconnect_max": 0.4}


def table_settings(port: int, table_id: str, **kw: Any) -> MqttSettings:
    return MqttSettings(host="127.0.0.1", port=port, table_id=table_id, **FAST, **kw)


class Tables:
    """Tables made by a test, stopped after it (also when it failed)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.runtimes: list[Runtime] = []
        self.fakes: list[tuple[Any, MqttPublisher]] = []

    def runtime(self, port: int, table_id: str, name: str, names: dict[str, str] | None = None,
                url: str | None = None) -> Runtime:
        """A real runtime (event store, referee thread) publishing to the broker."""
        folder = self.tmp / table_id
        folder.mkdir(exist_ok=True)
        settings = TableSettings(name=name, player_names=tuple(sorted((names or {}).items())))
        rt = Runtime(store_path=str(folder / "table.sqlite"), game_id="china", setup=SETUP, settings=settings)
        pub = MqttPublisher(table_settings(port, table_id, dashboard_url=url), order_wait=0.5)
        rt.add_device(pub)
        self.runtimes.append(rt.start())
        return rt

    def fake(self, port: int, table_id: str) -> Any:
        """The dashboard's fake table (a real China engine; flags on illegal moves) publishing."""
        from web.fake import FakeTableService

        service = FakeTableService(setup=SETUP)
        pub = MqttPublisher(table_settings(port, table_id), order_wait=0.5)
        pub.start(service)
        self.fakes.append((service, pub))
        return service

    def close(self) -> None:
        for rt in self.runtimes:
            rt.stop()
        for _, pub in self.fakes:
            pub.close()


def exchange(rt: Runtime, player: str | None = None) -> None:
    """A declared move (China's card exchange) by the player to play."""
    player = player or rt.snapshot()["turn"]["active"][0]
    res = rt.declare({"type": "exchange", "player": player}, "test")
    assert res.ok, res.message.en


def finish(rt: Runtime) -> None:
    """End the game at once: the pile runs out, then each player exchanges (China's end)."""
    assert rt.declare({"type": "pile_exhausted"}, "test").ok
    while rt.snapshot()["outcome"] is None:
        exchange(rt)
