"""Ming game state: one immutable value of tuples of ints indexed like the board.

Owners are player indices ``0..n-1`` plus ``n`` for the neutral colour (used only in the
2-player game). Cards in hand are known only as far as they were declared: see ``Hand``.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.core.fastcopy import make_evolve
from scorer.core.types import Message
from scorer.games.ming.board import MingBoard

FAMILY_PER_PLAYER = 31  # one is the score marker
SUPPLY_START = 30
FAMILY_PER_ROUND = 5
HAND_LIMIT = 5
MAX_DEPLOY = 3
NEUTRAL_MAX_PER_DISTRICT = 3
ROUNDS = 6
SCORING_ROUNDS = (2, 4, 6)
EMPTY = -1
UNKNOWN = -1  # a display card nobody declared

PLAYER_COLOURS = ("yellow", "green", "blue", "red")

# Phases, in the order a round runs them (plus set-up and the end).
PH_PRINCES = "prince_placement"
PH_NEUTRAL = "neutral_placement"
PH_SPACES = "province_spaces"
PH_CARDS = "movement_cards"
PH_MOVE = "move_and_deploy"
PH_SCORING = "scoring"
PH_ROUND_END = "round_end"
PH_OVER = "over"

# Scoring sub-steps for one province (4.2).
ST_NEUTRAL_FIRST = "neutral_first"  # variant neutral_before_returns
ST_COMMIT = "commit"
ST_SEND_BACK = "send_back"
ST_NEUTRAL = "neutral"

# Score categories, in display order.
CAT_SETS6, CAT_CITY, CAT_BONUS, CAT_CLOISTERS, CAT_SETS5, CAT_TILES = "sets6", "city", "city_bonus", "cloisters", "sets5", "tiles"
CATEGORIES = (CAT_SETS6, CAT_CITY, CAT_BONUS, CAT_CLOISTERS, CAT_SETS5, CAT_TILES)


@dataclass(frozen=True, slots=True)
class MingRules:
    """Options: the recommended readings of rules/ming.md section 9 unless a variant names the other."""

    return_values: tuple[int, ...] = (0, 1, 2, 3)  # A1
    cards_required: bool = False  # every card taken and played must be declared
    dragon_any_member: bool = False  # A3 other reading: the dragon may cost anybody's family member
    strict_return_total: bool = False  # A5 other reading: returning more than you have is illegal
    bonus_tiebreak_fullest_area: bool = False  # A6 other reading
    neutral_before_returns: bool = False  # A8 other reading
    bonus_ignores_neutral: bool = False  # A9 other reading
    neutral_in_blocks: bool = False  # A20 other reading
    no_revisit: bool = False  # A12 other reading
    tiebreak_monks: bool = False  # A17 option: most monks breaks a final tie
    tiles_in_turn_order: bool = False  # A13 other reading: scarce tiles go clockwise from the start player
    neutral_per_player: int = 3  # A10
    return_values_provisional: bool = False  # the values came from a provisional data file

    VARIANTS = (
        "dragon_any_member",
        "strict_return_total",
        "bonus_tiebreak_fullest_area",
        "neutral_before_returns",
        "bonus_ignores_neutral",
        "neutral_in_blocks",
        "no_revisit",
        "tiebreak_monks",
        "tiles_in_turn_order",
    )


@dataclass(frozen=True, slots=True)
class Hand:
    """What the referee knows of one hand of movement and dragon cards.

    ``total`` is always exact (every take and play is seen or declared). ``lb[k]`` is how many
    cards of kind ``k`` (a transport symbol, or the dragon last) are certainly in the hand; the
    ``unknown`` rest are movement cards nobody declared -- or, once ``may_dragon`` is set by an
    undeclared play, possibly dragons too.
    """

    total: int
    lb: tuple[int, ...]
    may_dragon: bool = False

    @property
    def unknown(self) -> int:
        return self.total - sum(self.lb)

    @property
    def exact(self) -> bool:
        return self.unknown == 0


@dataclass(frozen=True, slots=True)
class Scoring:
    """Where the scoring of one province stands (4.2): whose return cards are awaited, who still
    has to say which city pieces go back, and the secret totals (revealed once all are in)."""

    province: int
    stage: str
    committers: tuple[int, ...] = ()
    commits: tuple[int, ...] = ()  # per player: declared total, or -1 while secret/not given
    to_send: tuple[int, ...] = ()  # per owner: pieces still to send back by choice
    chooser: int = -1  # the player awaited in the send-back stage


@dataclass(frozen=True, slots=True)
class Effect:
    """Something the rules did by themselves during the last move (majorities, points, round end)."""

    kind: str
    message: Message
    points: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class MingState:
    board: MingBoard
    players: tuple[str, ...]
    rules: MingRules
    round: int  # 0 during set-up
    phase: str
    start: int  # start player index
    active: int  # player to act in sequential phases
    supply: tuple[int, ...]  # family members in each player's personal supply
    in_hand: tuple[int, ...]  # family members in hand during phase 1
    spaces: tuple[tuple[int, ...], ...]  # [province][player] on the province spaces
    open: tuple[tuple[int, ...], ...]  # [district][owner] in the open area
    cloister: tuple[int, ...]  # [district] owner, or EMPTY
    city: tuple[tuple[int, ...], ...]  # [district][owner] in the district's city houses
    princes: tuple[int, ...]  # [player] district, or EMPTY before placement
    hands: tuple[Hand, ...]
    display: tuple[int, ...]  # [province] symbol index of the display card, or UNKNOWN
    tiles: tuple[tuple[int, ...], ...]  # [player][province colour]
    tile_supply: tuple[int, ...]  # [province colour]
    points: tuple[tuple[int, ...], ...]  # [player][category]
    boxed: tuple[int, ...]  # [owner] family members out of the game
    passed: tuple[bool, ...] = ()
    queue: tuple[int, ...] = ()  # neutral placement: players still to place, in order
    scoring: Scoring | None = None
    chooser: int = EMPTY  # 4 players, after rounds 4 and 5: who picks the start player
    finished: bool = False
    unverified_cards: int = 0  # cards played whose identity could not be checked
    undeclared_payments: int = 0  # prince moves/stays whose cards nobody declared
    declared_returns: int = 0  # return-card commitments (declared)
    declared_choices: int = 0  # start-player choices (declared)
    effects: tuple[Effect, ...] = ()

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def neutral(self) -> int:
        """Owner index of the neutral colour."""
        return len(self.players)

    @property
    def two_player(self) -> bool:
        return len(self.players) == 2

    def player_index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            return -1

    def monks(self, player: int) -> int:
        return sum(1 for o in self.cloister if o == player)

    def city_in_province(self, province: int) -> list[int]:
        """Family members per owner in the province's city (all three district areas)."""
        out = [0] * (self.n + 1)
        for d in self.board.province_districts[province]:
            for o, k in enumerate(self.city[d]):
                out[o] += k
        return out

    def on_spaces(self, player: int) -> int:
        return sum(row[player] for row in self.spaces)

    def dragon_supply(self) -> tuple[int, int]:
        """(fewest, most) dragon cards that can be left in the dragon supply."""
        d = self.board.dragon_kind
        certain = sum(h.lb[d] for h in self.hands)
        possible = certain + sum(h.unknown for h in self.hands if h.may_dragon)
        return max(0, self.board.dragons - possible), self.board.dragons - certain


evolve = make_evolve(MingState)
