"""The one interface every game implements, in the shape of python-chess and boardgame.io.

A game is pure code over immutable states:

* ``setup(options)`` -> the initial state (randomness seeded from the options, so replays are exact);
* ``turn(state)`` -> who may act now, in which phase and round, and which input is awaited
  (a move, a declared chance result such as a die roll, or simultaneous secret choices);
* ``violations(state, move)`` -> every rule the move breaks (empty when legal);
* ``apply(state, move)`` -> the next state, with automatic effects (mid-game scoring,
  end of game, final scoring) already resolved; raises ``IllegalMove``;
* ``score``/``outcome`` -> typed results;
* ``visible_board(state)`` -> what the sensors should see on the table;
* ``explain(state, sensed)`` -> candidate moves (possibly partial) that turn the expected board
  into the sensed one, most likely first.

What sensors cannot see (cards in hand, die rolls, money, secret picks) enters as *declared*
moves; a game marks such moves with ``declared = True`` so scoreboards can say which figures
rest on declarations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Iterator, Mapping, Sequence, TypeVar

from scorer.core.observation import ChanceSeen
from scorer.core.results import Outcome, Scoreboard
from scorer.core.types import Board, BoardDiff, IllegalMove, InvalidRecord, Message, Piece, Violation

S = TypeVar("S")
M = TypeVar("M")


@dataclass(frozen=True, slots=True)
class SetupOptions:
    """How a table is set up: players in seating (clockwise) order, board, variants, seed.

    ``extra`` holds game-specific options (e.g. China's ``cards`` tracking mode) as plain JSON.
    """

    players: tuple[str, ...]
    board: str | None = None
    variants: frozenset[str] = frozenset()
    seed: int | None = None
    extra: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.extra).get(key, default)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SetupOptions":
        known = {"players", "board", "variants", "seed"}
        extra = tuple(sorted((k, _freeze(v)) for k, v in data.items() if k not in known))
        return cls(
            players=tuple(str(p) for p in data["players"]),
            board=data.get("board"),
            variants=frozenset(str(v) for v in data.get("variants", ())),
            seed=data.get("seed"),
            extra=extra,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"players": list(self.players)}
        if self.board is not None:
            out["board"] = self.board
        if self.variants:
            out["variants"] = sorted(self.variants)
        if self.seed is not None:
            out["seed"] = self.seed
        out.update({k: _thaw(v) for k, v in self.extra})
        return out


def check_players_and_variants(
    options: SetupOptions,
    *,
    label: str,
    min_players: int,
    max_players: int,
    colours: tuple[str, ...],
    colour_noun: str,
    variants: tuple[str, ...],
) -> tuple[str, ...]:
    """The set-up checks every colour-based game shares: player count, known and distinct
    colours, known variants. Raises ``InvalidRecord`` naming the field; returns the players."""
    players = tuple(options.players)
    if not min_players <= len(players) <= max_players:
        raise InvalidRecord(f"{label} is for {min_players} to {max_players} players, not {len(players)}", where="setup.players")
    for p in players:
        if p not in colours:
            raise InvalidRecord(f"{p!r} is not a {colour_noun} ({', '.join(colours)})", where="setup.players")
    if len(set(players)) != len(players):
        raise InvalidRecord("each player needs a different colour", where="setup.players")
    unknown = set(options.variants) - set(variants)
    if unknown:
        raise InvalidRecord(f"unknown variant(s) {sorted(unknown)}; known: {', '.join(variants)}", where="setup.variants")
    return players


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value):
            return {k: _thaw(v) for k, v in value}
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class TurnInfo:
    """Who may act now. Several ``active`` players mean simultaneous (secret) choices.

    ``awaiting`` names the kind of input expected: ``"move"`` for an ordinary turn, or a declared
    input such as ``"die_roll"`` or ``"return_cards"``; ``phase`` and ``round`` are for display.
    """

    active: tuple[str, ...]
    phase: str = "play"
    round: int | None = None
    awaiting: str = "move"
    prompt: Message | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "active": list(self.active),
            "phase": self.phase,
            "round": self.round,
            "awaiting": self.awaiting,
            "prompt": self.prompt.to_json() if self.prompt else None,
        }


@dataclass(frozen=True, slots=True)
class Explanation(Generic[M]):
    """One way to read a sensed board: the move(s) that produce it and what remains unexplained.

    ``complete`` is false while the move could still grow (a player who has placed the first of
    two pieces). ``violations`` is empty for a legal reading. ``residual`` is the part of the
    difference the moves do not account for (noise or an illegal change). Lower ``cost`` means
    more likely.
    """

    moves: tuple[M, ...]
    complete: bool
    violations: tuple[Violation, ...] = ()
    residual: BoardDiff = field(default_factory=BoardDiff)
    cost: float = 0.0

    @property
    def legal(self) -> bool:
        return not self.violations and not self.residual


class Game(ABC, Generic[S, M]):
    """Base class for a game engine. Subclasses are stateless; all state lives in ``S``."""

    id: ClassVar[str]
    name: ClassVar[Message]
    min_players: ClassVar[int]
    max_players: ClassVar[int]

    # -- set-up and turn order -------------------------------------------------------------
    @abstractmethod
    def setup(self, options: SetupOptions) -> S: ...

    @abstractmethod
    def turn(self, state: S) -> TurnInfo: ...

    # -- legality --------------------------------------------------------------------------
    @abstractmethod
    def violations(self, state: S, move: M) -> tuple[Violation, ...]: ...

    def is_legal(self, state: S, move: M) -> bool:
        return not self.violations(state, move)

    def apply(self, state: S, move: M) -> S:
        """Check, then apply. The single choke point through which every move passes."""
        found = self.violations(state, move)
        if found:
            raise IllegalMove(found)
        return self.apply_unchecked(state, move)

    @abstractmethod
    def apply_unchecked(self, state: S, move: M) -> S:
        """Fast path for moves already known to be legal (replays, simulations)."""

    @abstractmethod
    def legal_moves(self, state: S) -> Iterator[M]:
        """Legal moves of the active player(s); may be large, so it is lazy."""

    # -- results ---------------------------------------------------------------------------
    @abstractmethod
    def score(self, state: S) -> Scoreboard: ...

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """None while the game goes on."""

    def is_over(self, state: S) -> bool:
        return self.outcome(state) is not None

    # -- sensors ---------------------------------------------------------------------------
    @abstractmethod
    def visible_board(self, state: S) -> Board: ...

    @abstractmethod
    def explain(self, state: S, sensed: Board) -> tuple[Explanation[M], ...]: ...

    def shown_board(self, state: S, move: M) -> Board:
        """The board right after the move's own change, before the rules ran the table forward by
        themselves. Where automatic effects move pieces (Ming's scoring: majorities into the city,
        returns, the city emptied into the box) it differs from ``visible_board(apply(...))``, and
        the referee waits without a flag while the players carry those changes out on the table
        (``scorer.referee.reconciler.Follow``). Default: no automatic effect moves a piece."""
        return self.visible_board(self.apply_unchecked(state, move))

    def sensed_owners(self, setup: SetupOptions) -> Mapping[str, str]:
        """Owners the sensors report under another name on this table: ``{sensed: owner}`` (a spare
        player colour standing for the neutral pieces, Ming's 2-player ``neutral_colour``). The table
        renames them before anything is read (``Observation.with_owners``). Default: none."""
        return {}

    def hidden_under(self) -> Mapping[Piece, frozenset[str]]:
        """Pieces a sensor may not see while a piece of one of these kinds lies on them in the same
        space (China's fortress under a house): where the engine has one under such a cover, the
        referee keeps it there when a sensor reads the cover alone (``scorer.core.hidden``).
        Default: every piece stays visible."""
        return {}

    def fixed_spaces(self, state: S | None = None) -> frozenset[str]:
        """Spaces whose pieces are markers the rules set out once and never move, take or score
        (Cheops' six dot markers): the referee keeps what the state has there whatever a sensor reads
        (``scorer.core.fixed``). ``state`` None: those of the game's shipped board. Default: none."""
        return frozenset()

    def seen_disagreements(self, state: S, moves: Sequence[M], seen: Mapping[str, tuple[str, ...]]) -> int:
        """How many things ``moves`` say of the table that a sensor saw otherwise (``seen``: per space,
        ``SpaceReading.seen``): among readings that explain the pieces equally well, the referee takes
        one that agrees with what was seen of how they lie. Default: a game whose sensors see no more
        than which pieces lie where has nothing to compare (0)."""
        return 0

    def camera_declarations(self, state: S, seen: "ChanceSeen") -> tuple[M, ...]:
        """The declared inputs a sensor has just read by itself (``scorer.core.observation.ChanceSeen``:
        dice landed in the tray), as moves to enter now, marked with the sensor as their source;
        empty when the game awaits no such input (the referee keeps a landing for a little while,
        in case the move that calls for it is accepted just after). Default: none; a game whose
        chance inputs a camera can see overrides it."""
        return ()

    # -- records ---------------------------------------------------------------------------
    @abstractmethod
    def move_from_json(self, data: Mapping[str, Any]) -> M:
        """Parse one record entry; raise ``InvalidRecord`` naming the bad field."""

    @abstractmethod
    def move_to_json(self, move: M) -> dict[str, Any]: ...

    def move_schema(self) -> Mapping[str, Any]:
        """JSON Schema of one move of this game (used inside the record schema)."""
        return {"type": "object"}

    def setup_schema(self) -> Mapping[str, Any]:
        """JSON Schema of this game's ``setup`` object in a record."""
        return {"type": "object"}

    def setup_confirmations(self) -> tuple[tuple[str, Message], ...]:
        """Setup flags a person must set knowingly, as ``(setup key, what they confirm)``.

        A dashboard shows each as an unticked checkbox with the text; ticking it sets the key to
        ``true``. Used where the engine refuses to guess on the user's behalf (an invented map).
        """
        return ()

    def setup_deals(self) -> bool:
        """True when a new game needs a ``seed`` from which the engine deals what lies face up at
        set-up (the players then lay the table as the Board page shows). A dashboard asks for one,
        as it does for tracked cards."""
        return False

    def describe_move(self, move: M) -> Message:
        """A short bilingual description of a move for history lists."""
        return Message(repr(move), repr(move))

    def state_to_json(self, state: S) -> dict[str, Any]:
        """A JSON view of the state for dashboards (not a serialisation: records replay moves)."""
        return {}
