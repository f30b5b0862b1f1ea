"""Read a sensed board as (part of) a Cheops turn. Sensors report positions; the rules infer moves.

What the table shows during a turn: a family tile or a neighbour appears on a pyramid space and
the treasure or face-down law under it disappears; a sold scarab appears on its colour's price
table; a law 4-7 appears under a table; a law 8 makes one disappear from under a table or a
face-down one from an open pyramid space; law 12 moves treasures between open pyramid spaces;
law 10 puts a kept scarab on a table. What the table does not show -- a kept treasure (it goes
in front of the player), the number of a law that is not attached to a table, laws 1-3, 8
(unless it removes an attached law or one on the pyramid), 9-12 taken, a pass, the
tiles drawn -- stays open in the explanation: the move carries ``law=None`` where a number is
needed (the rules then report ``law.undeclared``) and no draws, and the runtime asks the player.

Readings are ranked by cost: 10 per violation plus 1 per unexplained piece.
"""

from __future__ import annotations

from collections import Counter

from scorer.core.game import Explanation
from scorer.core.types import Board, BoardDiff, Message, Piece, SpaceId, Violation
from scorer.games.cheops import rules
from scorer.games.cheops.data import SPACE_INDEX
from scorer.games.cheops.engine import CheopsEngine
from scorer.games.cheops.moves import BuyNeighbour, PlaceTile, Step, Take, Turn, UseLaw10, UseLaw11, UseLaw12
from scorer.games.cheops.state import LAW9_PRICE, LAW_BASE, LAW_HIDDEN, CheopsState, is_treasure

NEUTRAL = "neutral"
PARTIAL_OK = ("turn.no_step_b",)


def normalise(sensed: Board) -> Board:
    """Sensors may name owners or a face-down law's number; the engine compares kinds only."""
    cells: dict[str, Counter[Piece]] = {}
    for space, piece, n in sensed.items():
        kind = piece.kind
        if space in SPACE_INDEX and kind.startswith("law"):
            kind = "law"  # face down on the pyramid
        cells.setdefault(space, Counter())[Piece(NEUTRAL, kind)] += n
    return Board.from_counts(cells)


def explain(game: CheopsEngine, state: CheopsState, sensed: Board) -> tuple[Explanation[Turn], ...]:
    expected = game.visible_board(state)
    diff = expected.diff(normalise(sensed))
    if not diff:
        return (Explanation(moves=(), complete=False),)
    if state.finished is not None:
        over = Violation("game.over", Message.t('cheops.explain.the_game_is_over_the'))
        return (Explanation((), True, (over,), diff, 100.0),)
    reading = _Reading(state, diff)
    candidates = [reading.build(order) for order in reading.orders()]
    unique: dict[tuple, Explanation[Turn]] = {}
    for c in candidates:
        key = (c.moves, c.residual)
        if key not in unique or c.cost < unique[key].cost:
            unique[key] = c
    return tuple(sorted(unique.values(), key=lambda e: e.cost))


class _Reading:
    """The sensed difference, sorted into what each kind of step would explain."""

    def __init__(self, state: CheopsState, diff: BoardDiff):
        self.state = state
        self.player = state.players[state.active]
        colours = state.colours
        self.tiles: list[tuple[str, str]] = []  # (space, "neighbour" | face)
        self.lifted: dict[str, Piece] = {}  # pyramid space -> piece gone from it
        self.dropped: dict[str, Piece] = {}  # open pyramid space -> piece newly on it (law 12)
        self.sold = Counter()  # colour -> scarabs added to its price table
        self.attached: dict[str, int] = {}  # colour -> law number newly under its table
        self.detached: dict[str, int] = {}  # colour -> law number gone from under its table
        self.other_added: list[tuple[SpaceId, Piece, int]] = []
        self.other_removed: list[tuple[SpaceId, Piece, int]] = []
        for space, piece, n in diff.added:
            if space in SPACE_INDEX and (piece.kind == "neighbour" or piece.kind.startswith("family-")) and n == 1:
                self.tiles.append((space, "neighbour" if piece.kind == "neighbour" else piece.kind.split("-", 1)[1]))
            elif space in SPACE_INDEX and n == 1 and state.tile[SPACE_INDEX[space]] == rules.NO_TILE:
                self.dropped[space] = piece
            elif space.startswith("price-") and space.endswith("-law") and piece.kind.startswith("law-") and n == 1:
                self.attached[space[len("price-"):-len("-law")]] = int(piece.kind.split("-")[1])
            elif space.startswith("price-") and space[len("price-"):] in colours and piece.kind == f"treasure-{space[len('price-'):]}":
                self.sold[space[len("price-"):]] += n
            else:
                self.other_added.append((space, piece, n))
        for space, piece, n in diff.removed:
            if space in SPACE_INDEX and n == 1 and piece.kind != "neighbour" and not piece.kind.startswith("family-"):
                self.lifted[space] = piece
            elif space.startswith("price-") and space.endswith("-law") and piece.kind.startswith("law-") and n == 1:
                self.detached[space[len("price-"):-len("-law")]] = int(piece.kind.split("-")[1])
            else:
                self.other_removed.append((space, piece, n))

    def orders(self) -> list[tuple[str, ...]]:
        """Which family tile is the step-B placement and which (if any) was placed by law 11."""
        family = [s for s, k in self.tiles if k != "neighbour"]
        holds11 = 11 in self.state.held[self.state.active]
        if not family:
            return [()]
        if len(family) == 1:
            return [("place",), ("law11",)] if holds11 else [("place",)]
        if len(family) == 2 and holds11:
            return [("place", "law11"), ("law11", "place")]
        return [("place",) * len(family)]

    def build(self, order: tuple[str, ...]) -> Explanation[Turn]:
        state = self.state
        sold = Counter(self.sold)
        attached = dict(self.attached)
        detached = dict(self.detached)
        lifted = dict(self.lifted)
        dropped = dict(self.dropped)
        residual_added = list(self.other_added)
        residual_removed = list(self.other_removed)
        steps: list[Step] = []
        family = [(s, k) for s, k in self.tiles if k != "neighbour"]
        neighbours = [(s, k) for s, k in self.tiles if k == "neighbour"]
        for space, _ in neighbours[1:]:
            residual_added.append((SpaceId(space), Piece(NEUTRAL, "neighbour"), 1))
        cash = state.cash[state.active]
        not_lifted: list[tuple[SpaceId, Piece, int]] = []
        if neighbours:
            space = neighbours[0][0]
            cash -= 20
            take = self._take(space, lifted, sold, attached, detached, cash, not_lifted)
            steps.append(BuyNeighbour(SpaceId(space), take))
        for (space, face), how in zip(family, order):
            take = self._take(space, lifted, sold, attached, detached, cash, not_lifted)
            cls = UseLaw11 if how == "law11" else PlaceTile
            steps.append(cls(face, SpaceId(space), take))
        for space, face in family[len(order):]:
            residual_added.append((SpaceId(space), Piece(NEUTRAL, f"family-{face}"), 1))
        # law 12: treasures moved between open spaces, or one swapped with a kept treasure
        moved = sorted(set(lifted) & set(dropped), key=SPACE_INDEX.__getitem__)
        if moved and 12 in state.held[state.active]:
            pair = None
            for a in moved:
                for b in moved:
                    if a < b and lifted[a] == dropped[b] and lifted[b] == dropped[a]:
                        pair = (a, b)
                        break
                if pair:
                    break
            if pair:
                steps.append(UseLaw12(pair[0], pair[1]))
                for s in pair:
                    lifted.pop(s)
                    dropped.pop(s)
            elif len(moved) >= 1 and dropped[moved[0]].kind.startswith("treasure-"):
                s = moved[0]
                steps.append(UseLaw12(s, f"kept:{dropped[s].kind.split('-', 1)[1]}"))
                lifted.pop(s)
                dropped.pop(s)
        # law 10: a scarab on a table that no placement accounts for
        if 10 in state.held[state.active]:
            for colour, k in list(sold.items()):
                if k > 0:
                    steps.append(UseLaw10(colour))
                    sold[colour] -= 1
                    break
        for space, piece in lifted.items():
            residual_removed.append((SpaceId(space), piece, 1))
        for space, piece in dropped.items():
            residual_added.append((SpaceId(space), piece, 1))
        for colour, k in sold.items():
            if k > 0:
                residual_added.append((SpaceId(f"price-{colour}"), Piece(NEUTRAL, f"treasure-{colour}"), k))
            elif k < 0:
                residual_removed.append((SpaceId(f"price-{colour}"), Piece(NEUTRAL, f"treasure-{colour}"), -k))
        for colour, n in attached.items():
            residual_added.append((SpaceId(f"price-{colour}-law"), Piece(NEUTRAL, f"law-{n}"), 1))
        for colour, n in detached.items():
            residual_removed.append((SpaceId(f"price-{colour}-law"), Piece(NEUTRAL, f"law-{n}"), 1))
        residual_added += not_lifted  # still on a space the move says was emptied: the player is not done
        residual = BoardDiff(tuple(sorted(residual_added)), tuple(sorted(residual_removed)))
        if not steps:
            return Explanation((), False, (), residual, cost=_cost(residual, ()))
        move = Turn(self.player, tuple(steps))
        complete = move.step_b is not None and not not_lifted
        found = tuple(v for v in rules.violations(state, move) if complete or v.rule not in PARTIAL_OK)
        if not complete and not found:
            try:
                rules.resolve(state, move, check=True, partial=True)
            except rules.TurnError as err:
                found = tuple(err.violations)
        return Explanation((move,), complete, found, residual, cost=_cost(residual, found))

    def _take(self, space: str, lifted: dict, sold: Counter, attached: dict, detached: dict, cash: int,
              not_lifted: list) -> Take:
        """What the tile on ``space`` took, as far as the table shows it."""
        state = self.state
        i = SPACE_INDEX[space]
        code = state.content[i]
        piece = lifted.pop(space, None)
        if code == rules.EMPTY:
            return Take()
        if piece is None:
            kind = f"treasure-{state.colours[code]}" if is_treasure(code) else "law"
            not_lifted.append((SpaceId(space), Piece(NEUTRAL, kind), 1))
        if is_treasure(code):
            colour = state.colours[code]
            if sold[colour] > 0:
                sold[colour] -= 1
                return Take(sell=True)
            return Take(sell=False)
        # a law: its number is known to the engine, or shows when it is attached under a table
        n = code - LAW_BASE if code != LAW_HIDDEN else None
        if n is None and len(attached) == 1:
            n = next(iter(attached.values()))
        if n is None:
            return Take(law=None)
        if n in (4, 5, 6, 7):
            for colour, m in list(attached.items()):
                if m == n:
                    attached.pop(colour)
                    return Take(law=n, table=colour)
            return Take(law=n, discard=True)
        if n == 8:
            if detached:
                colour, m = next(iter(detached.items()))
                detached.pop(colour)
                return Take(law=n, remove=m)
            covered = {s for s, _ in self.tiles}
            gone = [s for s, p in lifted.items() if p.kind == "law" and s not in covered]
            if len(gone) == 1 and not state.rules.law8_face_up_only:  # a face-down law lifted off the pyramid
                lifted.pop(gone[0])
                return Take(law=n, remove_space=SpaceId(gone[0]))
            return Take(law=n)  # the removed law is not on the board: to be declared
        if n == 9:
            return Take(law=n, discard=cash < LAW9_PRICE)
        return Take(law=n)


def _cost(residual: BoardDiff, violations) -> float:
    return 10.0 * len(violations) + sum(n for _, _, n in residual.added) + sum(n for _, _, n in residual.removed)
