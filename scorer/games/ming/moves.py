"""Ming moves: small frozen values, parsed from and written to game records.

Moves the sensors can see (pieces placed, moved or removed) have ``declared = False``; moves that
carry information no sensor sees -- which display card was taken, return cards, a pass, the
start-player choice -- have ``declared = True`` and come from the dashboard or a card reader.
Card symbols in a prince move are declared too; ``None`` means nobody declared them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from scorer.core.types import InvalidRecord

FAMILY, PRINCE = "family", "prince"
NEUTRAL = "neutral"


@dataclass(frozen=True, slots=True)
class PlacePrince:
    """Set-up: the player puts his prince into a district no other prince occupies."""

    player: str
    district: str

    declared = False


@dataclass(frozen=True, slots=True)
class PlaceNeutral:
    """2-player game: the player puts one neutral family member into a district's open area."""

    player: str
    district: str

    declared = False


@dataclass(frozen=True, slots=True)
class PlaceFamily:
    """Phase 1: one family member from the player's hand onto a province space."""

    player: str
    province: str

    declared = False


@dataclass(frozen=True, slots=True)
class TakeCard:
    """Phase 2 (a): take the display card next to ``province``'s province space.

    ``symbol`` is the card taken and ``refill`` the card turned up in its place, when declared.
    """

    player: str
    province: str
    symbol: str | None = None
    refill: str | None = None

    declared = True


@dataclass(frozen=True, slots=True)
class TakeDragon:
    """Phase 2 (b): take a dragon card, removing a family member from ``province``'s space.

    ``owner`` is whose family member goes to the box: the player himself unless the
    ``dragon_any_member`` variant is in play (ambiguity A3).
    """

    player: str
    province: str
    owner: str | None = None

    declared = False

    def __post_init__(self) -> None:
        if self.owner == self.player:  # one value per move: paying with one's own member is the default
            object.__setattr__(self, "owner", None)


@dataclass(frozen=True, slots=True)
class MovePrince:
    """Phase 3.1: move the prince along ``path`` (the districts entered, in order), paying one card
    per step, then deploy ``deploy`` family members there, one of them into the cloister if
    ``cloister``. ``cards`` are the cards played (symbol ids or ``"dragon"``), None if undeclared."""

    player: str
    path: tuple[str, ...]
    cards: tuple[str, ...] | None = None
    deploy: int = 0
    cloister: bool = False

    declared = False


@dataclass(frozen=True, slots=True)
class Stay:
    """Phase 3.2: the prince stays; discard any one card (``card``, None if undeclared), then deploy."""

    player: str
    card: str | None = None
    deploy: int = 0
    cloister: bool = False

    declared = False


@dataclass(frozen=True, slots=True)
class Pass:
    """Phase 3.3: the player drops out of this round's phase 3. Invisible to sensors."""

    player: str

    declared = True


@dataclass(frozen=True, slots=True)
class ReturnCards:
    """Phase 4.2: the player's secret return cards for the city being scored.

    Give the card values (``cards``, from a card reader) or just their ``total`` (dashboard).
    Committed secretly; revealed when every player with family members in the city has committed.
    """

    player: str
    cards: tuple[int, ...] | None = None
    total: int | None = None

    declared = True

    def __post_init__(self) -> None:
        # one value per move: the order the cards are listed in says nothing
        if self.cards is not None:
            object.__setattr__(self, "cards", tuple(sorted(self.cards)))


@dataclass(frozen=True, slots=True)
class SendBack:
    """Phase 4.2: which city family members go back, named by the district whose city area each
    leaves (one entry per piece). Asked for only when there is a choice; ``owner`` is ``"neutral"``
    when the start player trims the neutral colour in a 2-player game."""

    player: str
    districts: tuple[str, ...]
    owner: str | None = None

    declared = False

    def __post_init__(self) -> None:
        # one value per move: the pieces' order says nothing, and the player's own pieces are the default
        object.__setattr__(self, "districts", tuple(sorted(self.districts)))
        if self.owner == self.player:
            object.__setattr__(self, "owner", None)


@dataclass(frozen=True, slots=True)
class ChooseStartPlayer:
    """Phase 5, 4 players, after rounds 4 and 5: the chooser names the next start player."""

    player: str
    start: str

    declared = True


MingMove = (
    PlacePrince | PlaceNeutral | PlaceFamily | TakeCard | TakeDragon | MovePrince | Stay | Pass | ReturnCards | SendBack | ChooseStartPlayer
)

TYPE_NAMES: dict[type, str] = {
    PlacePrince: "place_prince",
    PlaceNeutral: "place_neutral",
    PlaceFamily: "place_family",
    TakeCard: "take_card",
    TakeDragon: "take_dragon",
    MovePrince: "move_prince",
    Stay: "stay",
    Pass: "pass",
    ReturnCards: "return_cards",
    SendBack: "send_back",
    ChooseStartPlayer: "choose_start_player",
}


def move_from_json(data: Mapping[str, Any], where: str = "move") -> MingMove:
    """Parse one record entry (already schema-checked; errors still name the field)."""
    kind = data.get("type")
    try:
        p = str(data["player"]) if kind in TYPE_NAMES.values() else ""
        if kind == "place_prince":
            return PlacePrince(p, str(data["district"]))
        if kind == "place_neutral":
            return PlaceNeutral(p, str(data["district"]))
        if kind == "place_family":
            return PlaceFamily(p, str(data["province"]))
        if kind == "take_card":
            return TakeCard(p, str(data["province"]), _opt_str(data.get("symbol")), _opt_str(data.get("refill")))
        if kind == "take_dragon":
            return TakeDragon(p, str(data["province"]), _opt_str(data.get("owner")))
        if kind == "move_prince":
            cards = tuple(str(c) for c in data["cards"]) if data.get("cards") is not None else None
            return MovePrince(p, tuple(str(d) for d in data["path"]), cards, int(data.get("deploy", 0)), bool(data.get("cloister", False)))
        if kind == "stay":
            return Stay(p, _opt_str(data.get("card")), int(data.get("deploy", 0)), bool(data.get("cloister", False)))
        if kind == "pass":
            return Pass(p)
        if kind == "return_cards":
            cards = tuple(int(c) for c in data["cards"]) if data.get("cards") is not None else None
            total = int(data["total"]) if data.get("total") is not None else None
            return ReturnCards(p, cards, total)
        if kind == "send_back":
            return SendBack(p, tuple(str(d) for d in data["districts"]), _opt_str(data.get("owner")))
        if kind == "choose_start_player":
            return ChooseStartPlayer(p, str(data["start"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidRecord(f"missing or malformed field {exc}", where=where) from None
    raise InvalidRecord(f"unknown move type {kind!r} (expected one of {', '.join(TYPE_NAMES.values())})", where=f"{where}.type")


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def move_to_json(move: MingMove) -> dict[str, Any]:
    out: dict[str, Any] = {"type": TYPE_NAMES[type(move)], "player": move.player}
    if isinstance(move, (PlacePrince, PlaceNeutral)):
        out["district"] = move.district
    elif isinstance(move, PlaceFamily):
        out["province"] = move.province
    elif isinstance(move, TakeCard):
        out["province"] = move.province
        if move.symbol is not None:
            out["symbol"] = move.symbol
        if move.refill is not None:
            out["refill"] = move.refill
    elif isinstance(move, TakeDragon):
        out["province"] = move.province
        if move.owner is not None:
            out["owner"] = move.owner
    elif isinstance(move, MovePrince):
        out["path"] = list(move.path)
        if move.cards is not None:
            out["cards"] = list(move.cards)
        if move.deploy:
            out["deploy"] = move.deploy
        if move.cloister:
            out["cloister"] = True
    elif isinstance(move, Stay):
        if move.card is not None:
            out["card"] = move.card
        if move.deploy:
            out["deploy"] = move.deploy
        if move.cloister:
            out["cloister"] = True
    elif isinstance(move, ReturnCards):
        if move.cards is not None:
            out["cards"] = list(move.cards)
        if move.total is not None:
            out["total"] = move.total
    elif isinstance(move, SendBack):
        out["districts"] = list(move.districts)
        if move.owner is not None:
            out["owner"] = move.owner
    elif isinstance(move, ChooseStartPlayer):
        out["start"] = move.start
    return out


_DISTRICT = {"type": "string", "pattern": "^p[1-6]d[1-3]$"}
_PROVINCE = {"type": "string", "pattern": "^p[1-6]$"}
_CARD = {"type": "string", "pattern": "^[a-z][a-z_]*$"}
_PLAYER = {"type": "string"}


def _variant(kind: str, required: list[str], props: dict[str, Any]) -> dict[str, Any]:
    return {
        "if": {"properties": {"type": {"const": kind}}},
        "then": {
            "required": ["player", *required],
            "additionalProperties": False,
            "properties": {"type": {}, "at": {}, "player": _PLAYER, **props},
        },
    }


_DEPLOY = {"deploy": {"type": "integer", "minimum": 0, "maximum": 3}, "cloister": {"type": "boolean"}}

MOVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "player"],
    "properties": {
        "type": {"enum": list(TYPE_NAMES.values())},
        "at": {"type": "string", "description": "optional ISO-8601 timestamp"},
    },
    "allOf": [
        _variant("place_prince", ["district"], {"district": _DISTRICT}),
        _variant("place_neutral", ["district"], {"district": _DISTRICT}),
        _variant("place_family", ["province"], {"province": _PROVINCE}),
        _variant("take_card", ["province"], {"province": _PROVINCE, "symbol": _CARD, "refill": _CARD}),
        _variant("take_dragon", ["province"], {"province": _PROVINCE, "owner": _PLAYER}),
        _variant("move_prince", ["path"], {
            "path": {"type": "array", "items": _DISTRICT, "minItems": 1},
            "cards": {"type": "array", "items": _CARD},
            **_DEPLOY,
        }),
        _variant("stay", [], {"card": _CARD, **_DEPLOY}),
        _variant("pass", [], {}),
        _variant("return_cards", [], {
            "cards": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1, "maxItems": 4},
            "total": {"type": "integer", "minimum": 0},
        }),
        _variant("send_back", ["districts"], {"districts": {"type": "array", "items": _DISTRICT, "minItems": 1}, "owner": _PLAYER}),
        _variant("choose_start_player", ["start"], {"start": _PLAYER}),
        {
            "if": {"properties": {"type": {"const": "return_cards"}}},
            "then": {"oneOf": [{"required": ["cards"]}, {"required": ["total"]}]},
        },
    ],
}
