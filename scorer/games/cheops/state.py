"""Cheops game state: one immutable value of small tuples indexed like the pyramid and the colours."""

from __future__ import annotations

from dataclasses import dataclass

from scorer.core.results import Termination
from scorer.core.types import Message
from scorer.games.cheops.data import CheopsBoard, PriceTable, PriceTables

# What lies on a pyramid space (``content``): a treasure colour index 0-5, a law, or nothing.
EMPTY = -1
LAW_HIDDEN = 100  # a face-down law whose number the referee does not know
LAW_BASE = 100  # LAW_BASE + n: law n, known to the referee


def law_code(n: int) -> int:
    return LAW_BASE + n


def is_law(code: int) -> bool:
    return code >= LAW_BASE


def is_treasure(code: int) -> bool:
    return 0 <= code < LAW_BASE


# What covers a space (``tile``): no tile, a family face 0-3, or a neighbour.
NO_TILE = -1
NEIGHBOUR_TILE = 4

HAND_SIZE = 4
NEIGHBOUR_PRICE = 20
LAW9_PRICE = 25
LAW7_VALUE = 20
MARKET_PRICE = {0: 10, 1: 5, 2: 15}  # market law in force (0 = none) -> price

CAT_CASH = "cash"
CAT_JOKER = "joker"


@dataclass(frozen=True, slots=True)
class CheopsRules:
    """Variants: the other readings of the rules notes' ambiguities (rules/cheops.md 12).

    Every flag false is the recommended reading. ``start_cash`` (C9) and ``neighbours`` (C10)
    are numeric options; ``track_tiles`` says whether the three stacks' order is known.
    """

    end_after_turn: bool = False  # C2: the game ends at the end of the triggering turn, not at once
    end_on_first_pass: bool = False  # C3: the game ends as soon as a player passes
    end_when_blocked: bool = False  # C3: the game ends once no player can place, without the closing round of passes
    save_neighbour: bool = False  # C4: a bought neighbour may be kept for a later turn
    neighbours_may_touch: bool = False  # C5: neighbour tiles may be adjacent to each other
    x_own_count: bool = False  # C6: "X n" counts the holder's own treasures, not all players'
    single_holder_not_majority: bool = False  # C7: a colour's only holder gets the larger number
    jokers_not_counted: bool = False  # C8: the law-9 joker does not count toward majorities / X counts
    market_laws_stack: bool = False  # C12: an overridden law 1/2 stays in play beneath the newer one
    law4_full_keep: bool = False  # C13: once its table is full, a law-4 colour is kept instead of sold for 0
    law11_support: bool = False  # C16: law 11 still obeys the support rule
    law12_laws: bool = False  # C17: law 12 may also swap a face-down law on the pyramid
    tiebreak_cash: bool = False  # C19: a tie for richest goes to the tied player with more cash
    value_last_covered: bool = False  # C21: end value is the last covered entry, not the topmost uncovered
    law11_extra: bool = False  # C22: law 11 is an extra placement, not a replacement for step B
    law8_face_up_only: bool = False  # E1: law 8 may not remove a face-down law still on the pyramid
    start_cash: int = 0  # C9
    neighbours: int = 4  # C10
    track_tiles: bool = False

    VARIANTS = (
        "end_after_turn",
        "end_on_first_pass",
        "end_when_blocked",
        "save_neighbour",
        "neighbours_may_touch",
        "x_own_count",
        "single_holder_not_majority",
        "jokers_not_counted",
        "market_laws_stack",
        "law4_full_keep",
        "law11_support",
        "law12_laws",
        "tiebreak_cash",
        "value_last_covered",
        "law11_extra",
        "law8_face_up_only",
    )


@dataclass(frozen=True, slots=True)
class Effect:
    """Something the rules did by themselves during the last move (a table filled, the game ended)."""

    kind: str
    message: Message


@dataclass(frozen=True, slots=True)
class CheopsState:
    board: CheopsBoard
    catalog: PriceTables
    players: tuple[str, ...]
    rules: CheopsRules
    tables: tuple[PriceTable, ...]  # [colour] the price table on that column
    content: tuple[int, ...]  # [space] EMPTY, treasure colour, or law code
    tile: tuple[int, ...]  # [space] NO_TILE, face 0-3, NEIGHBOUR_TILE
    placer: tuple[int, ...]  # [space] player index who covered it, or -1
    covered: tuple[int, ...]  # [colour] scarabs on the price table
    sold_for_nothing: tuple[int, ...]  # [colour] law-4 scarabs "sold" for 0 on a full table (C13)
    table_law: tuple[int, ...]  # [colour] law 4-7 attached, or 0
    market_laws: tuple[int, ...]  # laws 1/2 in play, oldest first; the last sets the price (C12)
    law3: bool
    revealed: tuple[int, ...]  # law numbers taken off the pyramid (their identity is public)
    out_of_play: tuple[int, ...]  # law numbers discarded, used or removed
    cash: tuple[int, ...]
    kept: tuple[tuple[int, ...], ...]  # [player][colour]
    held: tuple[tuple[int, ...], ...]  # [player] laws kept for later (10-12) or paid (9)
    saved_neighbours: tuple[int, ...]  # [player] (variant save_neighbour)
    hands: tuple[tuple[int, ...] | None, ...]  # [player] count per face, or None when not known
    hand_size: tuple[int, ...]
    stacks: tuple[tuple[int, ...], ...] | None  # tracked: faces bottom..top (top = last)
    stack_size: tuple[int, int, int]
    stack_faces: tuple[int, ...] | None  # faces left in the three stacks together, None when unknown
    neighbours_left: int
    active: int = 0
    turn_number: int = 0
    passes_in_row: int = 0
    finished: Termination | None = None
    unchecked_passes: int = 0
    unchecked_faces: int = 0
    laws_declared: int = 0
    effects: tuple[Effect, ...] = ()

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def colours(self) -> tuple[str, ...]:
        return self.board.colours

    def player_index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            return -1

    def market_price(self) -> int:
        return MARKET_PRICE[self.market_laws[-1] if self.market_laws else 0]

    def table_full(self, colour: int) -> bool:
        return self.covered[colour] >= self.tables[colour].capacity

    def full_tables(self) -> int:
        return sum(1 for c in range(len(self.tables)) if self.table_full(c))

    def tables_to_end(self) -> int:
        return 3 if self.law3 else 2
