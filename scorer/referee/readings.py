"""Pure helpers of the reconciler over moves and boards: an override's offset applied and removed,
whether one reading is (a part of) another (an undone move read again from the table), tapped cards
attached to a move, what no reading explains named as violations, readings ordered by when their
pieces appeared, and the legal move the table cannot show (China's card exchange)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, Sequence

from scorer.core.game import Explanation, Game
from scorer.core.types import Board, BoardDiff, Message, Piece, SpaceId, Violation
from scorer.referee.stabiliser import StableView


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


# a reading that contradicts what a sensor saw of how a piece lies is dearer than a game's own
# preference among readings that explain the same pieces (The Great Wall's other dragon targets:
# +0.1 each) and cheaper than one piece left unexplained (1.0)
SEEN_COST = 0.5


def _by_appearance(explanations: Sequence[Explanation], view: StableView,
                   game: Game | None = None, state: Any = None) -> list[Explanation]:
    """Most likely first: lowest cost, each thing that contradicts what a sensor saw of how the
    pieces lie (with ``game``: ``Game.seen_disagreements``, which card a dragon covers) costing
    ``SEEN_COST`` more, then the reading whose pieces appeared earliest (in a burst of turns the
    first player's pieces were put down first)."""
    seen = view.seen_by_space() if game is not None else {}

    def contradicted(e: Explanation) -> int:
        return game.seen_disagreements(state, e.moves, seen) if seen and game is not None else 0

    def latest(e: Explanation) -> float:
        # a game's placements may be other values than pieces on spaces (Zhang Yi: (area, strength))
        spaces = [sp for m in e.moves for p in (getattr(m, "placements", None) or ())
                  if isinstance(sp := getattr(p, "space", None), str)]
        return max((view.appeared(s) for s in spaces), default=0.0)

    return sorted(explanations, key=lambda e: (e.cost + SEEN_COST * contradicted(e), latest(e)))


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


__all__ = ["apply_offset", "compose_offsets", "invisible_move", "is_part_of", "remove_offset", "shows_part_of",
           "unexplained_violations", "with_cards"]
