"""Great Wall moves: small frozen values, parsed from and written to game records.

A turn is an automatic progress check (which may ask the player to choose a token: ``Claim``)
followed by two actions, each a ``Play`` or a ``Draw`` (a ``Pass`` only when neither is possible),
plus at most one free cavalry ``Play``. ``Reveal`` enters the values of newly revealed tokens at a
real table, where the token supply is not simulated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from scorer.core.types import InvalidRecord
from scorer.games.great_wall.data import KINDS

SECTION_RE = re.compile(r"^section-([1-4])$")
PLAYER_COLOURS = ("blue", "red", "yellow", "green", "grey")


def section_space(index: int) -> str:
    return f"section-{index + 1}"


def section_index(space: str) -> int | None:
    m = SECTION_RE.match(space)
    return int(m.group(1)) - 1 if m else None


@dataclass(frozen=True, slots=True)
class CardRef:
    """A card in a section's row: by owner and kind, and/or by ``position`` (1 = nearest the tokens).

    Without a position the engine takes the most recently played card that fits.
    """

    owner: str | None = None
    kind: str | None = None
    position: int | None = None


@dataclass(frozen=True, slots=True)
class Play:
    """Play one card or a set of identical cards into one section (action 2/3, or the free cavalry play).

    ``targets``: one per dragon, the card it is laid on. ``free``: True for the free cavalry play,
    False for an action, None to let the engine decide (cavalry uses the free play while it is unused).
    """

    player: str
    section: str
    cards: tuple[str, ...]
    targets: tuple[CardRef, ...] = ()
    free: bool | None = None

    declared = False


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top card of one's own deck (invisible to the sensors). ``card`` is checked when tracked."""

    player: str
    card: str | None = None

    declared = True


@dataclass(frozen=True, slots=True)
class Pass:
    """Give up an action because neither playing nor drawing is possible (ambiguity 8)."""

    player: str

    declared = True


@dataclass(frozen=True, slots=True)
class Claim:
    """Choose which of a section's two tokens to take as the first token, and lay it on one's card.

    ``on`` names the card (3.1: "on one of your cards in that section"); without it the engine lays
    the token on the claimant's most valuable uncovered card. A first token laid without a named card
    (equal tokens are taken without a choice; or a choice without ``on``) can still be placed by a
    later ``Claim`` with ``on`` in the claimant's same turn: same section and token value.
    """

    player: str
    section: str
    token: int
    on: CardRef | None = None

    declared = False


@dataclass(frozen=True, slots=True)
class Reveal:
    """The values of a pair of tokens just revealed from the face-down supply at a section.

    In a 2-player game an equal pair goes back into the box and another pair is revealed (a second
    ``Reveal`` for the same section). Only used when the token supply is not simulated.
    """

    section: str
    tokens: tuple[int, ...]

    declared = False


GreatWallMove = Play | Draw | Pass | Claim | Reveal


def _ref_from_json(data: Mapping[str, Any]) -> CardRef:
    pos = data.get("position")
    return CardRef(
        str(data["owner"]) if data.get("owner") is not None else None,
        str(data["kind"]) if data.get("kind") is not None else None,
        int(pos) if pos is not None else None,
    )


def _ref_to_json(ref: CardRef) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ref.owner is not None:
        out["owner"] = ref.owner
    if ref.kind is not None:
        out["kind"] = ref.kind
    if ref.position is not None:
        out["position"] = ref.position
    return out


def move_from_json(data: Mapping[str, Any], where: str = "move") -> GreatWallMove:
    """Parse one record entry (already schema-checked; errors still name the field)."""
    kind = data.get("type")
    try:
        if kind == "play":
            targets = tuple(_ref_from_json(t) for t in data.get("targets", ()))
            free = data.get("free")
            return Play(str(data["player"]), str(data["section"]), tuple(str(c) for c in data["cards"]), targets,
                        bool(free) if free is not None else None)
        if kind == "draw":
            return Draw(str(data["player"]), str(data["card"]) if data.get("card") is not None else None)
        if kind == "pass":
            return Pass(str(data["player"]))
        if kind == "claim":
            on = _ref_from_json(data["on"]) if data.get("on") is not None else None
            return Claim(str(data["player"]), str(data["section"]), int(data["token"]), on)
        if kind == "reveal":
            return Reveal(str(data["section"]), tuple(int(v) for v in data["tokens"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidRecord(f"missing or malformed field {exc}", where=where) from None
    raise InvalidRecord(f"unknown move type {kind!r} (expected play, draw, pass, claim or reveal)", where=f"{where}.type")


def move_to_json(move: GreatWallMove) -> dict[str, Any]:
    if isinstance(move, Play):
        out: dict[str, Any] = {"type": "play", "player": move.player, "section": move.section, "cards": list(move.cards)}
        if move.targets:
            out["targets"] = [_ref_to_json(t) for t in move.targets]
        if move.free is not None:
            out["free"] = move.free
        return out
    if isinstance(move, Draw):
        out = {"type": "draw", "player": move.player}
        if move.card is not None:
            out["card"] = move.card
        return out
    if isinstance(move, Pass):
        return {"type": "pass", "player": move.player}
    if isinstance(move, Claim):
        out = {"type": "claim", "player": move.player, "section": move.section, "token": move.token}
        if move.on is not None:
            out["on"] = _ref_to_json(move.on)
        return out
    if isinstance(move, Reveal):
        return {"type": "reveal", "section": move.section, "tokens": list(move.tokens)}
    raise TypeError(f"not a Great Wall move: {move!r}")


_SECTION = {"type": "string", "pattern": "^section-[1-4]$"}
_PLAYER = {"type": "string"}
_CARD_REF = {
    "type": "object",
    "additionalProperties": False,
    "minProperties": 1,
    "properties": {
        "owner": {"type": "string"},
        "kind": {"enum": list(KINDS)},
        "position": {"type": "integer", "minimum": 1, "description": "1 = the card nearest the tokens"},
    },
}
_TOKEN = {"type": "integer", "minimum": 1, "maximum": 9}

MOVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"enum": ["play", "draw", "pass", "claim", "reveal"]},
        "at": {"type": "string", "description": "optional ISO-8601 timestamp"},
    },
    "allOf": [
        {
            "if": {"properties": {"type": {"const": "play"}}},
            "then": {
                "required": ["player", "section", "cards"],
                "additionalProperties": False,
                "properties": {
                    "type": {}, "at": {},
                    "player": _PLAYER,
                    "section": _SECTION,
                    "cards": {"type": "array", "minItems": 1, "items": {"type": "string"},
                              "description": "the card kinds put down (a set of identical cards: the rules check they are equal)"},
                    "targets": {"type": "array", "items": _CARD_REF, "description": "one per dragon: the card it is laid on"},
                    "free": {"type": "boolean", "description": "true: the free cavalry play; false: an action; absent: decided by the engine"},
                },
            },
        },
        {
            "if": {"properties": {"type": {"const": "draw"}}},
            "then": {
                "required": ["player"],
                "additionalProperties": False,
                "properties": {"type": {}, "at": {}, "player": _PLAYER, "card": {"enum": list(KINDS)}},
            },
        },
        {
            "if": {"properties": {"type": {"const": "pass"}}},
            "then": {"required": ["player"], "additionalProperties": False, "properties": {"type": {}, "at": {}, "player": _PLAYER}},
        },
        {
            "if": {"properties": {"type": {"const": "claim"}}},
            "then": {
                "required": ["player", "section", "token"],
                "additionalProperties": False,
                "properties": {"type": {}, "at": {}, "player": _PLAYER, "section": _SECTION, "token": _TOKEN,
                               "on": {**_CARD_REF, "description": "the claimant's card the token is laid on (default: their most valuable "
                                      "uncovered card); given after a first token laid without a named card (equal tokens), it names that card"}},
                "description": "the choice of a first token, or (with on) the card a first token laid this turn lies on",
            },
        },
        {
            "if": {"properties": {"type": {"const": "reveal"}}},
            "then": {
                "required": ["section", "tokens"],
                "additionalProperties": False,
                "properties": {"type": {}, "at": {}, "section": _SECTION,
                               "tokens": {"type": "array", "minItems": 1, "maxItems": 2, "items": _TOKEN}},
            },
        },
    ],
}
