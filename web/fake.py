"""An in-memory ``TableService`` driven by a real rules engine, for tests, the SSE benchmark and
``python -m web`` (the dashboard on its own, without devices).

It is faithful where the dashboard can tell: moves go through the engine's single choke point,
an illegal move raises a flag that stays until the pieces are taken back or an admin overrides,
undo replays the accepted moves minus the last, and every change is published on a real
``EventBus`` (a specific event, then a full ``state`` snapshot) before the call returns.
What it does not have are devices: ``devices()`` reports emulated ones, and the camera pictures
are drawn from the board geometry (``web.fake_picture``). Its exports are ``web.fake_exports``;
something to play on it, ``web.fake_demo``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import cv2
import numpy as np

from scorer.core import Game, SetupOptions, get_game
from scorer.core.boardkit import moved_spaces
from scorer.core.registry import board_kit
from scorer.core.types import InvalidRecord, Message, Violation
from tableref import service as svc
from tableref.service import BoardImage, CommandResult, EventBus
from web.boards import default_markers
from web.fake_exports import bgstats, game_record, history_csv
from web.fake_picture import camera_jpeg, draw_board

PIECE_KINDS = {"china": ("house", "emissary", "fortress")}
CARD_KINDS = {"china": ("violet", "yellow", "orange", "green", "red")}


def _ok(message: Message, **data: Any) -> CommandResult:
    return CommandResult(True, message, dict(data))


def _refused(message: Message, **data: Any) -> CommandResult:
    return CommandResult(False, message, dict(data))


@dataclass
class _Flag:
    id: int
    raised_at: float
    move: Any
    violations: tuple[Violation, ...]
    spaces: tuple[str, ...]
    added: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "raised_at": self.raised_at,
            "violations": [v.to_json() for v in self.violations],
            "spaces": list(self.spaces),
            "diff": {"added": self.added, "removed": []},
        }


class FakeTableService:
    """See the module docstring. Thread-safe: one lock around every change and snapshot."""

    def __init__(self, *, clock: Callable[[], float] = time.time, bus: EventBus | None = None,
                 setup: Mapping[str, Any] | None = None, game: str = "china",
                 geometry: Callable[[str, str], Mapping[str, Any] | None] | None = None, camera: Any = None):
        self._clock = clock
        self._bus = bus or EventBus()
        self._lock = threading.RLock()
        self._geometry = geometry
        self._game: Game | None = None
        self._options: SetupOptions | None = None
        self._state: Any = None
        self._moves: list[Any] = []
        self._history: list[dict[str, Any]] = []
        self._flag: _Flag | None = None
        self._last_move: dict[str, Any] | None = None
        self._version = 0
        self._sensor_frames = 0
        self._registry: dict[str, dict[str, Any]] = {}
        self._pending_tag: dict[str, Any] | None = None
        self.undo_requests = 0
        # an optional real camera device (tableref.camera_device.CameraDevice): its pictures, status and
        # enrolment are real; its readings are not refereed (this table's moves come from play())
        self.camera = camera
        self._enrolment: Any = None
        if camera is not None:
            from tableref.camera_enrolment import CameraEnrolment

            self._enrolment = CameraEnrolment(camera)
            camera.start(_CameraHost())
        if setup is not None:
            res = self.new_game(dict(setup), actor="fake", game=game)
            if not res.ok:
                raise InvalidRecord(res.message.en, where="fake setup")

    # -- the TableService protocol -------------------------------------------------------------
    def events(self) -> EventBus:
        return self._bus

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return self._snapshot()

    def history(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(h) for h in self._history]

    def new_game(self, setup: dict[str, Any], actor: str, game: str | None = None) -> CommandResult:
        game_id = game or str(setup.get("game", "china"))
        try:
            engine = get_game(game_id)
        except KeyError:
            return _refused(Message.t('web.fake.unknown_game', game_id=game_id))
        options_json = {k: v for k, v in setup.items() if k != "game"}
        try:
            options = SetupOptions.from_json(options_json)
            state = engine.setup(options)
        except (InvalidRecord, KeyError, TypeError) as exc:
            return _refused(Message.t('web.fake.cannot_set_up_the_game', exc=exc))
        with self._lock:
            self._game, self._options, self._state = engine, options, state
            self._moves, self._flag, self._last_move = [], None, None
            self._history = []
            self._change(svc.NEW_GAME, actor, Message.t('web.fake.new_game', engine=engine.name),
                         {"game": engine.id, "setup": options.to_json()})
        return _ok(Message.t('web.fake.new_game_started'))

    def undo(self, actor: str, authorised: bool) -> CommandResult:
        self.undo_requests += 1
        if not authorised:
            return _refused(Message.t('web.fake.undo_needs_the_admin_pin'))
        with self._lock:
            if self._game is None or not self._moves:
                return _refused(Message.t('web.fake.there_is_no_move_to'))
            undone = self._moves.pop()
            state = self._game.setup(self._options)  # type: ignore[arg-type]
            for m in self._moves:
                state = self._game.apply_unchecked(state, m)
            self._state, self._flag = state, None
            self._last_move = None
            desc = self._game.describe_move(undone)
            for h in reversed(self._history):
                if h["type"] == svc.MOVE_ACCEPTED and not h.get("undone"):
                    h["undone"] = True
                    break
            self._change(svc.UNDO, actor, Message.t('web.fake.undone', desc=desc),
                         {"move": self._game.move_to_json(undone)})
        return _ok(Message.t('web.fake.the_last_move_was_undone'))

    def override(self, actor: str) -> CommandResult:
        with self._lock:
            flag = self._flag
            if flag is None or self._game is None:
                return _refused(Message.t('web.fake.there_is_no_flag_to'))
            try:
                state = self._game.apply_unchecked(self._state, flag.move)
            except (ValueError, IndexError, KeyError, TypeError):
                return _refused(Message.t('web.fake.this_move_cannot_be_accepted'))
            self._state = state
            self._moves.append(flag.move)
            self._flag = None
            desc = self._game.describe_move(flag.move)
            self._last_move = self._move_info(flag.move)
            self._change(svc.OVERRIDE, actor, Message.t('web.fake.accepted_by_override', desc=desc),
                         {"move": self._game.move_to_json(flag.move), "rules": [v.rule for v in flag.violations]})
            self._after_move()
        return _ok(Message.t('web.fake.the_flag_was_overridden_the'))

    def declare(self, move: dict[str, Any], actor: str) -> CommandResult:
        return self.play(move, actor=actor)

    def signal_turn_done(self, actor: str) -> CommandResult:
        return _refused(Message.t('web.fake.nothing_is_waiting_for_turn'))

    def devices(self) -> dict[str, Any]:
        with self._lock:
            flag = self._flag is not None
            out = {
                "emulated": True,
                "camera": {"state": "ok", "source": "synthetic (drawn from the board layout)",
                           "markers": {"found": [0, 1, 2, 3], "expected": [0, 1, 2, 3]}, "fps": 2.0},
                "sensor_board": {"state": "connected", "port": "emulated",
                                 "counters": {"frames": self._sensor_frames, "crc_errors": 0, "resends": 0, "reconnects": 0}},
                "card_reader": {"state": "absent"},
                "gpio": {"state": "ok", "pin_factory": "mock", "alert_led": flag, "buzzer": False,
                         "buttons": {"turn_done": 17, "undo": 27, "confirm": 22}},
                "mqtt": {"state": "absent"},
            }
        if self.camera is not None:
            out["camera"] = self.camera.status()
        return out

    def camera_enrolment(self) -> dict[str, Any]:
        if self._enrolment is None:
            return {"available": False, "message": Message.t("web.fake.no_camera_to_enrol").to_json()}
        return self._enrolment.status()

    def camera_enrol(self, step: str, actor: str) -> CommandResult:
        if self._enrolment is None:
            return CommandResult(False, Message.t('web.fake.this_table_has_no_camera'), {"code": "no_camera"})
        res = self._enrolment.run(step, actor)
        self._bus.publish(svc.DEVICES, {"camera_enrolment": {"step": step, "ok": res.ok}, "actor": actor,
                                        "description": res.message.to_json()}, self._clock())
        return res

    def close(self) -> None:
        if self.camera is not None:
            self.camera.close()

    def camera_snapshot(self) -> bytes | None:
        if self.camera is not None:
            return self.camera.jpeg()
        img = self._render()
        if img is None:
            return None
        return camera_jpeg(img)

    def board_image(self) -> BoardImage | None:
        geo = self._current_geometry()
        img = self._render(geo, pieces=False)
        if img is None or geo is None:
            return None
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            return None
        w, h = geo["size"]
        return BoardImage(buf.tobytes(), "image/jpeg", (float(w), float(h)), img.shape[1] / float(w),
                          geo.get("markers") or default_markers((float(w), float(h))))

    def enrolment(self) -> dict[str, Any]:
        with self._lock:
            game = self._game.id if self._game else "china"
            return {
                "pending": dict(self._pending_tag) if self._pending_tag else None,
                "registry": [{"uid": uid, "item": dict(item)} for uid, item in sorted(self._registry.items())],
                "pieces": list(PIECE_KINDS.get(game, ())),
                "cards": list(CARD_KINDS.get(game, ())),
            }

    def enrol(self, uid: str, item: dict[str, Any], actor: str) -> CommandResult:
        with self._lock:
            self._registry[uid] = dict(item)
            if self._pending_tag and self._pending_tag.get("uid") == uid:
                self._pending_tag = None
            self._bus.publish(svc.DEVICES, {"enrolled": {"uid": uid, "item": dict(item)}}, self._clock())
        return _ok(Message.t('web.fake.tag_enrolled', uid=uid))

    # -- exports (the same shapes as the runtime's) ---------------------------------------------------
    def export_record(self) -> dict[str, Any]:
        with self._lock:
            return game_record(self._game, self._options, self._moves)

    def export_csv(self) -> str:
        with self._lock:
            return history_csv(self._history)

    def export_bgstats(self, lang: str = "en") -> dict[str, Any]:
        with self._lock:
            return bgstats(self._game, self._options, self._state, self._history, lang)

    # -- what the sensors and the table do (test and demo drivers) ------------------------------
    def play(self, move: Mapping[str, Any] | Any, actor: str = "sensors") -> CommandResult:
        """A move seen on the table: accepted if legal, else a flag is raised and stays."""
        with self._lock:
            if self._game is None:
                return _refused(Message.t('web.fake.no_game_is_running'))
            game = self._game
            parsed = game.move_from_json(move) if isinstance(move, Mapping) else move
            self._sensor_frames += 1
            found = game.violations(self._state, parsed)
            if found:
                if self._flag is not None and self._flag.move == parsed:
                    return _refused(Message.t('web.fake.still_illegal'))
                self._raise(parsed, found)
                return CommandResult(False, found[0].message, {"violations": [v.to_json() for v in found]})
            if self._flag is not None:
                self._clear(Message.t('web.fake.the_table_is_legal_again'), actor)
            self._state = game.apply(self._state, parsed)
            self._moves.append(parsed)
            self._last_move = self._move_info(parsed)
            desc = game.describe_move(parsed)
            self._change(svc.MOVE_ACCEPTED, actor, desc, {"move": game.move_to_json(parsed)})
            self._after_move()
        return _ok(Message.t('web.fake.move_accepted'))

    def take_back(self, actor: str = "sensors") -> CommandResult:
        """The players removed the pieces of the illegal move: the flag clears by itself."""
        with self._lock:
            if self._flag is None:
                return _refused(Message.t('web.fake.no_flag_is_raised'))
            self._clear(Message.t('web.fake.the_pieces_were_taken_back'), actor)
        return _ok(Message.t('web.fake.flag_cleared'))

    def present_tag(self, uid: str, source: str = "sensor-board", space: str | None = None) -> None:
        """A tag nobody has enrolled was read (the enrolment page shows it)."""
        with self._lock:
            if uid in self._registry:
                return
            self._pending_tag = {"uid": uid, "source": source, "space": space, "seen_at": self._clock()}
            self._bus.publish(svc.DEVICES, {"unknown_tag": dict(self._pending_tag)}, self._clock())

    def registry(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return dict(self._registry)

    @property
    def state(self) -> Any:
        return self._state

    @property
    def game(self) -> Game | None:
        return self._game

    @property
    def flag_raised(self) -> bool:
        return self._flag is not None

    # -- internals ----------------------------------------------------------------------------
    def _move_info(self, move: Any) -> dict[str, Any]:
        assert self._game is not None
        mj = self._game.move_to_json(move)
        spaces = moved_spaces(board_kit(self._game.id), [mj])
        return {"player": mj.get("player"), "move": mj, "spaces": spaces,
                "description": self._game.describe_move(move).to_json(), "at": self._clock()}

    def _raise(self, move: Any, found: tuple[Violation, ...]) -> None:
        assert self._game is not None
        mj = self._game.move_to_json(move)
        added = [{"space": p["space"], "owner": "neutral" if p["kind"] == "fortress" else mj.get("player"), "kind": p["kind"], "count": 1}
                 for p in mj.get("pieces", [])]
        touched = moved_spaces(board_kit(self._game.id), [mj])  # where the offending move was made
        spaces = tuple(dict.fromkeys([s for v in found for s in v.spaces] + [a["space"] for a in added] + touched))
        now = self._clock()
        self._flag = _Flag(0, now, move, found, spaces, added)
        first = found[0]
        ev = self._change(svc.FLAG_RAISED, "referee", first.message,
                          {"violations": [v.to_json() for v in found], "spaces": list(spaces)}, publish_state=False)
        self._flag.id = ev.id
        self._publish_state()

    def _clear(self, why: Message, actor: str) -> None:
        self._flag = None
        self._change(svc.FLAG_CLEARED, actor, why, {})

    def _after_move(self) -> None:
        assert self._game is not None
        outcome = self._game.outcome(self._state)
        if outcome is not None:
            self._change(svc.GAME_OVER, "referee", outcome.reason, {"outcome": outcome.to_json()})

    def _change(self, type_: str, actor: str, description: Message, data: dict[str, Any],
                publish_state: bool = True) -> svc.TableEvent:
        """Record a change in the history, publish it, then publish the new full state."""
        self._version += 1
        now = self._clock()
        payload = dict(data, description=description.to_json(), actor=actor, version=self._version)
        ev = self._bus.publish(type_, payload, now)
        self._history.append({"id": ev.id, "type": type_, "at": now, "actor": actor,
                              "description": description.to_json(), "data": dict(data), "undone": False})
        if publish_state:
            self._publish_state()
        return ev

    def _publish_state(self) -> None:
        self._bus.publish(svc.STATE, self._snapshot(), self._clock())

    def _snapshot(self) -> dict[str, Any]:
        game = self._game
        if game is None:
            return {"version": self._version, "game": None, "flag": None}
        state = self._state
        gj = game.state_to_json(state)
        outcome = game.outcome(state)
        return {
            "version": self._version,
            "game": game.id,
            "game_name": game.name.to_json(),
            "setup": self._options.to_json() if self._options else {},
            "players": list(gj.get("players", [])),
            "board_id": gj.get("board", self._options.board if self._options else None),  # as the runtime says it
            "provisional_board": bool(gj.get("provisional_board")),
            "turn": game.turn(state).to_json(),
            "scores": game.score(state).to_json(),
            "outcome": outcome.to_json() if outcome else None,
            "board": game.visible_board(state).to_json(),
            "state": gj,
            "last_move": dict(self._last_move) if self._last_move else None,
            "flag": self._flag.to_json() if self._flag else None,
            "moves": len(self._moves),
        }

    def _current_geometry(self) -> Mapping[str, Any] | None:
        """The running game's drawing (China's schematic when no geometry source is given)."""
        with self._lock:
            game = self._game
            if game is None:
                return None
            gj = game.state_to_json(self._state)
            ref = gj.get("board") or (self._options.board if self._options else None)
            doc = self._state.board.to_json() if game.id == "china" else None
        if self._geometry is not None:
            kit = board_kit(game.id)
            board_id = Path(str(ref)).stem if ref else (kit.default_board() if kit is not None else None)
            if board_id is not None:
                try:
                    found = self._geometry(board_id, game.id)
                except (LookupError, ValueError):
                    found = None
                if found is not None:
                    return found
        if doc is None:
            return None
        from scorer.games.china.boardkit import schematic_geometry

        return schematic_geometry(doc)

    def _render(self, geo: Mapping[str, Any] | None = None, pieces: bool = True, px_per_mm: float = 2.0) -> np.ndarray | None:
        """Draw the board (and its pieces) top-down, as a rectified camera picture would look."""
        geo = geo or self._current_geometry()
        if geo is None:
            return None
        return draw_board(geo, self._game, self._state, pieces=pieces, px_per_mm=px_per_mm)


class _CameraHost:
    """What a camera device needs from a runtime. The fake table does not referee camera readings."""

    def __init__(self) -> None:
        self.clock = time.monotonic
        self.live: bool | None = None

    def set_source(self, source: str, live: bool, reason: Any = None) -> None:
        self.live = live

    def submit_observation(self, obs: Any) -> None:
        pass
