"""The Cheops engine: ``scorer.core.Game`` for Cheops (Klaus Paal, Hans im Glück 1998; rules/cheops.md)."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from itertools import product
from typing import Any, Iterator, Mapping

from scorer.core.game import Explanation, Game, SetupOptions, TurnInfo
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Termination, Unchecked, winners_from
from scorer.core.types import Board, InvalidRecord, Message, Piece, SpaceId, Violation, player_label
from scorer.games.cheops import moves as mv
from scorer.games.cheops import rules, scoring
from scorer.games.cheops.data import (
    DRAWN_PER_TYPE,
    FACES,
    LAW_NUMBERS,
    LAWS_IN_GAME,
    SPACE_INDEX,
    SPACES,
    TILES_PER_FACE,
    TREASURES_PER_COLOUR,
    CheopsBoard,
    PriceTables,
    load_board,
    load_price_tables,
)
from scorer.games.cheops.moves import (
    KEPT_PREFIX,
    BuyNeighbour,
    CheopsMove,
    Draw,
    Pass,
    PlaceTile,
    Step,
    Take,
    Turn,
    UseLaw10,
    UseLaw11,
    UseLaw12,
)
from scorer.games.cheops.state import (
    CAT_CASH,
    CAT_JOKER,
    EMPTY,
    HAND_SIZE,
    LAW_BASE,
    LAW_HIDDEN,
    NEIGHBOUR_PRICE,
    NEIGHBOUR_TILE,
    NO_TILE,
    CheopsRules,
    CheopsState,
    Effect,
    is_law,
    is_treasure,
    law_code,
)

PLAYER_ID = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
NEUTRAL = "neutral"


def family_kind(face: int) -> str:
    return f"family-{FACES[face]}"


def treasure_kind(colour: str) -> str:
    return f"treasure-{colour}"


LAW_FACE_DOWN = "law"


def law_kind(n: int) -> str:
    return f"law-{n}"


# Variants whose reading became the default: still accepted in records (they change nothing now).
RETIRED_VARIANTS = {
    "law8_pyramid": "law 8 may remove a face-down law on the pyramid: the default since issue 13 (E1)",
}


class CheopsGame(Game[CheopsState, CheopsMove]):
    id = "cheops"
    name = Message.t('cheops.engine.cheops')
    min_players = 2
    max_players = 5

    # -- set-up ---------------------------------------------------------------------------------
    def setup(self, options: SetupOptions) -> CheopsState:
        players = tuple(options.players)
        if not self.min_players <= len(players) <= self.max_players:
            raise InvalidRecord(f"Cheops is for 2 to 5 players, not {len(players)}", where="setup.players")
        for p in players:
            if not PLAYER_ID.match(p):
                raise InvalidRecord(f"{p!r} is not a player id (lower-case letters, digits, - or _)", where="setup.players")
        if len(set(players)) != len(players):
            raise InvalidRecord("each player needs a different id", where="setup.players")
        unknown = set(options.variants) - set(CheopsRules.VARIANTS) - set(RETIRED_VARIANTS)
        if unknown:
            raise InvalidRecord(f"unknown variant(s) {sorted(unknown)}; known: {', '.join(CheopsRules.VARIANTS)}", where="setup.variants")
        board = options.board if isinstance(options.board, CheopsBoard) else load_board(options.board)
        catalog = options.get("price_tables")
        catalog = catalog if isinstance(catalog, PriceTables) else load_price_tables(catalog)
        seed = options.seed
        rng = random.Random(f"cheops:{seed}") if seed is not None else None
        n = len(players)
        explicit_stacks = options.get("stacks")
        mode = options.get("tiles", "tracked" if explicit_stacks is not None else "untracked")
        if mode not in ("tracked", "untracked"):
            raise InvalidRecord("tiles must be 'tracked' or 'untracked'", where="setup.tiles")
        if mode == "untracked" and explicit_stacks is not None:
            raise InvalidRecord("stacks are given, so tiles cannot be 'untracked'", where="setup.tiles")
        track = mode == "tracked"
        if track and explicit_stacks is None and rng is None:
            raise InvalidRecord("tracked tiles need a seed or the three stacks", where="setup.stacks")
        rules_ = CheopsRules(
            **{v: (v in options.variants) for v in CheopsRules.VARIANTS},
            start_cash=int(options.get("start_cash", 0)),
            neighbours=int(options.get("neighbours", 4)),
            track_tiles=track,
        )
        if rules_.start_cash < 0 or not 0 <= rules_.neighbours <= 12:
            raise InvalidRecord("start_cash must be >= 0 and neighbours 0-12", where="setup")
        tables = _tables(options.get("tables"), board, catalog, rng)
        content = _pyramid(options.get("pyramid"), options.get("laws"), board, rng)
        in_stacks = TILES_PER_FACE - n
        stacks = None
        if track:
            stacks = _stacks(explicit_stacks, n, rng)
            stack_size = tuple(len(s) for s in stacks)
        else:
            stack_size = _stack_sizes(options.get("stack_sizes"), n)
        return CheopsState(
            board=board,
            catalog=catalog,
            players=players,
            rules=rules_,
            tables=tables,
            content=content,
            tile=(NO_TILE,) * len(SPACES),
            placer=(-1,) * len(SPACES),
            covered=(0,) * len(board.colours),
            sold_for_nothing=(0,) * len(board.colours),
            table_law=(0,) * len(board.colours),
            market_laws=(),
            law3=False,
            revealed=(),
            out_of_play=(),
            cash=(rules_.start_cash,) * n,
            kept=((0,) * len(board.colours),) * n,
            held=((),) * n,
            saved_neighbours=(0,) * n,
            hands=((1,) * len(FACES),) * n,
            hand_size=(HAND_SIZE,) * n,
            stacks=stacks,
            stack_size=stack_size,  # type: ignore[arg-type]
            stack_faces=(in_stacks,) * len(FACES),
            neighbours_left=rules_.neighbours,
        )

    def turn(self, state: CheopsState) -> TurnInfo:
        if state.finished is not None:
            return TurnInfo((), phase="over", round=None, awaiting="none")
        return TurnInfo((state.players[state.active],), phase="play", round=state.turn_number // state.n + 1, awaiting="move")

    # -- legality and effects ---------------------------------------------------------------------
    def violations(self, state: CheopsState, move: CheopsMove) -> tuple[Violation, ...]:
        return rules.violations(state, move)

    def apply_unchecked(self, state: CheopsState, move: CheopsMove) -> CheopsState:
        if not isinstance(move, Turn):
            raise TypeError(f"not a Cheops move: {move!r}")
        w = rules.resolve(state, move, check=False)
        return self._end_turn(w)

    def _end_turn(self, w: rules.Work) -> CheopsState:
        s = w.s
        passes = s.passes_in_row + 1 if w.passed else 0
        state = w.freeze(active=(s.active + 1) % s.n, turn_number=s.turn_number + 1, passes_in_row=passes)
        why = w.ended
        if why is None:
            ending = end_of_turn_condition(state, w.passed)
            if ending is not None:
                why = ending[0]
                state = replace(state, effects=state.effects + (Effect("end_condition", ending[1]),))
        if why is not None:
            state = replace(state, finished=why, effects=state.effects + (
                Effect("game_over", Message.t('cheops.engine.the_game_is_over')),
                Effect("final_scoring", Message.t('cheops.engine.final_scoring_cash_plus_kept')),
            ))
        return state

    # -- enumerating moves ------------------------------------------------------------------------
    def legal_moves(self, state: CheopsState) -> Iterator[CheopsMove]:
        """Every legal turn, lazily: first the turns without a kept law 10 or 12 (they are few),
        then those that use one (a law-12 swap multiplies the turns by every pair of treasures).

        Each turn is spelled one way: a law taken carries its number, a law-12 swap names a kept
        treasure first and two pyramid spaces in board order, draws name no face. Other spellings
        of the same turn (a known law's number left out, the pair reversed, a tracked draw's face
        declared) are legal too and do the same.
        """
        return self.legal_turns(state, ())

    def legal_turns(self, state: CheopsState, begun: tuple[Step, ...] = ()) -> Iterator[CheopsMove]:
        """Every legal turn of the active player that begins with the steps ``begun`` (a turn
        being declared, or read off the table step by step); ``legal_moves`` is ``begun=()``.

        The turns are the paths of a tree: from a turn begun, ``next_steps`` lists the steps that
        may follow; a path is a whole turn once it has its step B (or once a step ended the game),
        and then every way to draw is tried. Each candidate is kept only if ``violations`` finds
        nothing.
        """
        if state.finished is not None:
            return
        player = state.players[state.active]
        seen: set[CheopsMove] = set()
        for with_laws in (False, True):
            for steps in _sequences(state, player, tuple(begun), with_laws):
                if _uses_kept_law(steps) != with_laws:
                    continue
                w = rules.resolve(state, Turn(player, steps), check=False)
                for draws in _draw_options(w, steps):
                    move = Turn(player, steps, draws)
                    if move not in seen and not rules.violations(state, move):
                        seen.add(move)
                        yield move

    def next_steps(self, state: CheopsState, begun: tuple[Step, ...] = ()) -> list[Step]:
        """The steps that may come next in the active player's turn after ``begun``: each one
        passes the step checks on the position the earlier steps left. (Whether the turn can
        then be finished -- a step B after a neighbour -- is judged on the whole turn.)"""
        if state.finished is not None:
            return []
        player = state.players[state.active]
        w = _partial(state, player, tuple(begun))
        if w is None or (w.ended is not None and not state.rules.end_after_turn):
            return []
        return [s for s in _proposals(w, tuple(begun), True) if _partial(state, player, (*begun, s)) is not None]

    # -- results ----------------------------------------------------------------------------------
    def score(self, state: CheopsState) -> Scoreboard:
        res = final_scoring(state)
        colours = state.colours
        categories = (CAT_CASH, *colours, CAT_JOKER)
        players = []
        for i, pl in enumerate(state.players):
            breakdown = ((CAT_CASH, res.cash[i]), *((c, res.colours[k][i]) for k, c in enumerate(colours)), (CAT_JOKER, res.joker[i]))
            players.append(PlayerScore(pl, res.totals[i], breakdown, tiebreak=(res.cash[i],) if state.rules.tiebreak_cash else ()))
        return Scoreboard(
            game=self.id,
            players=tuple(players),
            final=state.finished is not None,
            not_checked=unchecked(state, res),
            declared=declared(state),
            provisional_data=state.board.provisional or any(t.provisional for t in state.tables),
            categories=categories,
        )

    def outcome(self, state: CheopsState) -> Outcome | None:
        if state.finished is None:
            return None
        winners, by_tiebreak = winners_from(self.score(state))
        if len(winners) > 1:
            reason = (Message.t('cheops.engine.shared_victory_equal_totals_and') if state.rules.tiebreak_cash
                      else Message.t('cheops.engine.shared_victory_equal_totals_c19'))
        elif by_tiebreak:
            reason = Message.t('cheops.engine.won_on_the_tie_break')
        else:
            reason = Message.t('cheops.engine.richest_player_cash_plus_kept')
        return Outcome(state.finished, winners, reason, by_tiebreak and len(winners) == 1)

    # -- sensors ------------------------------------------------------------------------------------
    def visible_board(self, state: CheopsState) -> Board:
        """Tiles and what lies open on the pyramid, scarabs on the price tables, laws under them.

        Face-down laws are seen only as ``law``; kept treasures, hands, money and held laws lie
        in front of the players and are not part of the board.
        """
        cells: dict[str, dict[Piece, int]] = {}
        for i, s in enumerate(SPACES):
            t = state.tile[i]
            if t != NO_TILE:
                cells[s] = {Piece(NEUTRAL, "neighbour" if t == NEIGHBOUR_TILE else family_kind(t)): 1}
                continue
            code = state.content[i]
            if code == EMPTY:
                continue
            if is_treasure(code):
                cells[s] = {Piece(NEUTRAL, treasure_kind(state.colours[code])): 1}
            else:
                cells[s] = {Piece(NEUTRAL, LAW_FACE_DOWN): 1}
        for c, colour in enumerate(state.colours):
            cells[f"dot-{colour}"] = {Piece(NEUTRAL, treasure_kind(colour)): 1}
            if state.covered[c]:
                cells[f"price-{colour}"] = {Piece(NEUTRAL, treasure_kind(colour)): state.covered[c]}
            if state.table_law[c]:
                cells[f"price-{colour}-law"] = {Piece(NEUTRAL, law_kind(state.table_law[c])): 1}
        return Board.from_counts(cells)

    def explain(self, state: CheopsState, sensed: Board) -> tuple[Explanation[CheopsMove], ...]:
        from scorer.games.cheops.explain import explain

        return explain(self, state, sensed)

    # -- records ------------------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> CheopsMove:
        return mv.move_from_json(data)

    def move_to_json(self, move: CheopsMove) -> dict[str, Any]:
        return mv.move_to_json(move)

    def move_schema(self) -> Mapping[str, Any]:
        return mv.MOVE_SCHEMA

    def setup_schema(self) -> Mapping[str, Any]:
        space = {"type": "string", "pattern": "^r([1-9]|1[01])c([1-9]|1[01])$"}
        return {
            "type": "object",
            "required": ["players"],
            "additionalProperties": False,
            "properties": {
                "players": {"type": "array", "minItems": 2, "maxItems": 5, "uniqueItems": True,
                            "items": {"type": "string", "pattern": PLAYER_ID.pattern},
                            "description": "seating (clockwise) order; the first player starts (the youngest)"},
                "board": {"type": "string", "description": "'cheops' (shipped, provisional) or a board file path"},
                "price_tables": {"type": "string", "description": "'shipped' (provisional) or a price-table file path"},
                "variants": {"type": "array", "uniqueItems": True,
                             "items": {"anyOf": [{"enum": list(CheopsRules.VARIANTS)},
                                                 {"enum": list(RETIRED_VARIANTS), "deprecated": True,
                                                  "description": "accepted in old records; its reading is the default now"}]}},
                "seed": {"type": "integer", "description": "deals whatever is not given explicitly (tables, pyramid, laws, stacks)"},
                "tables": {"type": "object", "additionalProperties": {"type": "string", "pattern": "^(I|II|III)-[0-9]+$"},
                           "description": "colour -> price table id on that column (2 of each type)"},
                "pyramid": {"type": "object", "additionalProperties": {"type": "string"},
                            "description": "space -> treasure colour for the 60 spaces without an eye"},
                "laws": {"type": "object", "additionalProperties": {"enum": list(LAW_NUMBERS)},
                         "description": "eye space -> law number, when known (otherwise laws are face down and declared when taken)"},
                "tiles": {"enum": ["tracked", "untracked"]},
                "stacks": {"type": "array", "minItems": 3, "maxItems": 3,
                           "items": {"type": "array", "items": {"enum": list(FACES)}},
                           "description": "the three face-up stacks, each listed from the top down"},
                "stack_sizes": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "integer", "minimum": 0}},
                "start_cash": {"type": "integer", "minimum": 0, "description": "C9: starting money (default 0)"},
                "neighbours": {"type": "integer", "minimum": 0, "maximum": 12, "description": "C10: neighbour tiles (default 4)"},
            },
            "$comment": f"space ids match {space['pattern']}",
        }

    def describe_move(self, move: CheopsMove) -> Message:
        parts = [_describe_step(s) for s in move.steps]
        if move.draws:
            parts.append(Message.t("cheops.describe.draws", stacks=tuple(d.stack for d in move.draws)))
        steps: Message | str = parts[0] if parts else ""
        for part in parts[1:]:
            steps = Message.t("list.semicolon", a=steps, b=part)
        return Message.t("cheops.describe.move", player=player_label(move.player), steps=steps)

    def state_to_json(self, state: CheopsState) -> dict[str, Any]:
        return {
            "players": list(state.players),
            "active": state.players[state.active] if state.finished is None else None,
            "turn_number": state.turn_number,
            "finished": state.finished.value if state.finished else None,
            "market_price": state.market_price(),
            "market_laws": list(state.market_laws),
            "law3": state.law3,
            "tables": [
                {
                    "colour": colour,
                    "table": state.tables[c].id,
                    "provisional": state.tables[c].provisional,
                    "covered": state.covered[c],
                    "full": state.table_full(c),
                    "current": state.tables[c].entries[state.covered[c]].label(),
                    "law": state.table_law[c] or None,
                }
                for c, colour in enumerate(state.colours)
            ],
            "pyramid": {
                SPACES[i]: {
                    "tile": (None if state.tile[i] == NO_TILE else "neighbour" if state.tile[i] == NEIGHBOUR_TILE else FACES[state.tile[i]]),
                    "placed_by": state.players[state.placer[i]] if state.placer[i] >= 0 else None,
                    "content": _content_label(state, state.content[i]),
                }
                for i in range(len(SPACES))
            },
            "neighbours_left": state.neighbours_left,
            "stacks": list(state.stack_size),
            "hand_size": dict(zip(state.players, state.hand_size)),
            "held_laws": {pl: list(state.held[i]) for i, pl in enumerate(state.players)},
            "effects": [{"kind": e.kind, "message": e.message.to_json()} for e in state.effects],
        }


# -- helpers -----------------------------------------------------------------------------------------

def _content_label(state: CheopsState, code: int) -> str | None:
    if code == EMPTY:
        return None
    if is_treasure(code):
        return treasure_kind(state.colours[code])
    return LAW_FACE_DOWN if code == LAW_HIDDEN else law_kind(code - LAW_BASE)


def _take_text(t: Take) -> Message | str:
    """What a step took, as the tail of its description ("" when it took nothing)."""
    if t.sell is not None:
        return Message.t("cheops.describe.sells" if t.sell else "cheops.describe.keeps")
    if t.law is None:
        return ""
    if t.discard:
        return Message.t("cheops.describe.takes_law.discarded", law=t.law)
    if t.table:
        return Message.t("cheops.describe.takes_law.table", law=t.law, table=t.table)
    if t.remove:
        return Message.t("cheops.describe.takes_law.removes", law=t.law, remove=t.remove)
    return Message.t("cheops.describe.takes_law", law=t.law)


def _describe_step(s: Step) -> Message:
    if isinstance(s, (PlaceTile, UseLaw11)):
        key = "cheops.describe.place.law11" if isinstance(s, UseLaw11) else "cheops.describe.place"
        return Message.t(key, tile=s.tile, space=s.space, take=_take_text(s.take))
    if isinstance(s, BuyNeighbour):
        if s.save:
            return Message.t("cheops.describe.neighbour_saved")
        return Message.t("cheops.describe.neighbour", space=s.space, take=_take_text(s.take))
    if isinstance(s, Pass):
        return Message.t("cheops.describe.pass")
    if isinstance(s, UseLaw10):
        return Message.t("cheops.describe.law10", colour=s.colour)
    if isinstance(s, UseLaw12):
        return Message.t("cheops.describe.law12", first=s.first, second=s.second)
    return Message.t("name.as_given", name=repr(s))


def _tables(given: Any, board: CheopsBoard, catalog: PriceTables, rng: random.Random | None):
    if given is None:
        if rng is None:
            raise InvalidRecord("say which price table lies on each column ('tables') or give a seed", where="setup.tables")
        drawn = []
        for kind, k in DRAWN_PER_TYPE.items():
            drawn += rng.sample(catalog.of_type(kind), k)
        rng.shuffle(drawn)
        return tuple(drawn)
    given = dict(given)
    if set(given) != set(board.colours):
        raise InvalidRecord(f"tables must name one table for each colour ({', '.join(board.colours)})", where="setup.tables")
    out = []
    for colour in board.colours:
        t = catalog.by_id.get(given[colour])
        if t is None:
            raise InvalidRecord(f"unknown price table {given[colour]!r}", where=f"setup.tables.{colour}")
        out.append(t)
    if len({t.id for t in out}) != len(out):
        raise InvalidRecord("each column needs a different price table", where="setup.tables")
    for kind, k in DRAWN_PER_TYPE.items():
        if sum(1 for t in out if t.type == kind) != k:
            raise InvalidRecord(f"the setup draws {k} tables of type {kind}", where="setup.tables")
    return tuple(out)


def _pyramid(given: Any, laws: Any, board: CheopsBoard, rng: random.Random | None) -> tuple[int, ...]:
    content = [EMPTY] * len(SPACES)
    plain = [i for i in range(len(SPACES)) if i not in board.eye_index]
    if given is None:
        if rng is None:
            raise InvalidRecord("say which treasure lies on each space ('pyramid') or give a seed", where="setup.pyramid")
        bag = [c for c in range(len(board.colours)) for _ in range(TREASURES_PER_COLOUR - 1)]
        rng.shuffle(bag)
        for i, c in zip(plain, bag):
            content[i] = c
    else:
        given = dict(given)
        want = {SPACES[i] for i in plain}
        if set(given) != want:
            missing = sorted(want - set(given), key=SPACE_INDEX.__getitem__)[:3]
            extra = sorted(set(given) - want)[:3]
            raise InvalidRecord(f"pyramid must give a colour for each of the 60 spaces without an eye (missing {missing}, not allowed {extra})",
                                where="setup.pyramid")
        counts = {c: 0 for c in board.colours}
        for space, colour in given.items():
            if colour not in board.colour_index:
                raise InvalidRecord(f"unknown treasure colour {colour!r}", where=f"setup.pyramid.{space}")
            counts[colour] += 1
            content[SPACE_INDEX[space]] = board.colour_index[colour]
        bad = {c: k for c, k in counts.items() if k != TREASURES_PER_COLOUR - 1}
        if bad:
            raise InvalidRecord(f"each colour has {TREASURES_PER_COLOUR - 1} treasures on the pyramid; found {bad}", where="setup.pyramid")
    eyes = sorted(board.eye_index)
    if laws is not None:
        laws = dict(laws)
        if set(laws) != set(board.eye_spaces):
            raise InvalidRecord(f"laws must give the law on each eye space ({', '.join(board.eye_spaces)})", where="setup.laws")
        if len(set(laws.values())) != LAWS_IN_GAME:
            raise InvalidRecord("the 6 laws in play are 6 different tiles", where="setup.laws")
        for space, n in laws.items():
            content[SPACE_INDEX[space]] = law_code(int(n))
    elif rng is not None:
        for i, n in zip(eyes, rng.sample(LAW_NUMBERS, LAWS_IN_GAME)):
            content[i] = law_code(n)
    else:
        for i in eyes:
            content[i] = LAW_HIDDEN
    return tuple(content)


def _stacks(given: Any, n: int, rng: random.Random | None) -> tuple[tuple[int, ...], ...]:
    if given is None:
        assert rng is not None
        bag = [f for f in range(len(FACES)) for _ in range(TILES_PER_FACE - n)]
        rng.shuffle(bag)
        sizes = _even(len(bag))
        out, k = [], 0
        for size in sizes:
            out.append(tuple(bag[k:k + size]))
            k += size
        return tuple(out)
    counts = [0] * len(FACES)
    out = []
    for stack in given:
        faces = [FACES.index(f) for f in stack]
        for f in faces:
            counts[f] += 1
        out.append(tuple(reversed(faces)))  # listed top first; stored with the top last
    if counts != [TILES_PER_FACE - n] * len(FACES):
        raise InvalidRecord(f"with {n} players the stacks hold {TILES_PER_FACE - n} tiles of each face; found {dict(zip(FACES, counts))}",
                            where="setup.stacks")
    return tuple(out)


def _even(total: int) -> tuple[int, int, int]:
    return tuple(total // 3 + (1 if i < total % 3 else 0) for i in range(3))  # type: ignore[return-value]


def _stack_sizes(given: Any, n: int) -> tuple[int, int, int]:
    total = len(FACES) * (TILES_PER_FACE - n)
    if given is None:
        return _even(total)
    sizes = tuple(int(x) for x in given)
    if sum(sizes) != total:
        raise InvalidRecord(f"with {n} players the three stacks hold {total} tiles together, not {sum(sizes)}", where="setup.stack_sizes")
    return sizes  # type: ignore[return-value]


PASS_ROUND = Message.t('cheops.engine.every_player_passed_in_succession')


def end_of_turn_condition(state: CheopsState, passed: bool) -> tuple[Termination, Message] | None:
    """End condition 3 (rules/cheops.md 7, C3), judged after a whole turn.

    The rulebook's reading: a player who cannot place passes, and the game ends when every
    player has passed in succession -- so a player who can no longer place still has that pass
    turn to use laws 10 and 12 (E4). Variant ``end_on_first_pass``: the first pass ends it;
    variant ``end_when_blocked``: it ends right after the turn that leaves no player able to
    place (nor to buy a neighbour and then place), or that uses up the last family tile."""
    r = state.rules
    if passed and r.end_on_first_pass:
        return Termination.NO_LEGAL_PLACEMENT, rules._end_message(Termination.NO_LEGAL_PLACEMENT)
    if state.passes_in_row >= state.n:
        return Termination.BLOCKED, PASS_ROUND
    if r.end_when_blocked:
        if not any(state.hand_size) and not any(state.stack_size):
            return Termination.DECK_EXHAUSTED, rules._end_message(Termination.DECK_EXHAUSTED)
        if not can_anyone_place(state):
            return Termination.BLOCKED, rules._end_message(Termination.BLOCKED)
    return None


def can_anyone_place(state: CheopsState) -> bool:
    """Could some player still place a family tile on their next turn: normally, by law 11, or
    after buying a neighbour (step A: 20 piasters and a neighbour left, or a saved one) whose tile
    gives a new space its support? Unknown hands may hold any face, so they count as able
    whenever any face fits somewhere."""
    tile = state.tile
    memo: dict[tuple[int, bool], bool] = {}

    def fits(face: int, support: bool) -> bool:
        key = (face, support)
        if key not in memo:
            memo[key] = rules.fits_somewhere(tile, face, support=support)
        return memo[key]

    after_neighbour: list[list[int]] | None = None
    for p in range(state.n):
        if state.hand_size[p] <= 0:
            continue
        hand = state.hands[p]
        faces = rules.hand_faces(hand) if hand is not None else range(len(FACES))
        law11 = 11 in state.held[p] and not state.rules.law11_support
        if any(fits(f, True) or (law11 and fits(f, False)) for f in faces):
            return True
        if not could_buy_neighbour(state, p):
            continue
        if after_neighbour is None:
            after_neighbour = []
            for i in rules.neighbour_spaces(tile, state.rules.neighbours_may_touch):
                t2 = list(tile)
                t2[i] = NEIGHBOUR_TILE
                after_neighbour.append(t2)
        # law 11 needs no support, so a neighbour adds nothing to it: only normal placements count
        if any(rules.fits_somewhere(t2, f) for t2 in after_neighbour for f in faces):
            return True
    return False


def could_buy_neighbour(state: CheopsState, p: int) -> bool:
    """Can player ``p`` place a neighbour on their next turn (step A)? Money changes only on a
    player's own turn and step A comes first, so it is the cash now. (A law-10 sale during a pass
    could raise the 20 piasters for a later turn, but when nobody can place, the others' passes
    that follow complete the closing round first.)"""
    if state.rules.save_neighbour and state.saved_neighbours[p] > 0:
        return True
    return state.neighbours_left > 0 and state.cash[p] >= NEIGHBOUR_PRICE


def entries_at_end(state: CheopsState) -> list:
    """Per colour: the entry that sets the value (None = law 7's flat 20)."""
    out = []
    for c, t in enumerate(state.tables):
        if state.table_law[c] == 7:
            out.append(None)
        else:
            out.append(scoring.end_entry(t.entries, state.covered[c], state.rules.value_last_covered))
    return out


def scoring_options(state: CheopsState) -> scoring.ScoringOptions:
    r = state.rules
    return scoring.ScoringOptions(r.x_own_count, r.single_holder_not_majority, r.jokers_not_counted, r.value_last_covered)


def final_scoring(state: CheopsState) -> scoring.Result:
    """Cash + kept treasures at their end values + the law-9 joker (rules/cheops.md 8)."""
    owners = [p for p in range(state.n) if 9 in state.held[p]]
    return scoring.score(state.cash, state.kept, entries_at_end(state), owners, scoring_options(state))


def unchecked(state: CheopsState, res: scoring.Result) -> tuple[Unchecked, ...]:
    out = []
    prov = [t.id for t in state.tables if t.provisional]
    if prov:
        out.append(Unchecked("price_tables.provisional", Message.t("cheops.engine.price_tables_provisional", tables=tuple(prov))))
    if state.board.provisional:
        out.append(Unchecked("board.provisional", Message.t('cheops.engine.the_eye_law_spaces_and')))
    if state.unchecked_faces or state.unchecked_passes:
        out.append(Unchecked("tiles.hands", Message.t('cheops.engine.hands_are_not_tracked_placement', unchecked_faces=state.unchecked_faces, unchecked_passes=state.unchecked_passes)))
    for p, c in enumerate(res.joker_colour):
        if c is not None:
            colour = state.colours[c]
            out.append(Unchecked("law9.joker_colour", Message.t("cheops.engine.law9_joker_colour", player=player_label(state.players[p]),
                                                                colour=state.board.colour_name(colour))))
    return tuple(out)


def declared(state: CheopsState) -> tuple[str, ...]:
    out = [
        "cash: the money pile is face down; it is computed from the record's sales, neighbour purchases and law-9 payments",
        "kept treasures: keep decisions and law-12 swaps with kept treasures are declared; players' piles are not sensed",
    ]
    if state.laws_declared:
        out.append(f"law identities: {state.laws_declared} face-down law(s) were named by the players who took them")
    if not state.rules.track_tiles:
        out.append("family tiles in hand and drawn: declared (stacks not tracked)")
    return tuple(out)


def take_options(w: rules.Work, i: int) -> list[Take]:
    """Every way to resolve what lies on space ``i`` (checked later by the rules)."""
    code = w.content[i]
    if code == EMPTY:
        return [Take()]
    if is_treasure(code):
        return [Take(sell=True), Take(sell=False)]
    s = w.s
    numbers = [code - LAW_BASE] if code != LAW_HIDDEN else [n for n in LAW_NUMBERS if n not in w.revealed and n not in w.out_of_play]
    out = []
    for n in numbers:
        out.append(Take(law=n, discard=True))
        if n in (4, 5, 6, 7):
            out += [Take(law=n, table=c) for c in s.colours]
        elif n == 8:
            out += [Take(law=n, remove=r) for r in sorted(w.laws_in_play())]
            if not s.rules.law8_face_up_only:
                out += [Take(law=n, remove_space=SpaceId(SPACES[j])) for j in range(len(SPACES))
                        if j != i and w.tile[j] == NO_TILE and is_law(w.content[j])]
        else:
            out.append(Take(law=n))
    return out


def _partial(state: CheopsState, player: str, steps: tuple[Step, ...]) -> rules.Work | None:
    """The position after the steps of a turn begun, or None if a step breaks a rule."""
    try:
        return rules.resolve(state, Turn(player, steps), check=True, partial=True)
    except rules.TurnError:
        return None


def _uses_kept_law(steps: tuple[Step, ...]) -> bool:
    return any(isinstance(s, (UseLaw10, UseLaw12)) for s in steps)


def _sequences(state: CheopsState, player: str, steps: tuple[Step, ...], with_laws: bool) -> Iterator[tuple[Step, ...]]:
    """The step sequences of whole turns that begin with ``steps`` (depth first)."""
    w = _partial(state, player, steps)
    if w is None:
        return
    ended = w.ended is not None and not state.rules.end_after_turn
    # a whole turn: it has its step B -- or a step ended the game, and nothing may follow (C2)
    if steps and (ended or any(isinstance(s, (PlaceTile, UseLaw11, Pass)) for s in steps)):
        yield steps
    if ended:
        return
    for step in _proposals(w, steps, with_laws):
        yield from _sequences(state, player, steps + (step,), with_laws)


def _proposals(w: rules.Work, steps: tuple[Step, ...], with_laws: bool) -> Iterator[Step]:
    """Candidate next steps after ``steps`` (``w``: the position they left); the rules judge them."""
    s = w.s
    p = w.p
    yield from _b_steps(w, steps)
    if not steps:
        spaces = rules.neighbour_spaces(w.tile, s.rules.neighbours_may_touch)
        if w.neighbours_left > 0 and w.cash[p] >= NEIGHBOUR_PRICE:
            for i in spaces:
                for take in take_options(w, i):
                    yield BuyNeighbour(SpaceId(SPACES[i]), take)
            if s.rules.save_neighbour:
                yield BuyNeighbour(None, save=True)
        if s.rules.save_neighbour and w.saved[p] > 0:
            for i in spaces:
                for take in take_options(w, i):
                    yield BuyNeighbour(SpaceId(SPACES[i]), take, saved=True)
    if with_laws:
        for law in (10, 12):
            if law in w.held[p] and law not in w.acquired:  # a law used this turn has left the hand
                yield from _law_steps(w, law)


def _b_steps(w: rules.Work, steps: tuple[Step, ...] = ()) -> Iterator[Step]:
    """Step B: a tile from the hand, one by law 11, or a pass. With variant ``law11_extra`` a
    law-11 placement may come on top of the normal one (in either order)."""
    s = w.s
    placed = any(isinstance(x, PlaceTile) for x in steps)
    by_law11 = any(isinstance(x, UseLaw11) for x in steps)
    passed = any(isinstance(x, Pass) for x in steps)
    if passed or (placed and by_law11):
        return
    if (placed or by_law11) and not s.rules.law11_extra:
        return
    hand = w.hands[w.p]
    faces = rules.hand_faces(hand) if hand is not None else list(range(len(FACES))) if w.hand_size[w.p] > 0 else []
    if not placed:
        for f in faces:
            for i in rules.placeable_spaces(w.tile, f):
                for take in take_options(w, i):
                    yield PlaceTile(FACES[f], SpaceId(SPACES[i]), take)
    if not by_law11 and 11 in w.held[w.p] and 11 not in w.acquired:
        for f in faces:
            for i in rules.placeable_spaces(w.tile, f, support=s.rules.law11_support):
                for take in take_options(w, i):
                    yield UseLaw11(FACES[f], SpaceId(SPACES[i]), take)
    if not (placed or by_law11):
        yield Pass()


def _law_steps(w: rules.Work, law: int) -> Iterator[Step]:
    s = w.s
    kept = w.kept[w.p]
    if law == 10:
        for c, colour in enumerate(s.colours):
            if kept[c] > 0:
                yield UseLaw10(colour)
        return
    open_ = [j for j in range(len(SPACES)) if w.tile[j] == NO_TILE and (is_treasure(w.content[j]) or (s.rules.law12_laws and is_law(w.content[j])))]
    for a in range(len(open_)):
        for b in range(a + 1, len(open_)):
            yield UseLaw12(SPACES[open_[a]], SPACES[open_[b]])
    for c, colour in enumerate(s.colours):
        if kept[c] > 0:
            for j in open_:
                yield UseLaw12(f"{KEPT_PREFIX}{colour}", SPACES[j])


def _draw_options(w: rules.Work, steps: tuple[Step, ...]) -> list[tuple[Draw, ...]]:
    if not any(isinstance(s, (PlaceTile, UseLaw11)) for s in steps):
        return [()]
    need = HAND_SIZE - w.hand_size[w.p]
    out: list[tuple[Draw, ...]] = []
    for k in range(min(need, sum(w.stack_size)), -1, -1):
        for combo in product(range(3), repeat=k):
            sizes = list(w.stack_size)
            ok = True
            for st in combo:
                sizes[st] -= 1
                if sizes[st] < 0:
                    ok = False
                    break
            if ok:
                out.append(tuple(Draw(st) for st in combo))
    return out


GAME = CheopsGame()
