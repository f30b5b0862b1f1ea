"""Great Wall game state: one immutable value (tuples of small values indexed by player/section)."""

from __future__ import annotations

from dataclasses import dataclass, field

from scorer.core.results import Termination
from scorer.core.types import Message
from scorer.games.great_wall.data import DeckSpec
from scorer.games.great_wall.values import Card, Valuation

# Score categories, in display order: tokens won as the remaining (second) token of a section, and
# first tokens that went from a card to the pile when their section was cleared.
CAT_FIRST, CAT_SECOND = "first_tokens", "second_tokens"
CATEGORIES = (CAT_FIRST, CAT_SECOND)


@dataclass(frozen=True, slots=True)
class GreatWallRules:
    """Referee options for the rules notes' ambiguities (rules/great-wall.md 6) and card tracking.

    Every flag defaults to the recommended reading; setting one selects the other reading.
    """

    claim_on_tie: bool = False  # amb. 1: claim with progress >= every other player (the seed's literal "大于或等于")
    noble_point_cards_only: bool = False  # amb. 3: a noble sets only walls, gates and towers to 1
    noble_opponents_only: bool = False  # amb. 3: a noble sets only the other players' cards to 1
    soldiers_square: bool = False  # amb. 4: each of n soldiers is worth n (n squared in all)
    covered_soldier_keeps_place: bool = False  # engine decision E2: a covered soldier still counts in the 1, 2, 3 order
    dragon_any_target: bool = False  # amb. 5: a dragon may cover any card of the section, own or token-holding
    cavalry_single_card: bool = False  # amb. 6: the free cavalry play is a single card
    final_check_announcer_only: bool = False  # amb. 7: when play returns to the announcer only they check
    voluntary_pass: bool = False  # amb. 8: an action may be passed at will
    claim_without_cards: bool = False  # amb. 11: a player without cards may take a section's remaining token
    first_token_exception_literal: bool = False  # amb. 12: the exception is judged only when the first token is taken
    track_cards: bool = False  # decks, hands and the token supply simulated from the seed (or given orders)

    VARIANTS = (
        "claim_on_tie",
        "noble_point_cards_only",
        "noble_opponents_only",
        "soldiers_square",
        "covered_soldier_keeps_place",
        "dragon_any_target",
        "cavalry_single_card",
        "final_check_announcer_only",
        "voluntary_pass",
        "claim_without_cards",
        "first_token_exception_literal",
    )

    @property
    def valuation(self) -> Valuation:
        return Valuation(self.noble_point_cards_only, self.noble_opponents_only, self.soldiers_square,
                         self.covered_soldier_keeps_place)


@dataclass(frozen=True, slots=True)
class Section:
    """One wall section: its face-up tokens, its row of cards, and the first token lying on a card."""

    tokens: tuple[int, ...] = ()  # face-up tokens beside the row (0, 1 or 2)
    cards: tuple[Card, ...] = ()
    claimed_owner: int = -1  # player whose first token lies on one of their cards here
    claimed_value: int = 0
    claimed_card: int = -1  # row index of the card the token lies on
    # The first token lies on the engine's default card (nobody named one: equal tokens, or a claim
    # without ``on``); until the claimant's turn ends a ``claim`` may name the card, among the first
    # ``unnamed_claim`` cards of the row (those there when it was laid). -1: named, or too late.
    unnamed_claim: int = -1
    exception: int = -1  # player who took the first token alone (first-token exception), until their next check
    awaiting_reveal: bool = False  # cleared; a new pair must be revealed (untracked supply)

    @property
    def live(self) -> bool:
        """Tokens to win here: cards may be played to it."""
        return bool(self.tokens)

    @property
    def dead(self) -> bool:
        """Cleared with an empty supply: nothing can happen here any more (ambiguity 9)."""
        return not self.tokens and self.claimed_owner < 0 and not self.awaiting_reveal

    def has_cards(self, player: int) -> bool:
        return any(c.owner == player for c in self.cards)


@dataclass(frozen=True, slots=True)
class Effect:
    """Something the rules did by themselves during the last move (a claim, a clearing, the end)."""

    kind: str
    message: Message
    player: str | None = None
    section: int | None = None
    tokens: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GreatWallState:
    players: tuple[str, ...]
    rules: GreatWallRules
    deck: DeckSpec
    sections: tuple[Section, ...]
    supply: tuple[int, ...]  # face-down tokens: in reveal order when tracked, else sorted (a multiset)
    boxed: tuple[int, ...]  # 2-player equal pairs put back in the box
    first_tokens: tuple[tuple[int, ...], ...]  # [player] -> first tokens that reached the score pile
    second_tokens: tuple[tuple[int, ...], ...]  # [player] -> remaining tokens won
    hand_sizes: tuple[int, ...]
    deck_sizes: tuple[int, ...]
    played: tuple[tuple[int, ...], ...]  # [player][kind] cards played so far (deck-mix check)
    hands: tuple[tuple[int, ...], ...] | None = None  # tracked: [player][kind] counts
    decks: tuple[tuple[str, ...], ...] | None = None  # tracked: [player] cards, top first
    active: int = 0
    turn_number: int = 0
    actions_done: int = 0
    free_used: bool = False
    checking: bool = True  # the current check (start of a turn, or a final check) is not finished
    check_cursor: int = 0  # next section the current check looks at
    pending_claim: int = -1  # section waiting for the checker's choice of first token
    last_round_by: int = -1  # player who announced the last round
    final_checks_done: int = -1  # -1 outside the final checks; else players checked so far
    finished: Termination | None = None
    declared_passes: int = 0
    idle_turns: int = 0  # consecutive turns in which nothing changed (stalemate guard, decision E6)
    turn_busy: bool = False
    draw_cards_unchecked: int = 0
    effects: tuple[Effect, ...] = field(default=())

    @property
    def n(self) -> int:
        return len(self.players)

    def player_index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            return -1

    @property
    def in_final_checks(self) -> bool:
        return self.final_checks_done >= 0

    @property
    def awaiting_reveal(self) -> int:
        """Index of the first section waiting for a reveal, or -1."""
        for i, s in enumerate(self.sections):
            if s.awaiting_reveal:
                return i
        return -1

    def score_of(self, player: int) -> int:
        return sum(self.first_tokens[player]) + sum(self.second_tokens[player])
