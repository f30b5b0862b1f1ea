"""Something to play on a fake table (``web.fake``): a random legal China move, a plausible
mistake, and ``DemoDriver``, which plays a whole game with both for ``python -m web``, the venue
simulation, the SSE benchmark and tests.
"""

from __future__ import annotations

import random
import threading
from typing import Any, Mapping

from web.fake import FakeTableService


def random_legal_move(service: FakeTableService, rng: random.Random) -> dict[str, Any] | None:
    """A random legal placement (or an exchange) for the active China player, as record JSON."""
    from scorer.games.china.engine import placement_options
    from scorer.games.china.moves import Exchange, Place

    state, game = service.state, service.game
    if game is None or state is None or game.outcome(state) is not None:
        return None
    options = list(placement_options(state))
    player = state.players[state.active]
    if not options:
        return game.move_to_json(Exchange(player))
    placements, _colour = rng.choice(options)
    return game.move_to_json(Place(player, placements))


def illegal_move(service: FakeTableService, rng: random.Random) -> dict[str, Any] | None:
    """A plausible mistake at the table: a player who is not active places a house."""
    state = service.state
    if state is None or state.finished is not None:
        return None
    others = [p for i, p in enumerate(state.players) if i != state.active]
    free = [s for s, o in zip(state.board.sites, state.site_owner) if o < 0]
    if not others or not free:
        return None
    return {"type": "place", "player": rng.choice(others), "pieces": [{"kind": "house", "space": rng.choice(free)}]}


class DemoDriver:
    """Plays a game on a fake table: a legal move every ``interval`` seconds, and now and then a
    mistake that raises a flag and is taken back a little later. A thread with a stop event."""

    def __init__(self, service: FakeTableService, *, interval: float = 2.5, seed: int = 7, mistakes_every: int = 6,
                 restart: Mapping[str, Any] | None = None):
        self.service = service
        self.interval = interval
        self.rng = random.Random(seed)
        self.mistakes_every = mistakes_every
        self.restart = dict(restart) if restart else None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="web-demo-driver", daemon=True)
        self._n = 0

    def start(self) -> "DemoDriver":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    def step(self) -> None:
        svc_ = self.service
        if svc_.flag_raised:
            svc_.take_back()
            return
        self._n += 1
        if self.mistakes_every and self._n % self.mistakes_every == 0:
            bad = illegal_move(svc_, self.rng)
            if bad is not None:
                svc_.play(bad)
                return
        move = random_legal_move(svc_, self.rng)
        if move is None:
            if self.restart is not None:
                svc_.new_game(dict(self.restart), actor="demo")
            return
        svc_.play(move)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.step()
