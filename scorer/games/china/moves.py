"""China moves: small frozen values, parsed from and written to game records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from scorer.core.types import InvalidRecord, SpaceId

HOUSE, EMISSARY, FORTRESS = "house", "emissary", "fortress"
PIECE_KINDS = (HOUSE, EMISSARY, FORTRESS)


@dataclass(frozen=True, slots=True)
class Placement:
    """One piece put on a space: a house or fortress on a house site, an emissary on a dragon space."""

    kind: str
    space: SpaceId


@dataclass(frozen=True, slots=True)
class Place:
    """Turn type A: 1-2 pieces into one province, paid with 1-3 cards, then refill the hand.

    ``cards`` are the colours played, or None when nobody declared them (the payment is then
    reported as not checked). ``draws`` say where the refill came from (``"pile"`` or
    ``"display:<slot>"``); they are required only when the game tracks cards.
    """

    player: str
    placements: tuple[Placement, ...]
    cards: tuple[str, ...] | None = None
    draws: tuple[str, ...] | None = None

    declared = False


@dataclass(frozen=True, slots=True)
class Exchange:
    """Turn type B: discard one card, take one from the display or the pile. Invisible to sensors."""

    player: str
    discard: str | None = None
    take: str | None = None

    declared = True


@dataclass(frozen=True, slots=True)
class DeclarePileExhausted:
    """A player or referee declares that the draw pile ran out for the second time.

    Only used when cards are not tracked; the round is then finished (rules/china.md 4.8).
    """

    declared = True


@dataclass(frozen=True, slots=True)
class Pass:
    """A player with no possible action lets the turn go by.

    The rules are silent (it can happen in the last round, with the pile and display empty and a
    hand that pays for nothing); with tracked cards the engine checks that no action was possible.
    """

    player: str

    declared = True


ChinaMove = Place | Exchange | DeclarePileExhausted | Pass


def move_from_json(data: Mapping[str, Any], where: str = "move") -> ChinaMove:
    """Parse one record entry (already schema-checked; errors still name the field)."""
    kind = data.get("type")
    try:
        if kind == "place":
            placements = tuple(Placement(str(p["kind"]), SpaceId(str(p["space"]))) for p in data["pieces"])
            cards = tuple(str(c) for c in data["cards"]) if data.get("cards") is not None else None
            draws = tuple(str(d) for d in data["draws"]) if data.get("draws") is not None else None
            return Place(str(data["player"]), placements, cards, draws)
        if kind == "exchange":
            return Exchange(str(data["player"]), data.get("discard"), data.get("take"))
        if kind == "pile_exhausted":
            return DeclarePileExhausted()
        if kind == "pass":
            return Pass(str(data["player"]))
    except (KeyError, TypeError) as exc:
        raise InvalidRecord(f"missing or malformed field {exc}", where=where) from None
    raise InvalidRecord(f"unknown move type {kind!r} (expected place, exchange, pass or pile_exhausted)", where=f"{where}.type")


def move_to_json(move: ChinaMove) -> dict[str, Any]:
    if isinstance(move, Place):
        out: dict[str, Any] = {
            "type": "place",
            "player": move.player,
            "pieces": [{"kind": p.kind, "space": p.space} for p in move.placements],
        }
        if move.cards is not None:
            out["cards"] = list(move.cards)
        if move.draws is not None:
            out["draws"] = list(move.draws)
        return out
    if isinstance(move, Exchange):
        out = {"type": "exchange", "player": move.player}
        if move.discard is not None:
            out["discard"] = move.discard
        if move.take is not None:
            out["take"] = move.take
        return out
    if isinstance(move, Pass):
        return {"type": "pass", "player": move.player}
    return {"type": "pile_exhausted"}


MOVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"enum": ["place", "exchange", "pass", "pile_exhausted"]},
        "at": {"type": "string", "description": "optional ISO-8601 timestamp"},
    },
    "allOf": [
        {
            "if": {"properties": {"type": {"const": "place"}}},
            "then": {
                "required": ["player", "pieces"],
                "additionalProperties": False,
                "properties": {
                    "type": {},
                    "at": {},
                    "player": {"type": "string"},
                    "pieces": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["kind", "space"],
                            "additionalProperties": False,
                            "properties": {"kind": {"enum": list(PIECE_KINDS)}, "space": {"type": "string"}},
                        },
                    },
                    "cards": {"type": "array", "items": {"enum": ["violet", "yellow", "orange", "green", "red"]}},
                    "draws": {"type": "array", "items": {"type": "string", "pattern": "^(pile|display:[0-3])$"}},
                },
            },
        },
        {
            "if": {"properties": {"type": {"const": "exchange"}}},
            "then": {
                "required": ["player"],
                "additionalProperties": False,
                "properties": {
                    "type": {},
                    "at": {},
                    "player": {"type": "string"},
                    "discard": {"enum": ["violet", "yellow", "orange", "green", "red"]},
                    "take": {"type": "string", "pattern": "^(pile|display:[0-3])$"},
                },
            },
        },
        {
            "if": {"properties": {"type": {"const": "pass"}}},
            "then": {"required": ["player"], "additionalProperties": False, "properties": {"type": {}, "at": {}, "player": {"type": "string"}}},
        },
        {
            "if": {"properties": {"type": {"const": "pile_exhausted"}}},
            "then": {"additionalProperties": False, "properties": {"type": {}, "at": {}}},
        },
    ],
}
