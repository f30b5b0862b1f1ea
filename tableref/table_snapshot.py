"""The table's published state: the snapshot dashboards, the console and MQTT read.

``snapshot`` joins the game's part (scores, turn, boards, the last move: cached per state version,
since it only changes when the session does) with what the referee sees now (the pending reading,
a flag, the undo wait, what the rules still want moved, the sensors and devices). The shape is the
``state`` event of docs/runtime-api.md. The functions take the ``tableref.table.Table`` explicitly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scorer.core.boardkit import moved_spaces
from scorer.core.registry import board_kit
from scorer.core.types import Message
from tableref import move_order
from tableref.table_commands import UNDO_ARM_SECONDS
from tableref.table_follow import follow_json
from tableref.texts import join_messages

if TYPE_CHECKING:
    from tableref.table import Table


def game_part(table: Table) -> dict[str, Any]:
    """The snapshot's part that follows the session alone, rebuilt only when its state changes."""
    s = table.session
    key = (s.game_no, s.seq)
    if table._game_cache is None or table._game_cache[:2] != key:
        game, state = s.game, s.state
        outcome = game.outcome(state)
        gj = game.state_to_json(state)
        last = s.entries[-1] if s.entries else None
        last_move = None
        if last is not None:
            mj = [game.move_to_json(m) for m in last.moves]
            last_move = {
                "player": next((m.get("player") for m in mj if m.get("player")), None),
                "move": mj[0] if mj else None,
                "moves": mj,
                "spaces": moved_spaces(board_kit(game.id), mj),  # via the game's board kit
                "description": join_messages([game.describe_move(m) for m in last.moves],
                                             Message.t('tableref.table.table_accepted_by_override')).to_json(),
                "at": last.wall,
                "seq": last.seq,
                "kind": last.kind,
                "reason": last.reason,
                "actor": last.actor,
            }
        names = dict(table.settings.player_names)
        part = {
            "version": s.version,
            "game": game.id,
            "game_name": game.name.to_json(),
            "game_no": s.game_no,
            "setup": s.setup.to_json(),
            "players": list(gj.get("players", s.setup.players)),
            "player_names": {p: names.get(p, p) for p in s.setup.players},
            "board_id": gj.get("board", s.setup.board),
            "provisional_board": bool(gj.get("provisional_board")),
            "turn": game.turn(state).to_json(),
            "scores": game.score(state).to_json(),
            "outcome": outcome.to_json() if outcome else None,
            "board": s.expected_table().to_json(),
            "engine_board": game.visible_board(state).to_json(),
            "offset": s.offset.to_json(),
            "state": gj,
            "last_move": last_move,
            "moves": len(s.moves()),
        }
        table._game_cache = (key[0], key[1], part)
    return table._game_cache[2]


def snapshot(table: Table) -> dict[str, Any]:
    r = table.reconciler
    game = table.session.game
    reading = r.reading
    now = table.clock()
    pending = None
    if reading is not None:
        pending = {
            "player": reading.player,
            "moves": [game.move_to_json(m) for m in reading.moves],
            "description": join_messages([game.describe_move(m) for m in reading.moves]).to_json(),
            "complete": reading.complete,
            "since": reading.since,
            "takeback": reading.takeback,
            "cards": list(reading.cards),
        }
    undo_wait = None
    if r.suppressed is not None:
        descs = [game.describe_move(m) for m in r.suppressed]
        undo_wait = {
            "moves": [game.move_to_json(m) for m in r.suppressed],
            "message": Message.t("tableref.table.take_back_undone", moves=join_messages(descs)).to_json(),
        }
    flag = None
    if r.flag is not None:
        flag = r.flag.to_json()
        flag["id"] = table._flag_ids.get(r.flag.raised_at)
        flag["diff"] = r.flag.residual.to_json()
    follow = None
    if r.follow is not None:
        follow = follow_json(table)
    out = dict(game_part(table))
    out.update({
        "table": {"name": table.settings.name},
        "event_id": table.bus.last_id,
        "flag": flag,
        "pending": pending,
        "undo_wait": undo_wait,
        "follow": follow,
        "undo_armed": table.undo_armed_at is not None and now - table.undo_armed_at <= UNDO_ARM_SECONDS,
        "alert": {"active": r.flag is not None, "silenced": table.alert_silenced and r.flag is not None},
        "sensors": table.view.to_json(),
        "devices": table.devices(),
        "cards_tapped": list(r.cards),
        "order_check": [move_order.question_json(game, p) for _g, p in sorted(table.session.provisional.items())],
        "camera_note": dict(table._seen_note) if table._seen_note else None,
    })
    return out
