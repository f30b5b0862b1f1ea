"""Province cards: payments (the 3-2-1 rule) and, when tracked, the pile, display and hands."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from typing import Any, Sequence

from scorer.core.types import InvalidRecord

PILE = "pile"


def payment_ok(cards: Sequence[str], province_colour: str, pieces: int) -> bool:
    """Can ``cards`` pay for ``pieces`` pieces in a province of ``province_colour``?

    A payment is one card of the province's colour, or a pair of equal cards of another colour.
    Every card must be used (rules/china.md 4.2).
    """
    if not 1 <= len(cards) <= 3:
        return False
    matching = 0
    others: dict[str, int] = {}
    for c in cards:
        if c == province_colour:
            matching += 1
        else:
            others[c] = others.get(c, 0) + 1
    pairs = 0
    for n in others.values():
        if n % 2:
            return False
        pairs += n // 2
    return matching + pairs == pieces


@lru_cache(maxsize=1)
def deck_spec() -> dict[str, Any]:
    return json.loads(resources.files("scorer.games.china").joinpath("deck.json").read_text("utf-8"))


def build_deck(players: int) -> list[str]:
    spec = deck_spec()
    removed = spec["removed_per_colour"].get(str(players))
    if removed is None:
        raise InvalidRecord(f"China is for 3 to 5 players, not {players}", where="setup.players")
    return [c for c, n in spec["card_counts"].items() for _ in range(n - removed)]


@dataclass(frozen=True, slots=True)
class CardState:
    """Cards as far as the engine tracks them. ``pile[-1]`` is the top card; display slots may be
    empty (None) only while the pile cannot refill them."""

    pile: tuple[str, ...]
    display: tuple[str | None, ...]
    discard: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    exhaustions: int
    seed: str

    @classmethod
    def deal(cls, players: int, seed: int | str, order: Sequence[str] | None = None) -> "CardState":
        spec = deck_spec()
        if order is None:
            deck = build_deck(players)
            random.Random(f"{seed}:deal").shuffle(deck)
        else:
            deck = list(order)
            if Counter(deck) != Counter(build_deck(players)):
                raise InvalidRecord("the deck order does not match the card counts for this player count", where="setup.deck")
        pile = deck[::-1]  # first card of the order is on top
        hands = []
        for _ in range(players):
            hands.append(tuple(sorted(pile.pop() for _ in range(spec["hand_size"]))))
        display = tuple(pile.pop() for _ in range(spec["display_size"]))
        return cls(tuple(pile), display, (), tuple(hands), 0, str(seed))


class _Pile:
    """Mutable working copy used while resolving one turn's card flow."""

    def __init__(self, cs: CardState):
        self.pile = list(cs.pile)
        self.display = list(cs.display)
        self.discard = list(cs.discard)
        self.hands = [list(h) for h in cs.hands]
        self.original_hands = cs.hands
        self.exhaustions = cs.exhaustions
        self.seed = cs.seed

    def _ran_out(self) -> None:
        """The pile just became empty: the first time the discards become the new pile (display
        cards stay out); the second time ends the game (ambiguity 20)."""
        self.exhaustions += 1
        if self.exhaustions == 1:
            self.pile = self.discard
            self.discard = []
            random.Random(f"{self.seed}:reshuffle").shuffle(self.pile)
            if not self.pile:
                self.exhaustions = 2

    def draw_pile(self) -> str | None:
        if not self.pile:
            return None
        card = self.pile.pop()
        if not self.pile and self.exhaustions < 2:
            self._ran_out()
        return card

    def can_take(self) -> bool:
        return bool(self.pile) or any(c is not None for c in self.display)

    def take(self, source: str) -> str | None:
        if source == PILE:
            return self.draw_pile()
        if source.startswith("display:"):
            slot = int(source.split(":", 1)[1])
            if 0 <= slot < len(self.display) and self.display[slot] is not None:
                card, self.display[slot] = self.display[slot], None
                return card
        return None

    def refill_display(self) -> None:
        for i, c in enumerate(self.display):
            if c is None and self.pile:
                self.display[i] = self.draw_pile()

    def freeze(self, changed: int | None = None) -> CardState:
        """Back to an immutable value; only the ``changed`` hand is re-sorted when given."""
        if changed is None:
            hands = tuple(tuple(sorted(h)) for h in self.hands)
        else:
            hands = self.original_hands[:changed] + (tuple(sorted(self.hands[changed])),) + self.original_hands[changed + 1 :]
        return CardState(tuple(self.pile), tuple(self.display), tuple(self.discard), hands, self.exhaustions, self.seed)


def hand_has(hand: Sequence[str], cards: Sequence[str]) -> bool:
    rest = list(hand)
    for c in cards:
        if c not in rest:
            return False
        rest.remove(c)
    return True


_last_play: tuple[Any, Any] = (None, None)  # one slot, replaced atomically (thread-safe)


def play_and_draw(cs: CardState, player: int, played: Sequence[str], draws: Sequence[str]) -> tuple[CardState | None, str]:
    """Resolve a placement turn's cards. Returns (new state, "") or (None, reason) if the draws
    are not a valid refill to the hand size.

    Checking a move and applying it resolve the same cards; the last result is remembered
    (keyed by the inputs, values are immutable) so the pair costs one resolution.
    """
    global _last_play
    key = (cs, player, tuple(played), tuple(draws))
    last_key, last_result = _last_play
    if last_key is not None and last_key[0] is cs and last_key[1:] == key[1:]:
        return last_result
    result = _play_and_draw(cs, player, played, draws)
    _last_play = (key, result)
    return result


def _play_and_draw(cs: CardState, player: int, played: Sequence[str], draws: Sequence[str]) -> tuple[CardState | None, str]:
    work = _Pile(cs)
    hand = work.hands[player]
    for c in played:
        hand.remove(c)
        work.discard.append(c)
    size = deck_spec()["hand_size"]
    for i, source in enumerate(draws):
        if len(hand) >= size:
            return None, f"draw {i + 1} ({source}) is one too many: the hand is already full"
        card = work.take(source)
        if card is None:
            return None, f"draw {i + 1} ({source}) is not possible: nothing there"
        hand.append(card)
    if len(hand) < size and work.can_take():
        return None, f"the hand holds {len(hand)} cards after drawing; refill it to {size}"
    work.refill_display()
    return work.freeze(player), ""


def exchange(cs: CardState, player: int, discard: str, take: str) -> tuple[CardState | None, str]:
    work = _Pile(cs)
    hand = work.hands[player]
    if discard not in hand:
        return None, f"{discard} is not in the hand"
    hand.remove(discard)
    work.discard.append(discard)
    card = work.take(take)
    if card is None:
        return None, f"cannot take a card from {take}"
    hand.append(card)
    work.refill_display()
    return work.freeze(player), ""


def with_hand(cs: CardState, player: int, hand: Sequence[str]) -> CardState:
    hands = list(cs.hands)
    hands[player] = tuple(sorted(hand))
    return replace(cs, hands=tuple(hands))
