"""Cheops moves: one ``Turn`` per player turn, made of ordered steps, then the draws.

A turn (rules/cheops.md 5) is: optionally buy and place a neighbour (step A, first); exactly one
step B -- place a family tile from the hand, place one with law 11, or pass; kept laws 10 and 12
used before or after step B; then the draws that refill the hand (step D). What lay under a
placed tile is resolved in the same step (``Take``): sell or keep a treasure, or what is done with
a law. Steps are checked and applied in the order given.

A turn carries things no sensor sees -- the keep decisions, the identity of a face-down law,
payments, the tiles drawn -- so ``Turn.declared`` is true.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from scorer.core.types import InvalidRecord, SpaceId
from scorer.games.cheops.data import FACES, LAW_NUMBERS

KEPT_PREFIX = "kept:"


@dataclass(frozen=True, slots=True)
class Take:
    """What the player does with what lay on the space.

    Treasure: ``sell`` (True sell, False keep). Law: ``law`` is its number (required when the
    referee cannot know it: a face-down law), then ``discard`` or the law's own choice:
    ``table`` (colour, laws 4-7), ``remove`` (a law number, law 8) or ``remove_space`` (law 8 on
    a face-down law on the pyramid; not with variant ``law8_face_up_only``). Laws 1-3 are
    applied, 9 is paid, 10-12 are kept unless ``discard``.
    """

    sell: bool | None = None
    law: int | None = None
    discard: bool = False
    table: str | None = None
    remove: int | None = None
    remove_space: SpaceId | None = None


@dataclass(frozen=True, slots=True)
class PlaceTile:
    """Step B: a family tile (face A-D) from the hand onto a space; take what lies there."""

    tile: str
    space: SpaceId
    take: Take = Take()


@dataclass(frozen=True, slots=True)
class UseLaw11:
    """Step B by law 11: a family tile from the hand onto any free space (support rule waived)."""

    tile: str
    space: SpaceId
    take: Take = Take()


@dataclass(frozen=True, slots=True)
class BuyNeighbour:
    """Step A: pay 20 and place a neighbour tile, then take what lies there.

    Variant ``save_neighbour`` (C4): ``save`` buys one and keeps it (no space); ``saved`` places a
    neighbour bought on an earlier turn (no payment).
    """

    space: SpaceId | None
    take: Take = Take()
    save: bool = False
    saved: bool = False


@dataclass(frozen=True, slots=True)
class Pass:
    """Step B when no family tile can be placed: nothing happens and no tile is drawn."""


@dataclass(frozen=True, slots=True)
class UseLaw10:
    """Sell one kept treasure of ``colour`` at the market price (law 10, then discarded)."""

    colour: str


@dataclass(frozen=True, slots=True)
class UseLaw12:
    """Swap two treasures (law 12): two pyramid spaces, or ``kept:<colour>`` and a pyramid space."""

    first: str
    second: str


Step = PlaceTile | UseLaw11 | BuyNeighbour | Pass | UseLaw10 | UseLaw12
STEP_B = (PlaceTile, UseLaw11, Pass)


@dataclass(frozen=True, slots=True)
class Draw:
    """Step D: the top tile of stack 0, 1 or 2. ``tile`` declares its face (checked when tracked)."""

    stack: int
    tile: str | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    player: str
    steps: tuple[Step, ...]
    draws: tuple[Draw, ...] = ()

    declared = True

    @property
    def step_b(self) -> Step | None:
        for s in self.steps:
            if isinstance(s, STEP_B):
                return s
        return None


CheopsMove = Turn


# -- JSON --------------------------------------------------------------------------------------------

def _take_from_json(d: Mapping[str, Any]) -> Take:
    return Take(
        sell=d.get("sell"),
        law=d.get("law"),
        discard=bool(d.get("discard", False)),
        table=d.get("table"),
        remove=d.get("remove"),
        remove_space=SpaceId(d["remove_space"]) if d.get("remove_space") is not None else None,
    )


def _take_to_json(t: Take) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if t.sell is not None:
        out["sell"] = t.sell
    if t.law is not None:
        out["law"] = t.law
    if t.discard:
        out["discard"] = True
    if t.table is not None:
        out["table"] = t.table
    if t.remove is not None:
        out["remove"] = t.remove
    if t.remove_space is not None:
        out["remove_space"] = t.remove_space
    return out


def step_from_json(d: Mapping[str, Any]) -> Step:
    do = d.get("do")
    if do == "place":
        return PlaceTile(str(d["tile"]), SpaceId(str(d["space"])), _take_from_json(d))
    if do == "law11":
        return UseLaw11(str(d["tile"]), SpaceId(str(d["space"])), _take_from_json(d))
    if do == "neighbour":
        space = SpaceId(str(d["space"])) if d.get("space") is not None else None
        return BuyNeighbour(space, _take_from_json(d), bool(d.get("save", False)), bool(d.get("saved", False)))
    if do == "pass":
        return Pass()
    if do == "law10":
        return UseLaw10(str(d["colour"]))
    if do == "law12":
        a, b = d["swap"]
        return UseLaw12(str(a), str(b))
    raise InvalidRecord(f"unknown step {do!r} (expected place, law11, neighbour, pass, law10 or law12)", where="step.do")


def step_to_json(s: Step) -> dict[str, Any]:
    if isinstance(s, PlaceTile):
        return {"do": "place", "tile": s.tile, "space": s.space, **_take_to_json(s.take)}
    if isinstance(s, UseLaw11):
        return {"do": "law11", "tile": s.tile, "space": s.space, **_take_to_json(s.take)}
    if isinstance(s, BuyNeighbour):
        out: dict[str, Any] = {"do": "neighbour"}
        if s.space is not None:
            out["space"] = s.space
        if s.save:
            out["save"] = True
        if s.saved:
            out["saved"] = True
        out.update(_take_to_json(s.take))
        return out
    if isinstance(s, Pass):
        return {"do": "pass"}
    if isinstance(s, UseLaw10):
        return {"do": "law10", "colour": s.colour}
    if isinstance(s, UseLaw12):
        return {"do": "law12", "swap": [s.first, s.second]}
    raise TypeError(f"not a Cheops step: {s!r}")


def move_from_json(data: Mapping[str, Any], where: str = "move") -> CheopsMove:
    if data.get("type") != "turn":
        raise InvalidRecord(f"unknown move type {data.get('type')!r} (expected turn)", where=f"{where}.type")
    try:
        steps = tuple(step_from_json(s) for s in data["steps"])
        draws = tuple(Draw(int(d["stack"]), d.get("tile")) for d in data.get("draws", ()))
        return Turn(str(data["player"]), steps, draws)
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidRecord(f"missing or malformed field {exc}", where=where) from None


def move_to_json(move: CheopsMove) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "turn", "player": move.player, "steps": [step_to_json(s) for s in move.steps]}
    if move.draws:
        out["draws"] = [{"stack": d.stack, **({"tile": d.tile} if d.tile is not None else {})} for d in move.draws]
    return out


_SPACE = {"type": "string", "pattern": "^r([1-9]|1[01])c([1-9]|1[01])$"}
_TAKE_PROPS: dict[str, Any] = {
    "sell": {"type": "boolean", "description": "treasure: true = sell at the market price, false = keep"},
    "law": {"enum": list(LAW_NUMBERS), "description": "the number of the law tile taken (declared when face down)"},
    "discard": {"type": "boolean", "description": "law: discard it instead of using/keeping/paying"},
    "table": {"type": "string", "description": "laws 4-7: the colour of the price table it is attached to"},
    "remove": {"enum": list(LAW_NUMBERS), "description": "law 8: the number of the law removed from play"},
    "remove_space": {**_SPACE, "description": "law 8: a face-down law removed from this pyramid space (not with variant law8_face_up_only)"},
}


def _step(do: str, required: list[str], props: dict[str, Any]) -> dict[str, Any]:
    return {
        "if": {"properties": {"do": {"const": do}}, "required": ["do"]},
        "then": {"required": required, "additionalProperties": False, "properties": {"do": {}, **props}},
    }


STEP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["do"],
    "properties": {"do": {"enum": ["place", "law11", "neighbour", "pass", "law10", "law12"]}},
    "allOf": [
        _step("place", ["tile", "space"], {"tile": {"enum": list(FACES)}, "space": _SPACE, **_TAKE_PROPS}),
        _step("law11", ["tile", "space"], {"tile": {"enum": list(FACES)}, "space": _SPACE, **_TAKE_PROPS}),
        _step("neighbour", [], {"space": _SPACE, "save": {"type": "boolean"}, "saved": {"type": "boolean"}, **_TAKE_PROPS}),
        _step("pass", [], {}),
        _step("law10", ["colour"], {"colour": {"type": "string"}}),
        _step("law12", ["swap"], {"swap": {"type": "array", "minItems": 2, "maxItems": 2,
                                           "items": {"type": "string", "pattern": "^(r([1-9]|1[01])c([1-9]|1[01])|kept:[a-z][a-z0-9]*)$"}}}),
    ],
}

MOVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "player", "steps"],
    "additionalProperties": False,
    "properties": {
        "type": {"const": "turn"},
        "at": {"type": "string", "description": "optional ISO-8601 timestamp"},
        "player": {"type": "string"},
        "steps": {"type": "array", "minItems": 1, "maxItems": 8, "items": STEP_SCHEMA},
        "draws": {
            "type": "array",
            "maxItems": 4,
            "items": {
                "type": "object",
                "required": ["stack"],
                "additionalProperties": False,
                "properties": {"stack": {"enum": [0, 1, 2]}, "tile": {"enum": list(FACES)}},
            },
        },
    },
}
