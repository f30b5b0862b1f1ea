"""Read a sensed board as Great Wall moves (sensors report positions; the rules infer moves).

What the sensors see per section (``section-1`` .. ``section-4``): the cards of the row as
``Piece(<colour>, <kind>)``, a dragon as ``Piece(<colour>, "dragon")`` while the card under it stays
on the board, the face-up tokens as ``Piece("neutral", "token-<v>")`` and a first token lying on a
card as ``Piece(<colour>, "token-<v>")``. Draws, hands and the score piles are not seen: draws and
passes come in as declared moves, never from ``explain``.

The difference between the expected and the sensed board is read as the input the state awaits:
a ``Reveal`` (neutral tokens appearing at a cleared section), a ``Claim`` (a neutral token turned
into the active player's token), or one or two ``Play`` moves of the active player (a set of
identical cards in one section, plus a free cavalry play). Which card a dragon lies on is not
visible to an RFID pad, so each possible target is offered as a reading, the most valuable first.
Anything else is residual: noise to wait out, the table catching up with an automatic effect
(a won section still to be cleared), or an illegal change to flag.
"""

from __future__ import annotations

from itertools import combinations, permutations

from scorer.core.game import Explanation
from scorer.core.types import Board, BoardDiff, Message, Piece, SpaceId, Violation
from scorer.games.great_wall import rules
from scorer.games.great_wall.data import CAVALRY, DRAGON, KIND_INDEX
from scorer.games.great_wall.engine import GreatWallEngine
from scorer.games.great_wall.moves import CardRef, Claim, GreatWallMove, Play, Reveal, section_index, section_space
from scorer.games.great_wall.state import GreatWallState
from scorer.games.great_wall.values import BASE_VALUE, covered_set

MAX_READINGS = 12
Triple = tuple[SpaceId, Piece, int]


def _token_value(piece: Piece) -> int | None:
    if piece.kind.startswith("token-"):
        try:
            return int(piece.kind[len("token-"):])
        except ValueError:
            return None
    return None


def explain(game: GreatWallEngine, state: GreatWallState, sensed: Board) -> tuple[Explanation[GreatWallMove], ...]:
    expected = game.visible_board(state)
    diff = expected.diff(sensed)
    if not diff:
        return (Explanation(moves=(), complete=False),)
    if state.finished is not None:
        v = Violation("game.over", Message.t('great_wall.explain.the_game_is_over_but'))
        return (Explanation((), True, (v,), diff, 100.0),)
    awaiting = game.turn(state).awaiting
    added, removed = list(diff.added), list(diff.removed)
    pending = _pending_effects(state, added, removed)
    if awaiting == "token_reveal":
        out = _reveal_readings(state, added, removed, pending)
    elif awaiting == "claim_choice":
        out = _claim_readings(state, added, removed, pending)
    else:
        out = _play_readings(game, state, added, removed, pending)
    unique: dict[tuple, Explanation[GreatWallMove]] = {}
    for e in out:
        key = (e.moves, e.residual)
        if key not in unique or e.cost < unique[key].cost:
            unique[key] = e
    return tuple(sorted(unique.values(), key=lambda e: e.cost))[:MAX_READINGS]


def _cost(residual: BoardDiff, violations: tuple[Violation, ...] | list[Violation]) -> float:
    return 10.0 * len(violations) + sum(n for _, _, n in residual.added) + sum(n for _, _, n in residual.removed)


def _explanation(moves: tuple[GreatWallMove, ...], complete: bool, violations: list[Violation],
                 added: list[Triple], removed: list[Triple], pending: list[Violation], extra_cost: float = 0.0) -> Explanation[GreatWallMove]:
    residual = BoardDiff(tuple(sorted(added)), tuple(sorted(removed)))
    found = tuple(violations) + tuple(_noise(added, removed, pending))
    return Explanation(moves, complete, found, residual, _cost(residual, found) + extra_cost)


def _noise(added: list[Triple], removed: list[Triple], pending: list[Violation]) -> list[Violation]:
    """Violations for the unexplained rest: pending automatic effects first, then the rest."""
    out = list(pending) if (added or removed) else []
    if out:
        return out
    for space, piece, n in removed:
        out.append(Violation(
            "board.piece_removed",
            Message.t('great_wall.explain.s_disappeared_from_cards_and', n=n, owner=piece.owner, kind=piece.kind, space=space),
            (space,),
            Message.t('great_wall.explain.put_the_back_on', owner=piece.owner, kind=piece.kind, space=space),
        ))
    for space, piece, n in added:
        out.append(Violation(
            "board.unexpected_piece",
            Message.t('great_wall.explain.s_appeared_on_and_fit', n=n, owner=piece.owner, kind=piece.kind, space=space),
            (space,),
            Message.t('great_wall.explain.take_the_off', owner=piece.owner, kind=piece.kind, space=space),
        ))
    return out


def _pending_effects(state: GreatWallState, added: list[Triple], removed: list[Triple]) -> list[Violation]:
    """Sections the rules just cleared whose cards are still on the table."""
    out = []
    for e in state.effects:
        if e.kind != "section_cleared" or e.section is None:
            continue
        sp = section_space(e.section)
        if any(s == sp for s, _, _ in added) or any(s == sp for s, _, _ in removed):
            out.append(Violation(
                "table.clear_section",
                Message.t('great_wall.explain.has_been_won_take_all', sp=sp),
                (SpaceId(sp),),
                Message.t('great_wall.explain.clear_then_lay_out_its', sp=sp),
            ))
    return out


def _reveal_readings(state, added, removed, pending):
    out = []
    waiting = [section_space(i) for i, s in enumerate(state.sections) if s.awaiting_reveal]
    for sp in waiting:
        values = [(sp_, p, n) for sp_, p, n in added if sp_ == sp and p.owner == "neutral" and _token_value(p) is not None]
        if not values:
            continue
        tokens = tuple(sorted((_token_value(p) for _, p, n in values for _ in range(n)), reverse=True))  # type: ignore[misc]
        rest = [t for t in added if t not in values]
        need = min(2, len(state.supply))
        move = Reveal(sp, tokens[:need])
        found = [v for v in rules.violations(state, move) if v.rule != "reveal.count"] if len(tokens) < need else list(rules.violations(state, move))
        out.append(_explanation((move,), len(tokens) >= need, found, rest, removed, pending))
    if not out:
        out.append(_explanation((), False, [], added, removed, pending))
    return out


def _claim_readings(state, added, removed, pending):
    s = state.pending_claim
    sp = section_space(s)
    player = state.players[state.active]
    out = []
    for v in sorted(set(state.sections[s].tokens), reverse=True):
        gone = (SpaceId(sp), Piece("neutral", f"token-{v}"), 1)
        laid = (SpaceId(sp), Piece(player, f"token-{v}"), 1)
        r_removed = _take(removed, gone)
        if r_removed is None:
            continue
        r_added = _take(added, laid)
        move = Claim(player, sp, v)
        if r_added is None:
            out.append(_explanation((move,), False, [], added, r_removed, pending))  # picked up, not yet laid on a card
        else:
            out.append(_explanation((move,), True, list(rules.violations(state, move)), r_added, r_removed, pending))
    if not out:
        out.append(_explanation((), False, [], added, removed, pending))
    return out


def _take(items: list[Triple], one: Triple) -> list[Triple] | None:
    """``items`` minus one piece ``one`` (None if it is not there)."""
    out = []
    done = False
    for space, piece, n in items:
        if not done and space == one[0] and piece == one[1]:
            done = True
            if n > 1:
                out.append((space, piece, n - 1))
            continue
        out.append((space, piece, n))
    return out if done else None


def _play_readings(game, state, added, removed, pending):
    player = state.players[state.active]
    # cards at a section the rules just won that has no tokens now (the supply is empty): its old row still to be
    # cleared, not a play into a dead section
    won = {section_space(e.section) for e in state.effects
           if e.kind == "section_cleared" and e.section is not None and not state.sections[e.section].live}
    groups: dict[tuple[SpaceId, str], int] = {}
    rest: list[Triple] = []
    for space, piece, n in added:
        if piece.owner == player and piece.kind in KIND_INDEX and section_index(space) is not None and space not in won:
            groups[(space, piece.kind)] = groups.get((space, piece.kind), 0) + n
        else:
            rest.append((space, piece, n))
    if not groups:
        return [_explanation((), False, [], added, removed, pending)]
    keys = sorted(groups, key=lambda g: (g[1] != CAVALRY, g))
    out = []
    # Every order of the groups as consecutive plays (two actions and a free cavalry play at most);
    # a prefix of the order is a reading too, the other groups left as residual.
    for order in permutations(keys, min(len(keys), 3)):
        cur = state
        moves: tuple[GreatWallMove, ...] = ()
        for i, key in enumerate(order):
            if cur.finished is not None or game.turn(cur).active != (player,) or game.turn(cur).awaiting != "move":
                break
            readings = list(_plays(cur, player, key, groups[key]))
            legal = [r for r in readings if not r[1]]
            if not legal:
                mv_, found = readings[0]
                left = [(sp, Piece(player, kind), groups[(sp, kind)]) for sp, kind in keys if (sp, kind) not in order[: i + 1]]
                out.append(_explanation(moves + mv_, False, found, rest + left, removed, pending, 0.5 * i))
                break
            for r in legal[1:] if i == len(order) - 1 else ():
                left = [(sp, Piece(player, kind), groups[(sp, kind)]) for sp, kind in keys if (sp, kind) not in order[: i + 1]]
                out.append(_explanation(moves + r[0], _complete(cur, key, groups[key]) and not left, [], rest + left, removed, pending, 0.1))
            moves = moves + legal[0][0]
            complete = _complete(cur, key, groups[key])
            cur = game.apply_unchecked(cur, legal[0][0][0])
            complete = complete or cur.finished is not None or game.turn(cur).active != (player,) or game.turn(cur).awaiting != "move"
            left = [(sp, Piece(player, kind), groups[(sp, kind)]) for sp, kind in keys if (sp, kind) not in order[: i + 1]]
            out.append(_explanation(moves, complete and not left, [], rest + left, removed, pending))
    return out


def _plays(state: GreatWallState, player: str, key: tuple[SpaceId, str], k: int):
    """Readings of k cards of one kind put into one section (several for dragons: the target is not seen)."""
    sp, kind = key
    if kind != DRAGON:
        move = Play(player, sp, (kind,) * k)
        yield (move,), list(rules.violations(state, move))
        return
    s = section_index(sp)
    sec = state.sections[s] if s is not None and s < len(state.sections) else None
    if sec is None:
        move = Play(player, sp, (kind,) * k)
        yield (move,), list(rules.violations(state, move))
        return
    p = state.active
    covered = covered_set(sec.cards)
    ok = [i for i in range(len(sec.cards)) if not rules.dragon_target_ok(state, sec, p, i, covered)]
    # cards of the same owner and kind are alike for the score: one reading per distinct choice
    distinct: dict[tuple, tuple[int, ...]] = {}
    for combo in combinations(ok, k):
        sig = tuple(sorted((sec.cards[i].owner, sec.cards[i].kind) for i in combo))
        distinct.setdefault(sig, combo)
    readings = sorted(distinct.values(), key=lambda c: -sum(BASE_VALUE.get(sec.cards[i].kind, 1) for i in c))
    if not readings:
        move = Play(player, sp, (kind,) * k)
        yield (move,), list(rules.violations(state, move))
        return
    for combo in readings[:MAX_READINGS]:
        targets = tuple(CardRef(state.players[sec.cards[i].owner], sec.cards[i].kind) for i in combo)
        move = Play(player, sp, (kind,) * k, targets)
        yield (move,), list(rules.violations(state, move))


def _complete(state: GreatWallState, key: tuple[SpaceId, str], k: int) -> bool:
    """A set can still grow while the player could hold more cards of the kind."""
    p = state.active
    kind = key[1]
    if state.hands is not None:
        return state.hands[p][KIND_INDEX[kind]] <= k
    more_in_deck = state.deck.count(kind) - state.played[p][KIND_INDEX[kind]] > k
    return state.hand_sizes[p] <= k or not more_in_deck


__all__ = ["explain"]
