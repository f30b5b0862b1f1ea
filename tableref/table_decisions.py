"""Carrying out the reconciler's decisions on the table, one small handler per decision type.

``Table.step`` evaluates the table and hands each ``Decision`` to ``handle``; a handler records
what the decision means in the session (an accepted move, a flag raised or cleared, the table
matching after an undo) or says it on the bus, and answers whether a move was accepted (the
table may then show the next player's move at once). The handlers take the
``tableref.table.Table`` explicitly.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from scorer.core.types import IllegalMove
from scorer.referee.reconciler import (
    AcceptMove,
    ClearFlag,
    Decision,
    RaiseFlag,
    ReadingChanged,
    SignalRefused,
    TableMatched,
)
from tableref import move_order
from tableref.session import FLAG_CLEARED, FLAG_RAISED, TABLE_MATCHED
from tableref.table_events import SIGNAL
from tableref.table_follow import follow

if TYPE_CHECKING:
    from tableref.table import Table

log = logging.getLogger("tableref.table")  # the referee's logger: its records keep the name operators filter on


def handle(table: Table, d: Decision) -> bool:
    """Carry out one decision; True when it accepted a move."""
    handler = HANDLERS[type(d)]
    return handler(table, d)


def order_of(table: Table, d: AcceptMove) -> dict[str, Any] | None:
    """How an accepted move belongs to an inferred order: the first move of a new question, the
    next turn of the order still being accepted, or none."""
    game = table.session.game
    if d.order is not None:
        return {"group": None, "step": 0, "chosen": move_order.steps_json(game, d.order.chosen),
                "alternatives": [move_order.steps_json(game, alt) for alt in d.order.alternatives]}
    open_ = table.session.open_order()
    step = open_.next_step() if open_ is not None else None
    if open_ is not None and step is not None and move_order.same_step([game.move_to_json(m) for m in d.moves], step):
        return {"group": open_.group, "step": len(open_.seqs)}
    return None


def on_accept(table: Table, d: AcceptMove) -> bool:
    if table.session.is_over():
        return False
    before = table.session.state
    try:
        table.session.record_move(d.moves, d.reason.value, actor="referee", player=d.player, order=order_of(table, d))
    except IllegalMove as exc:  # the reconciler only proposes legal moves; say so loudly if not
        log.error("reconciler proposed an illegal move %s: %s", d.moves, exc)
        return False
    table.undo_armed_at = None
    follow(table, before, d.moves)
    return True


def on_raise(table: Table, d: RaiseFlag) -> bool:
    table.alert_silenced = False
    stored = table.session.record(FLAG_RAISED, {"flag": d.flag.to_json(), "update": d.update})
    bus_id = table._bus_ids.get((table.session.game_no, stored[-1].seq))
    if bus_id is not None and d.flag.raised_at not in table._flag_ids:
        table._flag_ids = {d.flag.raised_at: bus_id}
    return False


def on_clear(table: Table, d: ClearFlag) -> bool:
    table.alert_silenced = False
    table.session.record(FLAG_CLEARED, {"reason": d.reason, "flag": d.flag.to_json()})
    return False


def on_reading(table: Table, d: ReadingChanged) -> bool:
    return False


def on_matched(table: Table, d: TableMatched) -> bool:
    if table.session.undo_wait is not None:
        table.session.record(TABLE_MATCHED, {})
    return False


def on_refused(table: Table, d: SignalRefused) -> bool:
    table.bus.publish(SIGNAL, {"ok": False, "reason": d.reason.value, "message": d.message.to_json(),
                               "description": d.message.to_json(), "actor": "referee"}, table.clock())
    return False


HANDLERS: dict[type, Callable[[Table, Any], bool]] = {
    AcceptMove: on_accept,
    RaiseFlag: on_raise,
    ClearFlag: on_clear,
    ReadingChanged: on_reading,
    TableMatched: on_matched,
    SignalRefused: on_refused,
}
