"""The Great Wall deck list, token mix and set-up numbers as validated data (rules/great-wall.md 1-2).

The split of the 9 special cards is not public, so it lives in a JSON file checked against a schema
and against what the rules imply; the shipped file is provisional. A user corrects it from their
own copy by editing the file, by pointing a record's ``deck`` at their own file, or by giving
``special_counts`` in the record's setup.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

from scorer.core.schema import load_schema, read_json, validate
from scorer.core.types import InvalidRecord, Message

WALL, GATE, TOWER, NOBLE, SOLDIER, CAVALRY, DRAGON = "wall", "gate", "tower", "noble", "soldier", "cavalry", "dragon"
KINDS = (WALL, GATE, TOWER, NOBLE, SOLDIER, CAVALRY, DRAGON)
KIND_INDEX = {k: i for i, k in enumerate(KINDS)}
SPECIAL_KINDS = (NOBLE, SOLDIER, CAVALRY, DRAGON)
ESCALATING = "escalating"

# What the sources confirm (rules/great-wall.md 1 and 1.1). The validator holds every data file to it.
KNOWN_COUNTS = {WALL: 7, GATE: 3, TOWER: 1}
KNOWN_VALUES: dict[str, int | str] = {WALL: 1, GATE: 2, TOWER: 3, NOBLE: 1, SOLDIER: ESCALATING, CAVALRY: 2, DRAGON: 1}
DECK_SIZE = 20
SPECIAL_TOTAL = 9
KNOWN_TOKENS = {1: 2, 2: 6, 3: 7, 4: 7, 5: 8, 7: 4, 8: 2}
KNOWN_SECTIONS = {2: 2, 3: 3, 4: 4, 5: 4}
HAND_SIZE = 5
SHIPPED_DECKS = ("great-wall-provisional", "great-wall-demo-shortened")
# the shipped decks' files in this package; the demo's is the shipped deck with a shortened token supply
# (``shortened_supply``), so that ``tableref demo --game great_wall`` reaches the end: never a real game's deck
SHIPPED_DECK_FILES = {"great-wall-provisional": "deck.json", "great-wall-demo-shortened": "demo-deck.json"}


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """One colour's deck (counts per kind in ``KINDS`` order) plus the token mix and set-up numbers."""

    id: str
    provisional: bool
    counts: tuple[int, ...]
    tokens: tuple[tuple[int, int], ...]  # (value, number), sorted by value
    hand_size: int
    sections: tuple[tuple[int, int], ...]  # (players, sections)
    guessed: tuple[str, ...] = ()  # kinds whose count is a guess
    shortened_supply: bool = False  # a demo's deck: only some of the 36 tokens (never the game's deck)

    def count(self, kind: str) -> int:
        return self.counts[KIND_INDEX[kind]]

    def sections_for(self, players: int) -> int:
        return dict(self.sections)[players]

    def token_list(self) -> list[int]:
        return [v for v, n in self.tokens for _ in range(n)]

    def card_list(self) -> list[str]:
        return [k for k, n in zip(KINDS, self.counts) for _ in range(n)]

    def with_special_counts(self, special: Mapping[str, int]) -> "DeckSpec":
        """The same deck with the special-card split given by the user (no longer provisional)."""
        counts = list(self.counts)
        for kind, n in special.items():
            counts[KIND_INDEX[kind]] = int(n)
        spec = DeckSpec(f"{self.id}+setup", False, tuple(counts), self.tokens, self.hand_size, self.sections, (), self.shortened_supply)
        problems = spec_problems(spec)
        if problems:
            raise InvalidRecord(problems[0], where="setup.special_counts")
        return spec


def spec_problems(spec: DeckSpec) -> list[str]:
    out = []
    for kind, n in KNOWN_COUNTS.items():
        if spec.count(kind) != n:
            out.append(f"a deck holds {n} {kind} card(s) (confirmed), not {spec.count(kind)}")
    special = {k: spec.count(k) for k in SPECIAL_KINDS}
    for kind, n in special.items():
        if n < 1:
            out.append(f"every deck holds at least one {kind} card (the game has 7 card types), found {n}")
    if sum(special.values()) != SPECIAL_TOTAL:
        out.append(f"the special cards (noble, soldier, cavalry, dragon) add up to {SPECIAL_TOTAL}, not {sum(special.values())} "
                   f"({', '.join(f'{k} {n}' for k, n in special.items())})")
    if sum(spec.counts) != DECK_SIZE:
        out.append(f"a deck has {DECK_SIZE} cards, not {sum(spec.counts)}")
    return out


def semantic_problems(doc: Mapping[str, Any]) -> list[str]:
    """What the rules imply about any Great Wall deck file (empty list = ok)."""
    out: list[str] = []
    kinds = [c["kind"] for c in doc["cards"]]
    if sorted(kinds) != sorted(KINDS):
        missing = sorted(set(KINDS) - set(kinds))
        doubled = sorted({k for k in kinds if kinds.count(k) > 1})
        out.append(f"$.cards: list each of the 7 card types once (missing: {', '.join(missing) or 'none'}; twice: {', '.join(doubled) or 'none'})")
        return out
    for i, c in enumerate(doc["cards"]):
        want = KNOWN_VALUES[c["kind"]]
        if c["value"] != want:
            out.append(f"$.cards[{i}].value: a {c['kind']} is worth {want} (confirmed by the sources), not {c['value']}")
        if c["kind"] in KNOWN_COUNTS and c.get("provisional"):
            out.append(f"$.cards[{i}].provisional: the {c['kind']} count is confirmed, it cannot be provisional")
    counts = {c["kind"]: c["count"] for c in doc["cards"]}
    spec = DeckSpec(doc["id"], doc["provisional"], tuple(counts[k] for k in KINDS), (), doc["hand_size"], ())
    out += [f"$.cards: {p}" for p in spec_problems(spec)]
    if any(c.get("provisional") for c in doc["cards"]) and not doc["provisional"]:
        out.append("$.provisional: a card count is marked provisional, so the file must be provisional too")
    tokens = {int(v): n for v, n in doc["tokens"].items() if n}
    found = ', '.join(f'{n}x{v}' for v, n in sorted(tokens.items())) or 'none'
    if doc.get("shortened_supply"):  # a demo's deck: some of the 36 tokens only, so that a scripted game ends soon
        if not tokens or any(n > KNOWN_TOKENS.get(v, 0) for v, n in tokens.items()):
            out.append(f"$.tokens: a shortened supply holds some of the 36 tokens (2x1, 6x2, 7x3, 7x4, 8x5, 4x7, 2x8) and no others; "
                       f"found {found}")
    elif tokens != KNOWN_TOKENS:
        out.append(f"$.tokens: the 36 tokens are 2x1, 6x2, 7x3, 7x4, 8x5, 4x7, 2x8; found {found}")
    sections = {int(p): n for p, n in doc["sections"].items()}
    if sections != KNOWN_SECTIONS:
        out.append(f"$.sections: 2, 3, 4 and 5 players use 2, 3, 4 and 4 wall sections; found {sections}")
    if doc["hand_size"] != HAND_SIZE:
        out.append(f"$.hand_size: each player starts with {HAND_SIZE} cards, not {doc['hand_size']}")
    return out


def deck_from_json(doc: Any, where: str = "deck") -> DeckSpec:
    """Validate (schema + rules) and build a deck spec; raise ``InvalidRecord`` naming the problem."""
    validate(doc, load_schema("great-wall-deck"), where)
    problems = semantic_problems(doc)
    if problems:
        raise InvalidRecord(problems[0], where=where)
    counts = {c["kind"]: c["count"] for c in doc["cards"]}
    return DeckSpec(
        id=doc["id"],
        provisional=doc["provisional"],
        counts=tuple(counts[k] for k in KINDS),
        tokens=tuple(sorted((int(v), n) for v, n in doc["tokens"].items() if n)),
        hand_size=doc["hand_size"],
        sections=tuple(sorted((int(p), n) for p, n in doc["sections"].items())),
        guessed=tuple(c["kind"] for c in doc["cards"] if c.get("provisional")),
        shortened_supply=bool(doc.get("shortened_supply")),
    )


@lru_cache(maxsize=8)
def _shipped(ref: str) -> DeckSpec:
    text = resources.files("scorer.games.great_wall").joinpath(SHIPPED_DECK_FILES[ref]).read_text("utf-8")
    doc = json.loads(text)
    if doc.get("id") != ref:
        raise InvalidRecord(f"shipped deck file has id {doc.get('id')!r}, expected {ref!r}", where="deck")
    return deck_from_json(doc, where=f"deck {ref}")


def load_deck(ref: str | None = None) -> DeckSpec:
    """A shipped deck id (``great-wall-provisional``, the default; ``great-wall-demo-shortened``, the demo's)
    or a path to a deck file."""
    ref = ref or SHIPPED_DECKS[0]
    if ref in SHIPPED_DECKS:
        return _shipped(ref)
    if os.path.exists(ref) or ref.endswith(".json"):
        return deck_from_json(read_json(ref, "deck"), where=f"deck {ref}")
    raise InvalidRecord(f"unknown deck {ref!r}; shipped: {', '.join(SHIPPED_DECKS)}, or give a file path", where="setup.deck")


def kind_label(kind: str) -> Message:
    """A card kind's name in every language (``great_wall.kind.<kind>``); an unknown kind as written."""
    if kind in KIND_INDEX:
        return Message.t(f"great_wall.kind.{kind}")
    return Message.t("name.as_given", name=kind)
