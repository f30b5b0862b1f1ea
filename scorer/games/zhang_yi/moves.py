"""Zhang Yi moves: small frozen values, parsed from and written to game records.

Two kinds of input:

* decisions a player makes on the table (recruit, march, hold, place a talent, choose a retreat,
  pick the assassin's target) -- the sensors see their result;
* chance and secrets no sensor sees (talent and action-chit draws, die rolls, destiny chits) --
  ``declared = True``. Draws and die rolls carry a ``source`` (``dashboard``, ``camera``,
  ``card_reader``, ``record``) so a die read by the camera later needs no new move type, and the
  scoreboard can say how many figures rest on declarations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from scorer.core.schema import load_schema
from scorer.core.types import InvalidRecord

SOURCES = ("dashboard", "camera", "card_reader", "record")


@dataclass(frozen=True, slots=True)
class KeepDestiny:
    """Seeded games only: a player keeps one of the two destiny chits dealt to him (5.4)."""

    player: str
    state: str
    declared = True


@dataclass(frozen=True, slots=True)
class DrawTalent:
    """A talent drawn from the pool and turned up (6.2)."""

    player: str
    talent: str
    source: str = "dashboard"
    declared = True


@dataclass(frozen=True, slots=True)
class PlaceTalent:
    """The drawer puts a general, minister or notable into a territory area of its state."""

    player: str
    talent: str
    area: str
    declared = False


@dataclass(frozen=True, slots=True)
class Assassinate:
    """Jing Ke's target, chosen at the end of the talent phase by the player who drew him (10.4)."""

    player: str
    target: str
    declared = False


@dataclass(frozen=True, slots=True)
class DrawChit:
    """An action chit drawn and turned up: that state acts now (6.3.1)."""

    player: str
    state: str
    source: str = "dashboard"
    declared = True


@dataclass(frozen=True, slots=True)
class Recruit:
    """The compulsory recruitment (7): strength added to the active state's areas."""

    player: str
    placements: tuple[tuple[str, int], ...]
    declared = False

    @property
    def total(self) -> int:
        return sum(n for _, n in self.placements)


@dataclass(frozen=True, slots=True)
class March:
    """Move ``strength`` from ``origin`` to the adjacent ``dest``, with some of the talents there (8)."""

    player: str
    origin: str
    dest: str
    strength: int
    talents: tuple[str, ...] = ()
    declared = False


@dataclass(frozen=True, slots=True)
class Hold:
    """The acting player does not move; the action ends (8: moving is optional)."""

    player: str
    declared = False


@dataclass(frozen=True, slots=True)
class RollDie:
    """The battle die (9.1), rolled by the acting player."""

    player: str
    value: int
    source: str = "dashboard"
    declared = True


@dataclass(frozen=True, slots=True)
class Retreat:
    """Where the loser's army retreats (9.3); ``to`` is None only when no area is eligible."""

    player: str
    to: str | None
    declared = False


@dataclass(frozen=True, slots=True)
class RevealDestiny:
    """A player shows his destiny chit (hegemony, end of game, or his state annihilated)."""

    player: str
    state: str
    declared = True


@dataclass(frozen=True, slots=True)
class NotBacked:
    """After an annihilation: nobody reveals that state's destiny chit, so nobody backs it."""

    state: str
    declared = True


ZhangYiMove = (
    KeepDestiny | DrawTalent | PlaceTalent | Assassinate | DrawChit | Recruit | March | Hold | RollDie | Retreat
    | RevealDestiny | NotBacked
)


def move_from_json(data: Mapping[str, Any], where: str = "move") -> ZhangYiMove:
    kind = data.get("type")
    try:
        if kind == "keep_destiny":
            return KeepDestiny(str(data["player"]), str(data["state"]))
        if kind == "draw_talent":
            return DrawTalent(str(data["player"]), str(data["talent"]), str(data.get("source", "dashboard")))
        if kind == "place_talent":
            return PlaceTalent(str(data["player"]), str(data["talent"]), str(data["area"]))
        if kind == "assassinate":
            return Assassinate(str(data["player"]), str(data["target"]))
        if kind == "draw_chit":
            return DrawChit(str(data["player"]), str(data["state"]), str(data.get("source", "dashboard")))
        if kind == "recruit":
            return Recruit(str(data["player"]), tuple((str(p["area"]), int(p["strength"])) for p in data["placements"]))
        if kind == "march":
            return March(str(data["player"]), str(data["from"]), str(data["to"]), int(data["strength"]),
                         tuple(str(t) for t in data.get("talents", ())))
        if kind == "hold":
            return Hold(str(data["player"]))
        if kind == "roll_die":
            return RollDie(str(data["player"]), int(data["value"]), str(data.get("source", "dashboard")))
        if kind == "retreat":
            return Retreat(str(data["player"]), None if data.get("to") is None else str(data["to"]))
        if kind == "reveal_destiny":
            return RevealDestiny(str(data["player"]), str(data["state"]))
        if kind == "not_backed":
            return NotBacked(str(data["state"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidRecord(f"missing or malformed field {exc}", where=where) from None
    raise InvalidRecord(f"unknown Zhang Yi move type {kind!r}", where=f"{where}.type")


def move_to_json(move: ZhangYiMove) -> dict[str, Any]:
    if isinstance(move, KeepDestiny):
        return {"type": "keep_destiny", "player": move.player, "state": move.state}
    if isinstance(move, DrawTalent):
        return {"type": "draw_talent", "player": move.player, "talent": move.talent, "source": move.source}
    if isinstance(move, PlaceTalent):
        return {"type": "place_talent", "player": move.player, "talent": move.talent, "area": move.area}
    if isinstance(move, Assassinate):
        return {"type": "assassinate", "player": move.player, "target": move.target}
    if isinstance(move, DrawChit):
        return {"type": "draw_chit", "player": move.player, "state": move.state, "source": move.source}
    if isinstance(move, Recruit):
        return {"type": "recruit", "player": move.player, "placements": [{"area": a, "strength": n} for a, n in move.placements]}
    if isinstance(move, March):
        out: dict[str, Any] = {"type": "march", "player": move.player, "from": move.origin, "to": move.dest, "strength": move.strength}
        if move.talents:
            out["talents"] = list(move.talents)
        return out
    if isinstance(move, Hold):
        return {"type": "hold", "player": move.player}
    if isinstance(move, RollDie):
        return {"type": "roll_die", "player": move.player, "value": move.value, "source": move.source}
    if isinstance(move, Retreat):
        return {"type": "retreat", "player": move.player, "to": move.to}
    if isinstance(move, RevealDestiny):
        return {"type": "reveal_destiny", "player": move.player, "state": move.state}
    if isinstance(move, NotBacked):
        return {"type": "not_backed", "state": move.state}
    raise TypeError(f"not a Zhang Yi move: {move!r}")


def move_schema() -> dict[str, Any]:
    return load_schema("zhang-yi-move")


def setup_schema() -> dict[str, Any]:
    return load_schema("zhang-yi-setup")
