"""The table catching up with what the rules moved by themselves.

When a move makes the engine move pieces on its own (a scoring, a city emptied, an undo that puts
them back), the players have to do the same on the physical table. These functions tell the
reconciler which boards to follow and say on the bus what is still to move; they take the
``tableref.table.Table`` explicitly and keep no state of their own.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Sequence

from scorer.core.types import Board, Message
from scorer.referee.reconciler import remove_offset
from tableref.session import MOVE
from tableref.table_events import FOLLOW
from tableref.texts import join_messages

if TYPE_CHECKING:
    from tableref.table import Table

log = logging.getLogger("tableref.table")  # the referee's logger: its records keep the name operators filter on


def follow(table: Table, before: Any, moves: Sequence[Any], also: Sequence[Board] = (), publish: bool = True) -> None:
    """After ``moves`` from ``before``: where the rules moved pieces by themselves (the board the
    moves left differs from the engine's), the referee follows the players carrying it out
    (``Reconciler.follow``) and says on the bus what to move."""
    game = table.session.game
    boards: list[Board] = []
    state = before
    try:
        for m in moves:
            shown = game.shown_board(state, m)
            state = game.apply_unchecked(state, m)
            after = game.visible_board(state)
            if shown != after:
                boards += [shown, after]
    except Exception:  # noqa: BLE001 -- a move the engine cannot replay here moves nothing by itself
        log.exception("could not tell what the rules moved after %s", moves)
        return
    if not boards or table.session.is_over():  # once the game is over the table is no longer read
        return
    boards += [*also, game.visible_board(table.session.state)]
    table.reconciler.follow_boards(boards)
    if publish:
        table.bus.publish(FOLLOW, follow_json(table), table.clock())


def follow_json(table: Table) -> dict[str, Any]:
    """What the players still have to move: the table as sensed against the engine's board."""
    s = table.session
    expected = s.game.visible_board(s.state)
    sensed = remove_offset(table.view.merged_with(s.expected_table()), s.offset)
    todo = sensed.diff(expected)
    items = [Message.t("tableref.table.follow.put", n=n, piece=piece_label(p), space=sp) for sp, p, n in todo.added]
    items += [Message.t("tableref.table.follow.take", n=n, piece=piece_label(p), space=sp) for sp, p, n in todo.removed]
    message = Message.t("tableref.table.follow", changes=join_messages(items))
    return {"message": message.to_json(), "description": message.to_json(), "diff": todo.to_json()}


def resume_follow(table: Table) -> None:
    """After a restart: follow again what the last entry's rules moved (ends at once if the table matches)."""
    s = table.session
    if not s.entries or s.entries[-1].kind != MOVE:
        return
    state = s.game.setup(s.setup)
    try:
        for e in s.entries[:-1]:
            for m in e.moves:
                state = s.game.apply_unchecked(state, m)
    except Exception:  # noqa: BLE001 -- the session replayed it already; nothing to follow if not
        return
    follow(table, state, s.entries[-1].moves, publish=False)


def piece_label(piece: Any) -> Message:
    """A piece's name ("yellow family member") as the tag registry gives it, else owner and kind as given."""
    try:
        from hardware.tag_registry import describe
    except ImportError:  # the Pi-side hardware package is not installed: owner and kind as they are
        return Message.t("name.as_given", name=f"{piece.owner} {piece.kind}")
    return describe(piece)
