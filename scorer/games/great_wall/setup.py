"""Setting up a Great Wall table: players, variants, card tracking and the deck checked, token
supply and decks dealt or taken as given, the initial state (with the first progress check run),
and the JSON Schema of a record's ``setup`` (rules/great-wall.md)."""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from scorer.core.game import SetupOptions, check_players_and_variants
from scorer.core.types import InvalidRecord
from scorer.games.great_wall.data import KIND_INDEX, KINDS, SPECIAL_KINDS, DeckSpec, load_deck
from scorer.games.great_wall.flow import _Work
from scorer.games.great_wall.moves import PLAYER_COLOURS
from scorer.games.great_wall.state import GreatWallRules, GreatWallState, Section


def initial_state(options: SetupOptions, min_players: int, max_players: int) -> GreatWallState:
    players = check_players_and_variants(
        options, label="The Great Wall", min_players=min_players, max_players=max_players,
        colours=tuple(PLAYER_COLOURS), colour_noun="Great Wall colour", variants=tuple(GreatWallRules.VARIANTS),
    )
    mode = options.get("cards", "untracked")
    if mode not in ("tracked", "untracked"):
        raise InvalidRecord("cards must be 'tracked' or 'untracked'", where="setup.cards")
    track = mode == "tracked"
    deck = load_deck(options.get("deck"))
    special = options.get("special_counts")
    if special is not None:
        deck = deck.with_special_counts(dict(special))
    flags = {v: (v in options.variants) for v in GreatWallRules.VARIANTS}
    rules_ = GreatWallRules(track_cards=track, **flags)
    n = len(players)
    token_order = options.get("token_order")
    deck_orders = options.get("deck_orders")
    if not track and (token_order is not None or deck_orders is not None):
        raise InvalidRecord("token_order and deck_orders need cards: tracked", where="setup.cards")
    if track and options.seed is None and (token_order is None or deck_orders is None):
        raise InvalidRecord("tracked cards need a seed, or both token_order and deck_orders", where="setup.seed")
    seed = options.seed if options.seed is not None else 0
    if track:
        supply = _token_order(deck, seed, token_order)
        decks = _deck_orders(deck, seed, players, deck_orders)
        hands = []
        for d in decks:
            counts = [0] * len(KINDS)
            for c in d[: deck.hand_size]:
                counts[KIND_INDEX[c]] += 1
            hands.append(tuple(counts))
        decks_t: tuple[tuple[str, ...], ...] | None = tuple(tuple(d[deck.hand_size:]) for d in decks)
        hands_t: tuple[tuple[int, ...], ...] | None = tuple(hands)
    else:
        supply = tuple(sorted(deck.token_list()))
        decks_t = hands_t = None
    sections = tuple(Section(awaiting_reveal=not track) for _ in range(deck.sections_for(n)))
    state = GreatWallState(
        players=players,
        rules=rules_,
        deck=deck,
        sections=sections,
        supply=supply,
        boxed=(),
        first_tokens=((),) * n,
        second_tokens=((),) * n,
        hand_sizes=(deck.hand_size,) * n,
        deck_sizes=(sum(deck.counts) - deck.hand_size,) * n,
        played=((0,) * len(KINDS),) * n,
        hands=hands_t,
        decks=decks_t,
    )
    work = _Work(state)
    if track:
        for s in range(len(sections)):
            work.refill(s)
    work.run()
    return work.freeze()


def setup_schema() -> Mapping[str, Any]:
    return {
        "type": "object",
        "required": ["players"],
        "additionalProperties": False,
        "properties": {
            "players": {"type": "array", "minItems": 2, "maxItems": 5, "uniqueItems": True,
                        "items": {"enum": list(PLAYER_COLOURS)},
                        "description": "seating (clockwise) order; the first player starts"},
            "variants": {"type": "array", "items": {"enum": list(GreatWallRules.VARIANTS)}, "uniqueItems": True},
            "seed": {"type": "integer"},
            "cards": {"enum": ["tracked", "untracked"],
                      "description": "tracked: decks, hands and token supply simulated from the seed; untracked (default): a real table"},
            "deck": {"type": "string", "description": "shipped deck id (great-wall-provisional; great-wall-demo-shortened is the demo's, with 6 tokens) or a deck file path"},
            "special_counts": {
                "type": "object",
                "required": list(SPECIAL_KINDS),
                "additionalProperties": False,
                "properties": {k: {"type": "integer", "minimum": 1, "maximum": 9} for k in SPECIAL_KINDS},
                "description": "the special-card split of your own deck (adds up to 9)",
            },
            "token_order": {"type": "array", "minItems": 36, "maxItems": 36, "items": {"type": "integer", "minimum": 1, "maximum": 9},
                            "description": "tracked: the face-down supply in reveal order"},
            "deck_orders": {"type": "object", "additionalProperties": {"type": "array", "items": {"enum": list(KINDS)}},
                            "description": "tracked: each colour's deck, top first (the first 5 are the starting hand)"},
        },
    }


def _token_order(deck: DeckSpec, seed: int, order: Sequence[int] | None) -> tuple[int, ...]:
    tokens = deck.token_list()
    if order is None:
        random.Random(f"{seed}:tokens").shuffle(tokens)
        return tuple(tokens)
    if sorted(order) != sorted(tokens):
        raise InvalidRecord("token_order must list the 36 tokens (2x1, 6x2, 7x3, 7x4, 8x5, 4x7, 2x8) once each", where="setup.token_order")
    return tuple(int(v) for v in order)


def _deck_orders(deck: DeckSpec, seed: int, players: Sequence[str], orders: Mapping[str, Sequence[str]] | None) -> list[list[str]]:
    want = sorted(deck.card_list())
    out = []
    given = dict(orders) if orders is not None else None
    if given is not None and set(given) != set(players):
        raise InvalidRecord(f"deck_orders needs exactly one deck per player ({', '.join(players)})", where="setup.deck_orders")
    for p in players:
        if given is None:
            cards = deck.card_list()
            random.Random(f"{seed}:deck:{p}").shuffle(cards)
        else:
            cards = [str(c) for c in given[p]]
            if sorted(cards) != want:
                raise InvalidRecord(f"the deck of {p} does not match the deck list ({len(cards)} cards given)", where=f"setup.deck_orders.{p}")
        out.append(cards)
    return out
