"""A stored game, step by step, as it was: the Board page's replay (docs/web.md "Replay").

The steps are folded from the event store with the session's own fold (``Session._fold``, what
a restart does), so a step shows exactly what the referee had then: the board the table was
expected to show (the engine's board plus any override offset), the scores, who was to play and
the open flag. A step starts at each game-changing or flag event (set-up, move, override, undo,
flag raised, flag cleared); the score change and the end of the game a move caused belong to its
step. A move that was undone later stays in the replay, marked ``undone``.

``ReplayReader`` reads through its own read-only connection (the referee keeps writing) and keeps
the last few games folded, refolding one only when new events were stored.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Mapping

from scorer.core.boardkit import moved_spaces
from scorer.core.game import SetupOptions
from scorer.core.registry import board_kit, get_game
from scorer.core.types import Message
from tableref.session import FLAG_CLEARED, FLAG_RAISED, GAME_STARTED, MOVE, OVERRIDE, UNDO, Session
from tableref.store import EventStore, GameRow, StoredEvent
from tableref.table_events import bus_payload
from tableref.texts import join_messages

STEP_TYPES = (GAME_STARTED, MOVE, OVERRIDE, UNDO, FLAG_RAISED, FLAG_CLEARED)
HEADER_KEYS = ("step", "seq", "type", "wall", "actor", "description", "undone", "player")


class ReplayError(LookupError):
    """No such game or step in this table's store."""


def _flag(session: Session) -> dict[str, Any] | None:
    flag = session.open_flag
    if not flag:
        return None
    out = dict(flag)
    out.setdefault("diff", flag.get("residual") or {"added": [], "removed": []})  # what the Board page draws
    return out


def _moved_spaces(ev: StoredEvent, game_id: str) -> list[str]:
    """The spaces the step's moves touched, as the game's board kit reads its moves."""
    moves = ev.data.get("moves") or ev.data.get("forced") or []
    return moved_spaces(board_kit(game_id), moves)


def fold_steps(row: GameRow, events: list[StoredEvent], *, player_names: Mapping[str, str] | None = None,
               table_name: str = "") -> list[dict[str, Any]]:
    """Every step of one stored game with the table as it was after it (see the module doc)."""
    game = get_game(row.game)
    setup = SetupOptions.from_json(row.setup)
    session = Session(None, row.id, game, setup, clock=lambda: 0.0, wall=lambda: "")  # type: ignore[arg-type]  (folds only)
    undone = {int(e.data.get("undone_seq", -1)) for e in events if e.type == UNDO}
    names = dict(player_names or {})
    steps: list[dict[str, Any]] = []
    current: StoredEvent | None = None

    def close_step() -> None:
        if current is None:
            return
        state = session.state
        gj = game.state_to_json(state)
        outcome = game.outcome(state)
        payload = bus_payload(current.type, current.data)
        description = payload.get("description") or (
            Message.t('tableref.replay.set_up').to_json() if current.type == GAME_STARTED else join_messages([]).to_json())
        kind_spaces = _moved_spaces(current, game.id) if current.type in (MOVE, OVERRIDE) else []
        steps.append({
            "step": len(steps),
            "seq": current.seq,
            "type": current.type,
            "wall": current.wall,
            "actor": current.actor,
            "player": current.data.get("player"),
            "description": description,
            "undone": current.seq in undone,
            "game": game.id,
            "game_name": game.name.to_json(),
            "game_no": row.id,
            "table": {"name": table_name},
            "version": current.seq,
            "players": list(gj.get("players", setup.players)),
            "player_names": {p: names.get(p, p) for p in setup.players},
            "board_id": gj.get("board", setup.board),
            "provisional_board": bool(gj.get("provisional_board")),
            "turn": game.turn(state).to_json(),
            "scores": game.score(state).to_json(),
            "outcome": outcome.to_json() if outcome else None,
            "board": session.expected_table().to_json(),
            "flag": _flag(session),
            "last_move": {"spaces": kind_spaces, "description": description, "player": current.data.get("player"),
                          "at": current.wall} if kind_spaces or current.type in (MOVE, OVERRIDE) else None,
            "moves": len(session.moves()),
        })

    for ev in events:
        if ev.type in STEP_TYPES:
            close_step()
            current = ev
        session._fold(ev)  # the session's own fold: replaying is exactly what a restart does
    close_step()
    return steps


class ReplayReader:
    """A table's stored games for the replay, read-only, with the last ``keep`` games folded."""

    def __init__(self, store_path: str, *, player_names: Mapping[str, str] | None = None, table_name: str = "",
                 keep: int = 4) -> None:
        self.store_path = store_path
        self.player_names = dict(player_names or {})
        self.table_name = table_name
        self.keep = keep
        self._lock = threading.Lock()
        self._cache: OrderedDict[int, tuple[int, list[dict[str, Any]]]] = OrderedDict()

    def games(self) -> list[dict[str, Any]]:
        with EventStore(self.store_path, read_only=True) as store:
            rows = store.games()
            return [{"game_no": r.id, "game": r.game, "game_name": get_game(r.game).name.to_json(), "status": r.status,
                     "started": r.started_wall, "players": list(r.setup.get("players", [])), "last_seq": store.last_seq(r.id)}
                    for r in rows]

    def steps(self, game_no: int) -> list[dict[str, Any]]:
        with EventStore(self.store_path, read_only=True) as store:
            rows = {r.id: r for r in store.games()}
            if game_no not in rows:
                raise ReplayError(f"no game {game_no} at this table")
            last = store.last_seq(game_no)
            with self._lock:
                cached = self._cache.get(game_no)
                if cached is not None and cached[0] == last:
                    self._cache.move_to_end(game_no)
                    return cached[1]
            steps = fold_steps(rows[game_no], store.events(game_no), player_names=self.player_names, table_name=self.table_name)
        with self._lock:
            self._cache[game_no] = (last, steps)
            while len(self._cache) > self.keep:
                self._cache.popitem(last=False)
        return steps

    def game(self, game_no: int) -> dict[str, Any]:
        """A game's steps as headers (what the step list shows), without the boards."""
        steps = self.steps(game_no)
        info = next(g for g in self.games() if g["game_no"] == game_no)
        return dict(info, board_id=steps[0]["board_id"] if steps else None,
                    steps=[{k: s[k] for k in HEADER_KEYS} for s in steps])

    def step(self, game_no: int, step: int) -> dict[str, Any]:
        steps = self.steps(game_no)
        if not 0 <= step < len(steps):
            raise ReplayError(f"game {game_no} has steps 0 to {len(steps) - 1}")
        return dict(steps[step], steps=len(steps))
