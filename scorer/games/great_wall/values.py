"""What the cards of one wall section are worth (rules/great-wall.md 1.1 and ambiguities 3-5).

Pure functions over plain values, kept free of engine state so the tests' independent reference
can be compared against exactly these functions.

A section's row is a sequence of ``Card(owner, kind, covers)`` in the order played; a dragon's
``covers`` is the row index of the card it lies on (-1 for every other card).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from scorer.games.great_wall.data import CAVALRY, DRAGON, GATE, NOBLE, SOLDIER, TOWER, WALL

BASE_VALUE = {WALL: 1, GATE: 2, TOWER: 3, NOBLE: 1, CAVALRY: 2, DRAGON: 1}
POINT_CARDS = frozenset((WALL, GATE, TOWER))


@dataclass(frozen=True, slots=True)
class Card:
    """One card in a section's row. ``owner`` is a player index."""

    owner: int
    kind: str
    covers: int = -1


@dataclass(frozen=True, slots=True)
class Valuation:
    """The referee options that change card values (ambiguities 3 and 4, and 'covered soldiers')."""

    noble_point_cards_only: bool = False  # amb. 3 other reading: a noble sets only walls, gates and towers to 1
    noble_opponents_only: bool = False  # amb. 3 other reading: a noble sets only other players' cards to 1
    soldiers_square: bool = False  # amb. 4 other reading: each of n soldiers is worth n
    covered_soldier_keeps_place: bool = False  # a covered soldier still counts in the 1, 2, 3 ... order


DEFAULT_VALUATION = Valuation()


def covered_set(cards: Sequence[Card]) -> set[int]:
    return {c.covers for c in cards if c.covers >= 0}


def card_values(cards: Sequence[Card], how: Valuation = DEFAULT_VALUATION) -> list[int]:
    """The value of every card of the row, after the special cards' effects.

    A card under a dragon counts 0 and loses its effect (a covered noble does nothing). While an
    uncovered noble lies in the section, every uncovered card counts 1 (recommended reading). The
    k-th uncovered soldier of one player counts k.
    """
    covered = covered_set(cards)
    noble_owners = {c.owner for i, c in enumerate(cards) if c.kind == NOBLE and i not in covered}
    soldiers_seen: dict[int, int] = {}
    soldiers_total: dict[int, int] = {}
    if how.soldiers_square:
        for i, c in enumerate(cards):
            if c.kind == SOLDIER and i not in covered:
                soldiers_total[c.owner] = soldiers_total.get(c.owner, 0) + 1
    out = []
    for i, c in enumerate(cards):
        if i in covered:
            if c.kind == SOLDIER and how.covered_soldier_keeps_place:
                soldiers_seen[c.owner] = soldiers_seen.get(c.owner, 0) + 1
            out.append(0)
            continue
        if noble_owners and _noble_applies(c, noble_owners, how):
            out.append(1)
            continue
        if c.kind == SOLDIER:
            soldiers_seen[c.owner] = soldiers_seen.get(c.owner, 0) + 1
            out.append(soldiers_total[c.owner] if how.soldiers_square else soldiers_seen[c.owner])
        else:
            out.append(BASE_VALUE[c.kind])
    return out


def _noble_applies(card: Card, noble_owners: set[int], how: Valuation) -> bool:
    if how.noble_point_cards_only and card.kind not in POINT_CARDS:
        return False
    if how.noble_opponents_only and not (noble_owners - {card.owner}):
        return False
    return True


def player_values(cards: Sequence[Card], players: int, how: Valuation = DEFAULT_VALUATION) -> list[int]:
    """Each player's total card value in the section."""
    totals = [0] * players
    for c, v in zip(cards, card_values(cards, how)):
        totals[c.owner] += v
    return totals


def progress(cards: Sequence[Card], players: int, claimed_owner: int, claimed_value: int,
             how: Valuation = DEFAULT_VALUATION) -> list[int]:
    """Card value minus the value of one's own claimed token lying in the section (3, W1)."""
    out = player_values(cards, players, how)
    if claimed_owner >= 0:
        out[claimed_owner] -= claimed_value
    return out
