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

``offset`` (a ``BoardDiff``) is what an authorised override accepted on the table beyond the
engine's board: the table is expected to be ``visible_board(state)`` plus the offset.

Pure: no I/O, no threads, time comes in as ``now``. The reconciler keeps only the transient
tracking (pending reading, open flag, armed signal, undo wait); the game state belongs to the
session that applies the accepted moves.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Sequence

from scorer.core.game import Explanation, Game
from scorer.core.types import Board, BoardDiff, Message, Piece, SpaceId, Violation
from scorer.referee.stabiliser import StableView


class CloseReason(StrEnum):
    COMPLETE = "complete"  # a complete move stayed on the table for the grace time
    TURN_DONE = "turn_done"  # the turn-done button or the dashboard
    CARD = "card"  # cards tapped on the reader paid for the move
    NEXT_PLAYER = "next_player"  # the next player's piece appeared
    QUIET = "quiet_timeout"  # an incomplete move stayed unchanged for the quiet timeout


class FlagKind(StrEnum):
    ILLEGAL = "illegal"  # the table shows something no legal move explains
    CARDS = "cards"  # the cards tapped do not pay for the pieces on the table
    UNFINISHED = "unfinished"  # a move shown only in part, that is no legal move as it stands, was left so (timeout, signal)


@dataclass(frozen=True, slots=True)
class ReconcilerSettings:
    complete_grace: float = 1.0
    quiet_timeout: float = 10.0
    max_busy: float = 5.0  # a space unsettled longer than this no longer holds decisions back
    signal_ttl: float = 5.0  # an explicit signal waits this long for the table to settle
    signal_grace: float = 1.0  # turn done on an unchanged table waits this long for pieces still being sensed
    close_on_complete: bool = True
    max_chain: int = 6  # how many turns ahead a burst of moves is followed
    chain_branching: int = 3  # readings tried per turn when following a burst
    order_candidates: int = 12  # first-turn readings compared when several turns are on the table at once
    order_alternatives: int = 3  # other orders offered with a question
    order_epsilon: float = 0.05  # seconds: appearance times closer than this do not tell an order

    def __post_init__(self) -> None:
        for name in ("complete_grace", "quiet_timeout", "max_busy", "signal_ttl", "signal_grace"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")


@dataclass(frozen=True, slots=True)
class Reading:
    """A legal (possibly partial) move the table shows right now, not yet accepted."""

    player: str | None
    moves: tuple[Any, ...]
    complete: bool
    since: float
    takeback: bool = False  # the pieces of an undone move, waiting to come off the table
    cards: tuple[str, ...] = ()

    def same(self, other: "Reading | None") -> bool:
        return other is not None and (self.moves, self.takeback, self.complete) == (other.moves, other.takeback, other.complete)


@dataclass(frozen=True, slots=True)
class Flag:
    """The table is illegal: which rules, which spaces, what to do. ``moves``/``residual`` are the
    reading used to name the rules (an override forces exactly this reading)."""

    kind: FlagKind
    violations: tuple[Violation, ...]
    spaces: tuple[SpaceId, ...]
    player: str | None
    raised_at: float
    moves: tuple[Any, ...] = ()
    residual: BoardDiff = field(default_factory=BoardDiff)

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.kind, tuple((v.rule, v.spaces) for v in self.violations), self.residual)

    @property
    def message(self) -> Message:
        return self.violations[0].message

    @property
    def fix(self) -> Message | None:
        for v in self.violations:
            if v.fix:
                return v.fix
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "violations": [v.to_json() for v in self.violations],
            "spaces": list(self.spaces),
            "player": self.player,
            "raised_at": self.raised_at,
            "message": self.message.to_json(),
            "fix": self.fix.to_json() if self.fix else None,
            "residual": self.residual.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Follow:
    """The rules moved pieces by themselves: per (space, piece) the counts the table may show on
    its way to the engine's board (between the board the move itself left and the engine's, and
    any earlier such boards the table had not caught up with)."""

    bounds: tuple[tuple[SpaceId, Piece, int, int], ...]  # (space, piece, fewest, most)

    @classmethod
    def between(cls, boards: Sequence[Board], earlier: "Follow | None" = None) -> "Follow":
        cells: dict[tuple[SpaceId, Piece], list[int]] = {}
        keys = {(s, p) for b in boards for s in b.spaces() for p in b.pieces(s)}
        keys |= {(s, p) for s, p, _lo, _hi in (earlier.bounds if earlier else ())}
        for key in keys:
            counts = [b.pieces(key[0]).get(key[1], 0) for b in boards]
            cells[key] = [min(counts), max(counts)]
        for s, p, lo, hi in (earlier.bounds if earlier else ()):
            cells[(s, p)] = [min(lo, cells[(s, p)][0]), max(hi, cells[(s, p)][1])]
        return cls(tuple(sorted((s, p, lo, hi) for (s, p), (lo, hi) in cells.items() if hi > lo or hi > 0)))

    def seen(self, known: Any) -> bool:
        """Every space the rules moved pieces on is seen by some source."""
        return all(s in known for s, _p, lo, hi in self.bounds if lo != hi)

    def covers(self, board: Board) -> bool:
        """``board`` is on the way: every count within its bounds, nothing anywhere else."""
        known = {(s, p): (lo, hi) for s, p, lo, hi in self.bounds}
        for space in board.spaces():
            for piece, n in board.pieces(space).items():
                lo, hi = known.get((space, piece), (0, 0))
                if not lo <= n <= hi:
                    return False
        counts = board.as_dict()
        return all(counts.get(s, Counter())[p] >= lo for s, p, lo, _hi in self.bounds)


# -- decisions (what the session must do) ------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Step:
    """One turn of a burst read off the table: who, which move(s), whether it can still grow."""

    player: str | None
    moves: tuple[Any, ...]
    complete: bool = True


@dataclass(frozen=True, slots=True)
class OrderQuestion:
    """Several orders of turns explain the table and the appearance times do not tell which:
    ``chosen`` is the order the referee inferred (its first step is being accepted now),
    ``alternatives`` the other orders, each a full reading of the same table."""

    chosen: tuple[Step, ...]
    alternatives: tuple[tuple[Step, ...], ...]


@dataclass(frozen=True, slots=True)
class AcceptMove:
    moves: tuple[Any, ...]
    reason: CloseReason
    player: str | None
    order: OrderQuestion | None = None  # set when the order of a burst of turns was inferred


@dataclass(frozen=True, slots=True)
class RaiseFlag:
    flag: Flag
    update: bool = False  # an open flag changed (another rule, other spaces)


@dataclass(frozen=True, slots=True)
class ClearFlag:
    flag: Flag
    reason: str  # "corrected" (table put right), "override", "undo", "reset"


@dataclass(frozen=True, slots=True)
class ReadingChanged:
    reading: Reading | None


@dataclass(frozen=True, slots=True)
class TableMatched:
    """The table matches the engine again after an undo."""


@dataclass(frozen=True, slots=True)
class SignalRefused:
    reason: CloseReason
    message: Message


Decision = AcceptMove | RaiseFlag | ClearFlag | ReadingChanged | TableMatched | SignalRefused


@dataclass(slots=True)
class _Signal:
    reason: CloseReason
    at: float


# -- helpers -----------------------------------------------------------------------------------

def apply_offset(board: Board, offset: BoardDiff) -> Board:
    """The engine's board plus what an override accepted (removals clamp at zero)."""
    cells = board.as_dict()
    for space, piece, n in offset.added:
        cells.setdefault(space, Counter())[piece] += n
    for space, piece, n in offset.removed:
        c = cells.setdefault(space, Counter())
        c[piece] = max(0, c[piece] - n)
    return Board.from_counts(cells)


def remove_offset(board: Board, offset: BoardDiff) -> Board:
    """The sensed table translated back to what the engine should see."""
    return apply_offset(board, BoardDiff(offset.removed, offset.added))


def compose_offsets(first: BoardDiff, second: BoardDiff) -> BoardDiff:
    """An offset equal to applying ``first`` then ``second`` to an empty-based reference."""
    net: Counter[tuple[SpaceId, Piece]] = Counter()
    for diff in (first, second):
        for s, p, n in diff.added:
            net[(s, p)] += n
        for s, p, n in diff.removed:
            net[(s, p)] -= n
    added = tuple(sorted((s, p, n) for (s, p), n in net.items() if n > 0))
    removed = tuple(sorted((s, p, -n) for (s, p), n in net.items() if n < 0))
    return BoardDiff(added, removed)


def _player_of(game: Game, state: Any) -> str | None:
    active = game.turn(state).active
    return active[0] if len(active) == 1 else None


def _placements(moves: Sequence[Any]) -> Counter[Any] | None:
    """The multiset of what a move put on the table, if the move says (``placements``)."""
    out: Counter[Any] = Counter()
    for m in moves:
        items = getattr(m, "placements", None)
        if items is None:
            return None
        out.update(items)
    return out


def is_part_of(moves: Sequence[Any], whole: Sequence[Any]) -> bool:
    """``moves`` put down nothing but (some of) what ``whole`` put down."""
    if tuple(moves) == tuple(whole):
        return True
    a, b = _placements(moves), _placements(whole)
    if a is None or b is None:
        return False
    return all(b[k] >= n for k, n in a.items())


def shows_part_of(game: Any, state: Any, moves: Sequence[Any], whole: Sequence[Any]) -> bool:
    """What ``moves`` change on the visible board is (some of) what ``whole`` changed there.

    For moves that do not list their placements: the undone move read again from the table lacks
    what no sensor sees (Cheops' tile drawn, a declared choice), so it never equals the move that
    was undone, yet it is that move's pieces still lying on the table."""
    before = game.visible_board(state)

    def changes(ms: Sequence[Any]) -> tuple[Counter[Any], Counter[Any]]:
        after = state
        for m in ms:
            after = game.apply_unchecked(after, m)
        d = before.diff(game.visible_board(after))
        return Counter({(sp, pc): n for sp, pc, n in d.added}), Counter({(sp, pc): n for sp, pc, n in d.removed})

    (added, removed), (all_added, all_removed) = changes(moves), changes(whole)
    if not (added or removed):
        return False
    return all(all_added[k] >= n for k, n in added.items()) and all(all_removed[k] >= n for k, n in removed.items())


def with_cards(move: Any, cards: Sequence[str]) -> Any:
    """Attach tapped cards to a move that has a ``cards`` field (China's ``Place``)."""
    if cards and dataclasses.is_dataclass(move) and any(f.name == "cards" for f in dataclasses.fields(move)):
        return dataclasses.replace(move, cards=tuple(cards))
    return move


def unexplained_violations(residual: BoardDiff) -> tuple[Violation, ...]:
    """Name what no rule reading covers, with the obvious fix."""
    out = []
    for space, piece, n in residual.added:
        out.append(Violation(
            "board.unexplained",
            Message.t('referee.reconciler.s_on_that_no_legal', n=n, owner=piece.owner, kind=piece.kind, space=space),
            (space,),
            Message.t('referee.reconciler.take_the_off', owner=piece.owner, kind=piece.kind, space=space),
        ))
    for space, piece, n in residual.removed:
        out.append(Violation(
            "board.unexplained",
            Message.t('referee.reconciler.s_missing_from', n=n, owner=piece.owner, kind=piece.kind, space=space),
            (space,),
            Message.t('referee.reconciler.put_the_back_on', owner=piece.owner, kind=piece.kind, space=space),
        ))
    return tuple(out)


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

        explanations = _by_appearance(game.explain(state, sensed), view)
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


def _by_appearance(explanations: Sequence[Explanation], view: StableView) -> list[Explanation]:
    """Most likely first: lowest cost, then the reading whose pieces appeared earliest (in a burst of
    turns the first player's pieces were put down first)."""
    def latest(e: Explanation) -> float:
        # a game's placements may be other values than pieces on spaces (Zhang Yi: (area, strength))
        spaces = [sp for m in e.moves for p in (getattr(m, "placements", None) or ())
                  if isinstance(sp := getattr(p, "space", None), str)]
        return max((view.appeared(s) for s in spaces), default=0.0)

    return sorted(explanations, key=lambda e: (e.cost, latest(e)))


def invisible_move(game: Game, state: Any, limit: int = 20000) -> Any | None:
    """A legal move that leaves the visible board unchanged (China: a card exchange), if any."""
    before = game.visible_board(state)
    for i, move in enumerate(game.legal_moves(state)):
        if i >= limit:
            break
        if getattr(move, "placements", None):
            continue
        try:
            if game.visible_board(game.apply_unchecked(state, move)) == before:
                return move
        except Exception:
            continue
    return None
