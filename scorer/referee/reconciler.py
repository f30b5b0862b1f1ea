"""Read the stable table as moves: the most likely *legal* explanation wins over the literal one.

The reconciler compares the stable view (``scorer.referee.stabiliser``) with the board the rules
engine expects, asks the game to explain the difference (``Game.explain``) and decides:

* the table matches the engine -> nothing to do (an open flag is cleared: the table was put right);
* a legal reading exists -> it is the *pending* move. The turn closes when
  - an explicit signal arrives (turn-done button, dashboard, a card tapped on the reader),
  - the reading is complete (the move cannot grow) and stayed on the table ``complete_grace`` s,
  - the next player's piece appears (the rest of the table is then a legal start of their turn),
  - nothing changed for ``quiet_timeout`` s (an incomplete move the player left as it is);
  a reading that is legal only as the start of a move (The Great Wall: one token revealed where two
  are due) is then flagged (``FlagKind.UNFINISHED``, the rule it breaks as it stands), not recorded;
* no legal reading -> a ``Flag`` naming the rule(s) broken, the spaces and the fix, raised as soon
  as the involved spaces are stable, cleared as soon as the table is legal again.

Once the game is over the table is no longer read: clearing it raises no flag.

After an undo the undone move's pieces are still on the table; the reconciler then *waits for the
table to match*: reading the undone move (or a part of it) again is shown as "take these back",
never re-accepted, until the table matches the engine or the player does something else.

When the table shows several turns at once (a source was offline, the referee was down, a fast
burst), the first turn is chosen by *when* its pieces appeared: the reading whose pieces all came
before every piece left for the following turns (the sensor board keeps its change times across an
outage). Where the times cannot tell (they tie: a source that came back with everything at once)
and more than one order explains the table, the referee does not pick silently: the move it
accepts carries an ``OrderQuestion`` -- the inferred order and the alternatives -- and the session
keeps such moves provisional until a person confirms or chooses another order.

A turn with nothing visible (China's card exchange) is closed only by an explicit signal; the
move is then the game's invisible legal move. An out-of-turn piece is never read as "the active
player must have exchanged".

When the rules move pieces by themselves (Ming's scoring: majorities into the city, pieces sent
back, the city emptied into the box), the table lags the engine until the players have carried
that out: the reconciler then *follows* (``Follow``): a table anywhere on the way from the board
the move itself left to the engine's board is neither read nor flagged, until it matches.

A piece a source read without its value (``token-?``: a Great Wall token whose print is a blur)
takes the value the engine expects there (``scorer.core.unvalued``); where that is ambiguous (the
token was just claimed or revealed) the space is not read until a value is read or declared. A
piece the engine has under another that hides it from above (``Game.hidden_under``: China's
fortress under a house) is kept there when a sensor reads the cover alone (``scorer.core.hidden``),
and so is one the table showed placed this turn before its cover went on (``SeenThisTurn``). A
marker the rules never move (``Game.fixed_spaces``: Cheops' dot scarabs) is taken to be where the
state has it, whatever a sensor reads there (``scorer.core.fixed``).

``offset`` (a ``BoardDiff``) is what an authorised override accepted on the table beyond the
engine's board: the table is expected to be ``visible_board(state)`` plus the offset.

Pure: no I/O, no threads, time comes in as ``now``. The reconciler keeps only the transient
tracking (pending reading, open flag, armed signal, undo wait); the game state belongs to the
session that applies the accepted moves. Its values (settings, readings, flags, decisions) are in
``scorer.referee.decisions``, its pure helpers over moves and boards in ``scorer.referee.readings``;
both are importable from here too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from scorer.core.game import Explanation, Game
from scorer.core.types import Board, BoardDiff, Message, Violation
from scorer.core.fixed import keep_fixed
from scorer.core.hidden import SeenThisTurn, restore as restore_hidden
from scorer.core.unvalued import resolve as resolve_unvalued
from scorer.referee.decisions import (AcceptMove, ClearFlag, CloseReason, Decision, Flag, FlagKind, Follow, OrderQuestion,
                                      RaiseFlag, Reading, ReadingChanged, ReconcilerSettings, SignalRefused, Step,
                                      TableMatched)
from scorer.referee.readings import (_by_appearance, _placements, apply_offset, compose_offsets, invisible_move, is_part_of,
                                     remove_offset, shows_part_of, unexplained_violations, with_cards)
from scorer.referee.stabiliser import StableView


@dataclass(slots=True)
class _Signal:
    reason: CloseReason
    at: float


def _player_of(game: Game, state: Any) -> str | None:
    active = game.turn(state).active
    return active[0] if len(active) == 1 else None


# -- the reconciler ---------------------------------------------------------------------------

class Reconciler:
    """Decides, from one stable view at a time, what happened on the table (see module doc)."""

    def __init__(self, game: Game, settings: ReconcilerSettings | None = None) -> None:
        self.game = game
        self.settings = settings or ReconcilerSettings()
        self.flag: Flag | None = None
        self.reading: Reading | None = None
        self.suppressed: tuple[Any, ...] | None = None
        self.cards: list[str] = []
        self._signal: _Signal | None = None
        self._busy_since: float | None = None
        self._last_change = 0.0
        self.follow: Follow | None = None  # the table catching up with what the rules moved by themselves
        self._hidden_seen = SeenThisTurn()  # hideable pieces seen placed this turn (a fortress, then a house on it)

    # -- commands -------------------------------------------------------------------------
    def signal(self, reason: CloseReason, now: float) -> None:
        """Arm an explicit close signal; the next ``evaluate`` uses it (or refuses it)."""
        self._signal = _Signal(reason, now)

    def tap_card(self, card: str, now: float) -> None:
        """A card tapped on the reader: it is part of this turn's payment and a close signal."""
        self.cards.append(card)
        self._signal = _Signal(CloseReason.CARD, now)

    def after_undo(self, undone: Sequence[Any]) -> list[Decision]:
        """Wait for the undone move's pieces to come off; never re-read them as a move."""
        out: list[Decision] = []
        self.suppressed = tuple(undone)
        self.follow = None
        self._set_reading(None, out)
        self._clear_flag("undo", out)
        self.cards.clear()
        self._signal = None
        return out

    def follow_boards(self, boards: Sequence[Board]) -> None:
        """The rules moved pieces by themselves: the table may go through ``boards`` (the board the
        move left, the engine's board) -- and stay where an earlier follow left it -- without a flag."""
        self.follow = Follow.between(boards, self.follow)

    def reset(self, reason: str = "reset") -> list[Decision]:
        """Forget all tracking (after an override or a new game)."""
        out: list[Decision] = []
        self._set_reading(None, out)
        self._clear_flag(reason, out)
        self.suppressed = self.follow = None
        self._hidden_seen = SeenThisTurn()
        self.cards.clear()
        self._signal = None
        return out

    # -- the decision -----------------------------------------------------------------------
    def evaluate(self, state: Any, view: StableView, now: float, offset: BoardDiff = BoardDiff()) -> list[Decision]:
        out: list[Decision] = []
        game = self.game
        busy = self._busy(view, now)
        signal = self._signal
        if signal is not None and now - signal.at > self.settings.signal_ttl and busy:
            self._signal = signal = None
            out.append(SignalRefused(CloseReason.TURN_DONE, Message.t('referee.reconciler.the_table_did_not_settle')))
        self._last_change = view.changed_at
        expected = game.visible_board(state)
        sensed = remove_offset(view.merged_with(apply_offset(expected, offset)), offset)
        # pieces a source saw without their value (a token's blurred print) take the value the state
        # expects there; where that is ambiguous the space keeps the expected content (not read)
        sensed, _unread = resolve_unvalued(sensed, expected)
        # ... and a piece the engine has under another that hides it (a fortress under a house) is still there,
        # as is one the table showed placed this turn before a cover went on it
        hides = game.hidden_under()
        sensed = self._hidden_seen.apply(restore_hidden(sensed, expected, hides), expected, hides)
        # ... and what lies on a marker's space (Cheops' dots) is what the state has there, whatever is read
        sensed = keep_fixed(sensed, expected, game.fixed_spaces(state))
        player = _player_of(game, state)

        if game.outcome(state) is not None:
            # the game is over: the players may clear the table; nothing is read or flagged any more
            self._set_reading(None, out)
            self._clear_flag("corrected", out)
            self.suppressed = None
            self._refuse_signal(out, Message.t('referee.reconciler.the_game_is_over'))
            return out

        if sensed == expected:
            self._set_reading(None, out)
            self._clear_flag("corrected", out)
            ended = self.suppressed is not None
            self.suppressed = None
            if self.follow is not None and self.follow.seen(view.known):
                self.follow, ended = None, True  # (a space nobody sees yet, after a restart, matches by default)
            if ended:
                out.append(TableMatched())
            if signal is not None and not busy and now - signal.at >= self.settings.signal_grace - 1e-6:
                # nothing appeared within the grace: the turn really had nothing visible
                self._signal = None
                move = invisible_move(game, state)
                if move is None:
                    out.append(SignalRefused(signal.reason, Message.t('referee.reconciler.nothing_to_close_place_your')))
                else:
                    self.cards.clear()
                    out.append(AcceptMove((move,), signal.reason, player))
            return out

        explanations = _by_appearance(game.explain(state, sensed), view, game, state)
        legal = [e for e in explanations if e.legal and e.moves]
        if legal:
            return self._legal(state, legal[0], player, view, now, busy, out)

        if self.follow is not None and self.follow.covers(sensed):
            # the players are still carrying out what the rules moved: nothing to read or flag yet
            self._set_reading(None, out)
            self._clear_flag("corrected", out)
            self._refuse_signal(out, Message.t("referee.reconciler.follow_first"))
            return out

        if self.suppressed is None:
            found = self._next_player_closes(state, sensed, explanations, view)
            if found is not None:
                if busy:
                    return out
                closing, question = found
                self._clear_flag("corrected", out)
                self._set_reading(None, out)
                moves = tuple(with_cards(m, self.cards) for m in closing.moves)
                if self.cards and any(game.violations(state, m) for m in moves):
                    moves = closing.moves  # cards that do not pay this move stay unattached
                self.cards.clear()
                self._signal = None
                out.append(AcceptMove(moves, CloseReason.NEXT_PLAYER, player, question))
                return out

        flag = self._flag_from(explanations, player, now)
        involved = set(flag.spaces)
        if (involved & set(view.occluded) or view.unsettled) and busy:
            # a hand is still over the spaces in question, or pieces are still settling anywhere (one
            # move's pieces settle one space after another: a prince lifted off one district is
            # settled before the same prince put down in the next is): wait for the table to settle
            return out
        self._set_reading(None, out)
        self._raise(flag, out)
        self._refuse_signal(out, Message.t("referee.reconciler.not_legal_yet", message=flag.message))
        return out

    def _legal(self, state: Any, best: Explanation, player: str | None, view: StableView, now: float, busy: bool,
               out: list[Decision]) -> list[Decision]:
        game = self.game
        takeback = self.suppressed is not None and (
            is_part_of(best.moves, self.suppressed)
            or (_placements(best.moves) is None and shows_part_of(game, state, best.moves, self.suppressed)))
        reading = Reading(player, best.moves, best.complete, now, takeback, tuple(self.cards))
        self._set_reading(reading, out)
        signal = self._signal
        if takeback:
            if signal is None or busy:
                self._clear_flag("corrected", out)
                return out
            self.suppressed = None  # an explicit signal accepts (a part of) the undone move again
        elif self.suppressed is not None:
            self.suppressed = None  # the player moved on to something else
            out.append(TableMatched())
        moves = tuple(with_cards(m, self.cards) for m in best.moves)
        unpaid: tuple[Violation, ...] = ()
        if self.cards:
            unpaid = tuple(v for m in moves for v in game.violations(state, m))
        if self.flag is not None and self.flag.kind == FlagKind.CARDS:
            if not self.cards and self.flag.moves == best.moves:
                return out  # still waiting for cards that pay (or an override)
            if not unpaid:
                self._clear_flag("corrected", out)
        elif self.flag is not None and self.flag.kind == FlagKind.UNFINISHED and self.flag.moves == best.moves:
            return out  # still the same unfinished move: finish it or take it back
        elif self.flag is not None:
            self._clear_flag("corrected", out)
        assert self.reading is not None
        reason: CloseReason | None = None
        quiet_since = max(self.reading.since, view.changed_at)
        if busy:
            reason = None
        elif signal is not None:
            reason = signal.reason
            if reason == CloseReason.CARD and unpaid:
                self._signal = reason = None  # more cards may follow: not paid yet
        elif self.settings.close_on_complete and best.complete and now - self.reading.since >= self.settings.complete_grace - 1e-6:
            reason = CloseReason.COMPLETE
        elif now - quiet_since >= self.settings.quiet_timeout - 1e-6:
            reason = CloseReason.QUIET
        if reason is None:
            return out
        self._signal = None
        # a reading legal only as a part of a move (a reveal of one token where two are due) closed as it stands
        # would be an illegal move: say which rule it breaks instead of recording it
        unfinished = () if self.cards else tuple(v for m in moves for v in game.violations(state, m))
        if unfinished:
            spaces = tuple(dict.fromkeys(s for v in unfinished for s in v.spaces))
            self._raise(Flag(FlagKind.UNFINISHED, unfinished, spaces, player, now, best.moves), out)
            return out
        if unpaid:
            self.cards.clear()
            flag = Flag(FlagKind.CARDS, unpaid, tuple(dict.fromkeys(s for v in unpaid for s in v.spaces)), player, now, best.moves)
            self._raise(flag, out)
            return out
        self.cards.clear()
        self._set_reading(None, out)
        out.append(AcceptMove(moves, reason, player))
        return out

    def _next_player_closes(self, state: Any, sensed: Board, explanations: Sequence[Explanation],
                            view: StableView) -> tuple[Explanation, OrderQuestion | None] | None:
        """A legal move of the active player after which the rest of the table is explained by the
        following players' legal moves (one or several: a fast burst of turns).

        The appearance times decide first: the one reading whose pieces all appeared before every
        piece left for later turns. Failing that, every reading that leads to a full explanation
        is found; more than one means the order is inferred, and a question goes with the move."""
        depth = self.settings.max_chain - 1
        stones = self._stepping_stones(state, explanations, self.settings.order_candidates)
        timed = []
        for e in stones:
            if self._before_the_rest(state, e, view):
                after = self._after(state, e)
                if after is not None and self._explainable(after, sensed, depth):
                    timed.append(e)
        if len(timed) == 1:
            return timed[0], None
        chains: list[tuple[Step, ...]] = []
        for e in sorted(stones, key=lambda x: x not in timed):  # a reading the times favour first
            after = self._after(state, e)
            rest = None if after is None else self._chain(after, sensed, depth)
            if rest is not None:
                chains.append((Step(_player_of(self.game, state), e.moves, e.complete),) + rest)
                if len(chains) > self.settings.order_alternatives:
                    break
        if not chains:
            return None
        first = next(e for e in stones if e.moves == chains[0][0].moves)
        if len(chains) == 1:
            return first, None
        return first, OrderQuestion(chains[0], tuple(chains[1:]))

    def _before_the_rest(self, state: Any, e: Explanation, view: StableView) -> bool:
        """Every piece this reading puts down appeared (by the sources' times) before every piece
        the following turns put down; False when a time is missing or too close to tell."""
        after = self._after(state, e)
        if after is None:
            return False
        mine = {s for s, _p, _n in self.game.visible_board(state).diff(self.game.visible_board(after)).added}
        rest = {s for s, _p, _n in e.residual.added} - mine
        if not mine or not rest:
            return False
        t_mine = [view.appeared_at(s) for s in mine]
        t_rest = [view.appeared_at(s) for s in rest]
        if any(t is None for t in t_mine + t_rest):
            return False
        return max(t_mine) < min(t_rest) - self.settings.order_epsilon  # type: ignore[type-var]

    def _chain(self, state: Any, sensed: Board, depth: int) -> tuple[Step, ...] | None:
        """The turns (first found) that take ``state`` to the sensed table, or None."""
        game = self.game
        if game.visible_board(state) == sensed:
            return ()
        explanations = game.explain(state, sensed)
        for x in explanations:
            if x.legal and x.moves:
                return (Step(_player_of(game, state), x.moves, x.complete),)
        if depth <= 0:
            return None
        for e in self._stepping_stones(state, explanations):
            after = self._after(state, e)
            rest = None if after is None else self._chain(after, sensed, depth - 1)
            if rest is not None:
                return (Step(_player_of(game, state), e.moves, e.complete),) + rest
        return None

    def _stepping_stones(self, state: Any, explanations: Sequence[Explanation], limit: int | None = None) -> list[Explanation]:
        """Readings whose moves are legal by themselves and leave something for the next players."""
        out = []
        limit = self.settings.chain_branching if limit is None else limit
        for e in explanations:
            if e.moves and e.residual and not any(self.game.violations(state, m) for m in e.moves):
                out.append(e)
            if len(out) >= limit:
                break
        return out

    def _after(self, state: Any, e: Explanation) -> Any | None:
        try:
            for m in e.moves:
                state = self.game.apply_unchecked(state, m)
        except Exception:  # a reading the engine cannot apply is simply not this case
            return None
        return None if self.game.outcome(state) is not None else state

    def _explainable(self, state: Any, sensed: Board, depth: int) -> bool:
        game = self.game
        if game.visible_board(state) == sensed:
            return True
        explanations = game.explain(state, sensed)
        if any(x.legal and x.moves for x in explanations):
            return True
        if depth <= 0:
            return False
        for e in self._stepping_stones(state, explanations):
            after = self._after(state, e)
            if after is not None and self._explainable(after, sensed, depth - 1):
                return True
        return False

    def _flag_from(self, explanations: Sequence[Explanation], player: str | None, now: float) -> Flag:
        named = [e for e in explanations if e.violations]
        if named:
            best = min(named, key=lambda e: e.cost)
            violations = best.violations
            covered = {s for v in violations for s in v.spaces}
            extra = BoardDiff(
                tuple(x for x in best.residual.added if x[0] not in covered),
                tuple(x for x in best.residual.removed if x[0] not in covered),
            )
            violations = violations + unexplained_violations(extra)
        else:
            best = min(explanations, key=lambda e: e.cost)
            violations = unexplained_violations(best.residual) or (Violation(
                "board.unexplained", Message.t('referee.reconciler.the_table_does_not_match')),)
        spaces = tuple(dict.fromkeys([s for v in violations for s in v.spaces] + list(best.residual.spaces)))
        return Flag(FlagKind.ILLEGAL, violations, spaces, player, now, best.moves, best.residual)

    # -- bookkeeping --------------------------------------------------------------------------
    def _busy(self, view: StableView, now: float) -> bool:
        if not view.busy:
            self._busy_since = None
            return False
        if self._busy_since is None:
            self._busy_since = now
        return now - self._busy_since < self.settings.max_busy

    def _set_reading(self, reading: Reading | None, out: list[Decision]) -> None:
        if reading is None:
            if self.reading is not None:
                self.reading = None
                out.append(ReadingChanged(None))
            return
        if reading.same(self.reading):
            assert self.reading is not None
            if reading.cards != self.reading.cards:
                self.reading = dataclasses.replace(self.reading, cards=reading.cards)
                out.append(ReadingChanged(self.reading))
            return
        self.reading = reading
        out.append(ReadingChanged(reading))

    def _raise(self, flag: Flag, out: list[Decision]) -> None:
        if self.flag is None:
            self.flag = flag
            out.append(RaiseFlag(flag))
        elif self.flag.key != flag.key:
            self.flag = dataclasses.replace(flag, raised_at=self.flag.raised_at)
            out.append(RaiseFlag(self.flag, update=True))

    def _clear_flag(self, reason: str, out: list[Decision]) -> None:
        if self.flag is not None:
            out.append(ClearFlag(self.flag, reason))
            self.flag = None

    def _refuse_signal(self, out: list[Decision], message: Message) -> None:
        if self._signal is not None:
            out.append(SignalRefused(self._signal.reason, message))
            self._signal = None
            self.cards.clear()

    def next_deadline(self, now: float) -> float | None:
        """When a timed decision (grace, quiet timeout, busy cap, signal expiry) is next due."""
        times = []
        if self.reading is not None and not self.reading.takeback:
            if self.reading.complete and self.settings.close_on_complete:
                times.append(self.reading.since + self.settings.complete_grace)
            times.append(max(self.reading.since, self._last_change) + self.settings.quiet_timeout)
        if self._busy_since is not None:
            times.append(self._busy_since + self.settings.max_busy)
        if self._signal is not None:
            times.append(self._signal.at + self.settings.signal_ttl)
            times.append(self._signal.at + self.settings.signal_grace)
        future = [t for t in times if t > now - 1e-9]
        return min(future) if future else None


# the values and helpers moved to their own modules are still importable from here
__all__ = ["AcceptMove", "ClearFlag", "CloseReason", "Decision", "Flag", "FlagKind", "Follow", "OrderQuestion", "RaiseFlag",
           "Reading", "ReadingChanged", "Reconciler", "ReconcilerSettings", "SignalRefused", "Step", "TableMatched",
           "apply_offset", "compose_offsets", "invisible_move", "is_part_of", "remove_offset", "shows_part_of",
           "unexplained_violations", "with_cards"]
