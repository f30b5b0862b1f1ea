"""What a table's stored events look like to the adapters (docs/runtime-api.md): the bus event
type of each stored type, and each event's payload with one ``description`` in every language and
the fields the dashboard reads. Used live (``Table``) and when a stored game is replayed or listed
(``tableref.replay``, the history page), so both show the same texts."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scorer.core.types import Message, player_label
from tableref import move_order
from tableref import service as ev
from tableref.session import FLAG_CLEARED, FLAG_RAISED, GAME_OVER, MOVE, OVERRIDE, SCORE, TABLE_MATCHED, UNDO
from tableref.texts import join_messages, message_from_json

# extra bus event types of this runtime (documented in docs/runtime-api.md)
SCORE_CHANGED = "score"
TABLE_MATCHED_EVENT = "table_matched"
SIGNAL = "signal"
FOLLOW = "follow"  # the rules moved pieces by themselves: what the players must move on the table

# stored event type -> bus event type
BUS_TYPE = {
    MOVE: ev.MOVE_ACCEPTED,
    FLAG_RAISED: ev.FLAG_RAISED,
    FLAG_CLEARED: ev.FLAG_CLEARED,
    UNDO: ev.UNDO,
    OVERRIDE: ev.OVERRIDE,
    GAME_OVER: ev.GAME_OVER,
    SCORE: SCORE_CHANGED,
    TABLE_MATCHED: TABLE_MATCHED_EVENT,
    "game_started": ev.NEW_GAME,
    move_order.ORDER_CONFIRMED: "order_confirmed",
    move_order.ORDER_CHANGED: "order_changed",
}


def bus_payload(type_: str, data: dict[str, Any]) -> dict[str, Any]:
    """The adapter-facing payload of a stored event: its data plus one ``description`` and the
    fields the dashboard reads (``move``, ``violations``, ``spaces``, ``rules`` ...)."""
    out = dict(data)
    descs = [m for m in (message_from_json(x) for x in data.get("description") or []) if m is not None] if isinstance(data.get("description"), list) else []
    if type_ == MOVE:
        out["move"] = (data.get("moves") or [None])[0]
        d = join_messages(descs)
        if data.get("order"):
            d = Message.t("tableref.table.order_inferred", text=d)
        out["description"] = d.to_json()
    elif type_ == UNDO:
        out["move"] = (data.get("undone") or [None])[0]
        d = join_messages(descs, Message.t('tableref.table.override'))
        out["description"] = Message.t("tableref.table.undone", text=d).to_json()
    elif type_ == OVERRIDE:
        out["move"] = (data.get("forced") or [None])[0]
        flag = data.get("flag") or {}
        out["rules"] = [v["rule"] for v in flag.get("violations", [])]
        d = join_messages(descs, Message.t('tableref.table.the_table_as_it_stands'))
        out["description"] = Message.t("tableref.table.accepted_by_override", text=d).to_json()
    elif type_ == FLAG_RAISED:
        flag = data.get("flag") or {}
        out["violations"] = flag.get("violations", [])
        out["spaces"] = flag.get("spaces", [])
        msg = message_from_json(flag.get("message")) or Message.t('tableref.table.illegal_table')
        fix = message_from_json(flag.get("fix"))
        out["description"] = (Message.t('tableref.table.fix', msg=msg, fix=fix) if fix else msg).to_json()
    elif type_ == FLAG_CLEARED:
        flag = data.get("flag") or {}
        msg = message_from_json(flag.get("message")) or Message.t('tableref.table.flag')
        why = {"corrected": Message.t('tableref.table.the_table_was_put_right'), "override": Message.t('tableref.table.override.2'),
               "undo": Message.t('tableref.table.undo'), "reset": Message.t('tableref.table.new_game'),
               "restart": Message.t('tableref.table.referee_restarted')}.get(
            str(data.get("reason")), Message.t("name.as_given", name=str(data.get("reason"))))
        out["description"] = Message.t('tableref.table.flag_cleared', why=why, msg=msg).to_json()
    elif type_ == SCORE:
        board = data.get("scoreboard") or {}
        totals = tuple(Message.t("tableref.table.player_total", player=player_label(p["player"]), total=p["total"])
                       for p in board.get("players", []))
        effects = [m for m in (message_from_json(e.get("message")) for e in data.get("effects", [])) if m is not None]
        lead = join_messages(effects, Message.t('tableref.table.scores_changed'))
        out["description"] = Message.t('tableref.table.scores', lead=lead, totals=totals).to_json()
    elif type_ == GAME_OVER:
        outcome = data.get("outcome") or {}
        reason = message_from_json(outcome.get("reason")) or Message.t('tableref.table.game_over')
        winners = tuple(player_label(w) for w in outcome.get("winners", []))
        out["description"] = Message.t('tableref.table.game_over_winner', winners=winners, reason=reason).to_json()
    elif type_ == TABLE_MATCHED:
        out["description"] = Message.t('tableref.table.the_table_matches_the_game').to_json()
    elif type_ == move_order.ORDER_CONFIRMED:
        out["description"] = Message.t('tableref.table.the_inferred_order_of_moves').to_json()
    elif type_ == move_order.ORDER_CHANGED:
        out["description"] = Message.t('tableref.table.the_order_of_moves_was').to_json()
    elif type_ == "game_started":
        out["description"] = Message.t('tableref.table.new_game.2', game=data.get('game')).to_json()
    return out


def history_rows(rows: Iterable[Any], bus_ids: Mapping[tuple[Any, Any], int]) -> list[dict[str, Any]]:
    """Stored events (``EventStore.events``) as the dashboard's history rows, oldest first; an
    event published live keeps its bus id."""
    rows = list(rows)
    undone = {int(row.data.get("undone_seq", -1)) for row in rows if row.type == UNDO}
    out = []
    for row in rows:
        bus_type = BUS_TYPE.get(row.type)
        if bus_type is None:
            continue
        payload = bus_payload(row.type, row.data)
        out.append({
            "id": bus_ids.get((row.game, row.seq), f"g{row.game}-{row.seq}"),
            "type": bus_type,
            "at": row.wall,
            "seq": row.seq,
            "actor": row.actor,
            "description": payload.get("description"),
            "data": payload,
            "undone": row.seq in undone,
        })
    return out


__all__ = ["BUS_TYPE", "FOLLOW", "SCORE_CHANGED", "SIGNAL", "TABLE_MATCHED_EVENT", "bus_payload", "history_rows"]
