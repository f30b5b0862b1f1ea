"""The referee's commands: what a person asks of the table, each answered with a ``CommandResult``.

Turn done, a card tapped, undo (armed by the button, confirmed within ``UNDO_ARM_SECONDS``),
confirm, override, a declaration, a new game and the answers to an inferred move order. ``Table``
keeps one method per command (its public API) and delegates here; these functions take the
``tableref.table.Table`` explicitly and run on its worker thread like the rest of the referee.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from scorer.core.types import IllegalMove, InvalidRecord, Message
from scorer.referee.reconciler import AcceptMove, CloseReason, Reconciler, SignalRefused, remove_offset
from tableref.service import CommandResult
from tableref.session import Session
from tableref.table_decisions import handle
from tableref.table_events import SIGNAL
from tableref.table_follow import follow
from tableref.texts import join_messages

if TYPE_CHECKING:
    from tableref.table import Table

UNDO_ARM_SECONDS = 10.0


def ok(message: Message, **data: Any) -> CommandResult:
    return CommandResult(True, message, dict(data))


def refused(message: Message, **data: Any) -> CommandResult:
    return CommandResult(False, message, dict(data))


def signal(table: Table, reason: CloseReason, card: str | None = None) -> CommandResult:
    """A turn closed by a person (the turn-done button, a card tapped on the reader)."""
    if table.session.is_over():
        return refused(Message.t('tableref.table.the_game_is_over'))
    before = table.session.seq
    if card is None:
        table.reconciler.signal(reason, table.clock())
    else:
        table.reconciler.tap_card(card, table.clock())
    decisions = table.step()
    for d in decisions:
        if isinstance(d, SignalRefused):
            return refused(d.message)
    if table.session.seq != before and any(isinstance(d, AcceptMove) for d in decisions):
        desc = table.session.entries[-1].moves
        text = [table.session.game.describe_move(m) for m in desc]
        return ok(Message.t("tableref.table.turn_closed", moves=join_messages(text)))
    if card is not None:
        return ok(Message.t("tableref.table.card_noted", card=card), cards=list(table.reconciler.cards))
    return ok(Message.t("tableref.table.turn_closes_when_still"))


def undo(table: Table, actor: str, authorised: bool) -> CommandResult:
    others = table.reconciler.reading is not None and not table.reconciler.reading.takeback
    why = table.session.undo_refusal(authorised, others)
    if why is not None:
        return refused(why)
    game = table.session.game
    table_before = game.visible_board(table.session.state)
    undone_moves = table.session.entries[-1].moves
    table.session.record_undo(actor, authorised)
    table.undo_armed_at = None
    undone = table.session.undo_wait or ()
    for d in table.reconciler.after_undo(undone):
        handle(table, d)
    if not undone:
        table.reconciler.suppressed = None
    # the rules had moved pieces by themselves after the undone move: they go back the same way
    follow(table, table.session.state, undone_moves, also=(table_before,))
    table.step()
    return ok(Message.t("tableref.table.move_taken_back"))


def arm_undo(table: Table, actor: str) -> CommandResult:
    """The undo button: arm; the confirm button within 10 s carries it out."""
    why = table.session.undo_refusal(False, table.reconciler.reading is not None and not table.reconciler.reading.takeback)
    if why is not None:
        table.bus.publish(SIGNAL, {"ok": False, "reason": "undo", "message": why.to_json(), "description": why.to_json(),
                                   "actor": actor}, table.clock())
        return refused(why)
    table.undo_armed_at = table.clock()
    table.publish_state()
    return ok(Message.t("tableref.table.press_confirm_to_undo"))


def confirm(table: Table, actor: str) -> CommandResult:
    """The confirm button: carry out an armed undo, else silence the buzzer of an open flag."""
    if table.undo_armed_at is not None and table.clock() - table.undo_armed_at <= UNDO_ARM_SECONDS:
        table.undo_armed_at = None
        return table.undo(actor, authorised=False)
    table.undo_armed_at = None
    if table.reconciler.flag is not None:
        table.alert_silenced = True
        table.publish_state()
        return ok(Message.t("tableref.table.buzzer_silenced"))
    return refused(Message.t('tableref.table.nothing_to_confirm'))


def override(table: Table, actor: str, authorised: bool) -> CommandResult:
    """Accept the table as it stands (admin PIN), with an audit entry."""
    if not authorised:
        return refused(Message.t('tableref.table.an_override_needs_the_admin'))
    s = table.session
    game = s.game
    now = table.clock()
    table.view = table.stabiliser.view(now)
    board = table.view.merged_with(s.expected_table())
    engine_board = remove_offset(board, s.offset)
    if engine_board == game.visible_board(s.state) and table.reconciler.flag is None:
        return refused(Message.t('tableref.table.the_table_already_matches_the'))
    flag = table.reconciler.flag
    forced: tuple[Any, ...] = ()
    if flag is not None and flag.moves:
        forced = flag.moves
    elif table.reconciler.reading is not None:
        forced = table.reconciler.reading.moves
    state = s.state
    try:
        for m in forced:
            state = game.apply_unchecked(state, m)
    except Exception:  # a reading the engine cannot represent: keep it all as an offset
        forced, state = (), s.state
    delta = game.visible_board(state).diff(engine_board)
    s.record_override(forced, delta, actor, flag)
    for d in table.reconciler.reset("override"):
        handle(table, d)
    table.step()
    return ok(Message.t("tableref.table.table_accepted_as_it_stands"),
              forced=[game.move_to_json(m) for m in forced], offset=delta.to_json())


def declare(table: Table, move: Mapping[str, Any], actor: str) -> CommandResult:
    """A declared input the sensors cannot see (China: a card exchange, the pile running out)."""
    s = table.session
    try:
        parsed = s.game.move_from_json(move)
    except InvalidRecord as exc:
        return refused(Message.t('tableref.table.cannot_read_the_declaration', exc=exc))
    if getattr(parsed, "placements", None):
        return refused(Message.t('tableref.table.pieces_are_read_from_the'))
    on_table = table.reconciler.reading is not None or table.reconciler.flag is not None
    if on_table and not shows(table, parsed):
        # a declaration may complete the move the table shows (what the sensors cannot see: draws,
        # a kept treasure, a law's number ...), but never contradict it
        return refused(Message.t('tableref.table.finish_or_clear_what_is'))
    before = s.state
    try:
        s.record_move((parsed,), "declared", actor, player=getattr(parsed, "player", None))
    except IllegalMove as exc:
        v = exc.violations[0]
        return refused(v.message, violations=[x.to_json() for x in exc.violations])
    if on_table:
        for d in table.reconciler.reset("corrected"):
            handle(table, d)
    follow(table, before, (parsed,))
    table.step()
    return ok(Message.t("tableref.table.declared", move=s.game.describe_move(parsed)))


def shows(table: Table, move: Any) -> bool:
    """The settled table is exactly the engine's board after ``move`` (the move it shows)."""
    s = table.session
    table.view = table.stabiliser.view(table.clock())
    if table.view.busy:
        return False
    sensed = remove_offset(table.view.merged_with(s.expected_table()), s.offset)
    try:
        after = s.game.apply_unchecked(s.state, move)
    except Exception:  # a move the engine cannot apply here shows nothing
        return False
    return s.game.visible_board(after) == sensed


def new_game(table: Table, setup: Mapping[str, Any], actor: str, authorised: bool) -> CommandResult:
    s = table.session
    if s.entries and not s.is_over() and not authorised:
        return refused(Message.t('tableref.table.a_game_is_in_progress'))
    setup = dict(setup)
    game_id = str(setup.pop("game", s.game.id))
    try:
        from scorer.core.registry import get_game
        from scorer.core.schema import validate

        validate(setup, get_game(game_id).setup_schema(), "setup")
        if not s.is_over():
            s.abandon(actor)
        new = Session.start(table.store, game_id, setup, clock=table.clock, wall=table.wall,
                            publish=table._publish_stored, actor=actor)
    except (InvalidRecord, KeyError) as exc:
        return refused(Message.t('tableref.table.cannot_start_that_game', exc=exc))
    table.session = new
    table._seen = table._seen_note = None
    table.reconciler = Reconciler(new.game, table.settings.reconciler)
    table._game_cache = None
    table.undo_armed_at = None
    table.step()
    return ok(Message.t("tableref.table.new_game_started", game_no=new.game_no), game_no=new.game_no)


def confirm_order(table: Table, group: int, actor: str) -> CommandResult:
    """A person confirms the order the referee inferred for a group of moves."""
    if group not in table.session.provisional:
        return refused(Message.t('tableref.table.no_move_order_waits_for'))
    table.session.confirm_order(group, actor)
    table.publish_state()
    return ok(Message.t("tableref.table.order_confirmed"))


def choose_order(table: Table, group: int, index: int, actor: str) -> CommandResult:
    """A person says the moves were played in another order: the group's moves are replaced by
    that order's (the table itself is unchanged), and the game replays from there."""
    p = table.session.provisional.get(group)
    if p is None or not 0 <= index < len(p.alternatives):
        return refused(Message.t('tableref.table.no_such_order_to_choose'))
    try:
        table.session.change_order(group, index, actor)
    except IllegalMove as exc:
        v = exc.violations[0]
        return refused(Message.t('tableref.table.the_later_moves_are_not', message=v.message))
    table._game_cache = None
    for d in table.reconciler.reset("corrected"):
        handle(table, d)
    table.step()
    return ok(Message.t("tableref.table.order_changed"))
