"""Lines (连线), a toy game that lives outside tableref's core and plugs into it.

Rules: two players take turns putting one stone of their colour on an empty space. When the board
is full, every line (row, column, diagonal of the board file) held entirely by one player scores
that player 1 point; most points wins, equal points share the win.

Everything a game plugin needs is here: the engine (``scorer.core.game.Game``), a data file
(``board.json``) checked against its JSON Schema (``board.schema.json``) with tableref's own
loader and validator, and every player-facing text in English and Simplified Chinese, taken from
the data file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Iterator, Mapping

from scorer.core import safejson
from scorer.core.game import Explanation, Game, SetupOptions, TurnInfo, check_players_and_variants
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Termination, winners_from
from scorer.core.schema import read_json, validate
from scorer.core.types import Board, BoardDiff, IllegalMove, InvalidRecord, Message, Piece, SpaceId, Violation

STONE = "stone"
PACKAGE = "tableref_lines"


# -- the data file ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class LinesBoard:
    id: str
    colours: tuple[str, ...]
    spaces: tuple[str, ...]
    lines: tuple[tuple[str, ...], ...]
    texts: tuple[tuple[str, tuple[str, str]], ...]

    def text(self, key: str, **fields: object) -> Message:
        """A bilingual text of the data file with its ``{fields}`` filled in."""
        en, zh = dict(self.texts)[key]
        return Message(en.format(**fields), zh.format(**fields))


def _schema() -> dict[str, Any]:
    return safejson.loads(resources.files(PACKAGE).joinpath("board.schema.json").read_text("utf-8"), "lines board schema")


def board_from_json(doc: Any, where: str) -> LinesBoard:
    """Schema first (naming the bad field), then what a schema cannot say."""
    validate(doc, _schema(), where)
    spaces = set(doc["spaces"])
    for i, line in enumerate(doc["lines"]):
        unknown = [s for s in line if s not in spaces]
        if unknown:
            raise InvalidRecord(f"line {i} names unknown space(s) {unknown}", where=f"{where} $.lines[{i}]")
    missing = {"name", "place", "not_your_turn", "not_your_turn_fix", "unknown_space", "occupied", "occupied_fix",
               "over", "full", "extra", "extra_fix"} - set(doc["texts"])
    if missing:
        raise InvalidRecord(f"texts missing: {sorted(missing)}", where=f"{where} $.texts")
    texts = tuple(sorted((k, (v["en"], v["zh"])) for k, v in doc["texts"].items()))
    return LinesBoard(doc["id"], tuple(doc["colours"]), tuple(doc["spaces"]), tuple(tuple(x) for x in doc["lines"]), texts)


def shipped_board() -> LinesBoard:
    text = resources.files(PACKAGE).joinpath("board.json").read_text("utf-8")
    return board_from_json(safejson.loads(text, "lines board (shipped)"), "board lines-3x3")


def load_board(ref: str | None) -> LinesBoard:
    """``None`` or the shipped id: the board in this package; anything else: a board file path."""
    if ref in (None, SHIPPED.id):
        return SHIPPED
    return board_from_json(read_json(str(ref), "board"), f"board {ref}")


SHIPPED = shipped_board()


# -- moves and state ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Place:
    player: str
    space: SpaceId

    @property
    def placements(self) -> tuple["Place", ...]:
        """What the move puts on the table (the referee uses it to tell a part of a move)."""
        return (self,)


@dataclass(frozen=True, slots=True)
class LinesState:
    board: LinesBoard
    players: tuple[str, ...]
    cells: tuple[str | None, ...]  # owner per space, in board order
    turn: int = 0

    def owner(self, space: str) -> str | None:
        return self.cells[self.board.spaces.index(space)]

    @property
    def full(self) -> bool:
        return all(c is not None for c in self.cells)


MOVE_SCHEMA = {
    "type": "object",
    "required": ["type", "player", "space"],
    "additionalProperties": False,
    "properties": {"type": {"const": "place"}, "player": {"type": "string"}, "space": {"type": "string"},
                   "at": {"type": "string"}},
}


class LinesGame(Game[LinesState, Place]):
    id = "lines"
    name = SHIPPED.text("name")
    min_players = 2
    max_players = 2

    # -- set-up and turns -------------------------------------------------------------------
    def setup(self, options: SetupOptions) -> LinesState:
        board = load_board(options.board)
        players = check_players_and_variants(options, label=board.text("label").en, min_players=2, max_players=2,
                                             colours=board.colours, colour_noun="colour of this board", variants=())
        return LinesState(board, players, (None,) * len(board.spaces))

    def turn(self, state: LinesState) -> TurnInfo:
        if state.full:
            return TurnInfo((), phase="over", awaiting="none")
        return TurnInfo((state.players[state.turn % 2],), round=state.turn // 2 + 1)

    # -- legality -------------------------------------------------------------------------------
    def violations(self, state: LinesState, move: Place) -> tuple[Violation, ...]:
        b = state.board
        if state.full:
            return (Violation("game.over", b.text("over")),)
        out = []
        active = state.players[state.turn % 2]
        if move.player != active:
            out.append(Violation("turn.not_yours", b.text("not_your_turn", active=active, player=move.player),
                                 (move.space,), b.text("not_your_turn_fix", active=active)))
        if move.space not in b.spaces:
            out.append(Violation("board.unknown_space", b.text("unknown_space", space=move.space), (move.space,)))
        elif state.owner(move.space) is not None:
            out.append(Violation("place.occupied", b.text("occupied", space=move.space), (move.space,), b.text("occupied_fix")))
        return tuple(out)

    def apply_unchecked(self, state: LinesState, move: Place) -> LinesState:
        i = state.board.spaces.index(move.space)
        cells = state.cells[:i] + (move.player,) + state.cells[i + 1:]
        return replace(state, cells=cells, turn=state.turn + 1)

    def legal_moves(self, state: LinesState) -> Iterator[Place]:
        if state.full:
            return
        player = state.players[state.turn % 2]
        for space, owner in zip(state.board.spaces, state.cells):
            if owner is None:
                yield Place(player, SpaceId(space))

    # -- results --------------------------------------------------------------------------------
    def _lines_of(self, state: LinesState, player: str) -> int:
        return sum(1 for line in state.board.lines if all(state.owner(s) == player for s in line))

    def score(self, state: LinesState) -> Scoreboard:
        players = tuple(PlayerScore(p, n, (("lines", n),)) for p in state.players for n in [self._lines_of(state, p)])
        return Scoreboard(self.id, players, final=state.full, categories=("lines",))

    def outcome(self, state: LinesState) -> Outcome | None:
        if not state.full:
            return None
        winners, tiebreak = winners_from(self.score(state))
        return Outcome(Termination.NO_LEGAL_PLACEMENT, winners, state.board.text("full"), tiebreak)

    # -- sensors --------------------------------------------------------------------------------
    def visible_board(self, state: LinesState) -> Board:
        return Board.from_placements((s, Piece(o, STONE)) for s, o in zip(state.board.spaces, state.cells) if o)

    def explain(self, state: LinesState, sensed: Board) -> tuple[Explanation[Place], ...]:
        """One stone of the player to move on an empty space is the move; anything else is residual."""
        diff = self.visible_board(state).diff(sensed)
        if not diff:
            return (Explanation((), False),)
        out = []
        for space, piece, n in diff.added:
            if piece.kind != STONE or n != 1:
                continue
            move = Place(piece.owner, space)
            rest = BoardDiff(tuple(x for x in diff.added if x != (space, piece, n)), diff.removed)
            found = self.violations(state, move)
            out.append(Explanation((move,), True, found, rest, cost=len(rest.added) + len(rest.removed) + 10 * len(found)))
        if not out:
            extra = tuple(Violation("board.unexplained", state.board.text("extra", n=n, space=s), (s,),
                                    state.board.text("extra_fix", space=s)) for s, _p, n in diff.added)
            out.append(Explanation((), False, extra, diff, cost=100.0))
        return tuple(sorted(out, key=lambda e: e.cost))

    # -- records --------------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> Place:
        if data.get("type") != "place":
            raise InvalidRecord("a Lines move is {\"type\": \"place\", \"player\", \"space\"}", where="move.type")
        return Place(str(data["player"]), SpaceId(str(data["space"])))

    def move_to_json(self, move: Place) -> dict[str, Any]:
        return {"type": "place", "player": move.player, "space": move.space}

    def move_schema(self) -> Mapping[str, Any]:
        return MOVE_SCHEMA

    def setup_schema(self) -> Mapping[str, Any]:
        return {"type": "object", "required": ["players"], "additionalProperties": False,
                "properties": {"players": {"type": "array", "minItems": 2, "maxItems": 2, "uniqueItems": True,
                                           "items": {"enum": list(SHIPPED.colours)}},
                               "board": {"type": "string"}, "seed": {"type": "integer"}}}

    def describe_move(self, move: Place) -> Message:
        return SHIPPED.text("place", player=move.player, space=move.space)

    def state_to_json(self, state: LinesState) -> dict[str, Any]:
        return {"board": state.board.id, "players": list(state.players),
                "cells": dict(zip(state.board.spaces, state.cells))}


GAME = LinesGame()

__all__ = ["GAME", "IllegalMove", "LinesGame", "LinesState", "Place", "load_board"]
