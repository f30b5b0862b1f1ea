"""Simulated tables for the venue: N tables, each a real ``MqttPublisher`` on the dashboard's fake
table (``web.fake``: a real rules engine), playing a legal China move every ``interval`` seconds.
For the venue's scale bench and test, and to see the venue page without a hall full of Pis:

    python -m tableref.venue.simulate --broker 127.0.0.1:1883 --tables 12 --interval 2

With ``--log FILE`` every move is written as one JSON line ``{"table", "version", "at"}`` (``at``:
the wall-clock time the move event was published on the table's bus) -- what the bench measures
the venue page's latency from.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections import defaultdict
from typing import IO, Any

from tableref.mqtt.publisher import MqttPublisher, MqttSettings
from tableref.service import MOVE_ACCEPTED

SETUP = {"players": ["blue", "green", "red", "yellow"], "board": "china-a"}
NAMES = ["Ann", "Bo", "Chen", "Dana", "Eli", "Fang", "Gus", "Hui", "Ivo", "Jia", "Kai", "Lin"]


# Injected into the venue page (Playwright's add_init_script) by the bench and the scale test: the
# wall-clock time each tile's data-version is set, which venue.js does after the tile's content.
DOM_VERSION_LOG = """
window.__venueLog = [];
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver((records) => {
    const t = performance.timeOrigin + performance.now();
    for (const r of records) {
      if (r.attributeName === "data-version" && r.target.dataset.version !== "")
        window.__venueLog.push([r.target.dataset.table, Number(r.target.dataset.version), t]);
    }
  }).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ["data-version"] });
});
"""


def page_latencies(moves: list[dict[str, Any]], dom: list[list[Any]], since: float) -> tuple[list[float], int]:
    """Milliseconds from each move (published at or after ``since``) to the first time the page
    showed that table at that version or later, sorted; and how many moves never showed."""
    shown: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for table, version, t in dom:
        shown[str(table)].append((float(t) / 1000.0, int(version)))
    for rows in shown.values():
        rows.sort()
    out, missing = [], 0
    for m in moves:
        if m["at"] < since or m["version"] is None:
            continue
        hit = next((t for t, v in shown.get(m["table"], []) if v >= m["version"] and t >= m["at"] - 0.001), None)
        if hit is None:
            missing += 1
        else:
            out.append((hit - m["at"]) * 1000.0)
    return sorted(out), missing


class SimulatedTable:
    """One fake table with its publisher; ``step()`` plays one legal move (a new game at the end)."""

    def __init__(self, table_id: str, settings: MqttSettings, seed: int) -> None:
        from web.fake import FakeTableService

        self.table_id = table_id
        self.name = f"Table {int(table_id[1:])}" if table_id[1:].isdigit() else table_id
        self.rng = random.Random(seed)
        self.service = FakeTableService(setup=SETUP)
        self.player_names = dict(zip(SETUP["players"], self.rng.sample(NAMES, len(SETUP["players"]))))
        self.publisher = MqttPublisher(settings)
        self.sub = self.service.events().subscribe()

    # what the publisher reads: the fake table's bus, and its snapshot with a name and players' names
    def events(self) -> Any:
        return self.service.events()

    def snapshot(self) -> dict[str, Any]:
        return dict(self.service.snapshot(), table={"name": self.name}, player_names=self.player_names)

    def start(self) -> None:
        self.publisher.start(self)

    def step(self) -> list[dict[str, Any]]:
        """Play a move; the moves published (table, version, bus time) for the latency log."""
        from web.fake_demo import random_legal_move

        move = random_legal_move(self.service, self.rng)
        if move is None:
            self.service.new_game(dict(SETUP), actor="simulate")
        else:
            self.service.play(move)
        out = []
        while (event := self.sub.get(timeout=0)) is not None:
            if event.type == MOVE_ACCEPTED:
                out.append({"table": self.table_id, "version": event.data.get("version"), "at": event.at})
        return out

    def close(self) -> None:
        self.sub.close()
        self.publisher.close()


class SimulatedHall:
    """``tables`` simulated tables; ``run`` plays a move at each every ``interval`` s, spread evenly."""

    def __init__(self, host: str, port: int, *, tables: int, interval: float, prefix: str = "tableref", seed: int = 1,
                 discovery: bool = False) -> None:
        self.interval = interval
        self.tables = [SimulatedTable(f"t{n + 1:02d}", MqttSettings(host=host, port=port, topic_prefix=prefix,
                                                                   table_id=f"t{n + 1:02d}", discovery=discovery,
                                                                   reconnect_min=0.2, reconnect_max=2.0), seed + n)
                       for n in range(tables)]
        self._stop = threading.Event()

    def start(self) -> "SimulatedHall":
        for table in self.tables:
            table.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def run(self, duration: float | None, log: IO[str] | None = None) -> int:
        """Play until ``duration`` seconds have passed (None: until ``stop``); returns the moves made."""
        moves = 0
        gap = self.interval / max(1, len(self.tables))
        start = time.monotonic()
        i = 0
        while not self._stop.is_set() and (duration is None or time.monotonic() - start < duration):
            due = start + i * gap
            self._stop.wait(max(0.0, due - time.monotonic()))
            for line in self.tables[i % len(self.tables)].step():
                moves += 1
                if log is not None:
                    log.write(json.dumps(line) + "\n")
            i += 1
        if log is not None:
            log.flush()
        return moves

    def close(self) -> None:
        for table in self.tables:
            table.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tableref.venue.simulate", description=__doc__.split("\n\n")[0])
    p.add_argument("--broker", default="127.0.0.1:1883", metavar="HOST[:PORT]")
    p.add_argument("--tables", type=int, default=12)
    p.add_argument("--interval", type=float, default=2.0, help="seconds between two moves at one table (default 2)")
    p.add_argument("--duration", type=float, help="stop after this many seconds (default: Ctrl-C)")
    p.add_argument("--topic-prefix", default="tableref")
    p.add_argument("--discovery", action="store_true", help="also announce the tables to Home Assistant")
    p.add_argument("--log", help="write every move as a JSON line here (- for standard output)")
    args = p.parse_args(argv)
    host, _, port = args.broker.rpartition(":") if ":" in args.broker else (args.broker, "", "1883")
    hall = SimulatedHall(host, int(port), tables=args.tables, interval=args.interval, prefix=args.topic_prefix,
                         discovery=args.discovery).start()
    log: IO[str] | None = sys.stdout if args.log == "-" else open(args.log, "w", encoding="utf-8") if args.log else None
    print(f"simulating {args.tables} tables on {args.broker}, a move every {args.interval:g} s each", file=sys.stderr, flush=True)
    try:
        moves = hall.run(args.duration, log)
    except KeyboardInterrupt:
        moves = -1
    finally:
        hall.close()
        if log is not None and log is not sys.stdout:
            log.close()
    print(f"done: {moves} moves", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
