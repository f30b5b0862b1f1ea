"""Setting up a Cheops table: players, variants and options checked, price tables, pyramid, laws
and tile stacks dealt or taken as given, the initial state, and the JSON Schema of a record's
``setup`` (rules/cheops.md)."""

from __future__ import annotations

import random
import re
from typing import Any, Mapping

from scorer.core.game import SetupOptions
from scorer.core.types import InvalidRecord
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
from scorer.games.cheops.state import EMPTY, HAND_SIZE, LAW_HIDDEN, NO_TILE, CheopsRules, CheopsState, law_code


PLAYER_ID = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")

# Variants whose reading became the default: still accepted in records (they change nothing now).
RETIRED_VARIANTS = {
    "law8_pyramid": "law 8 may remove a face-down law on the pyramid: the default since issue 13 (E1)",
}


def initial_state(options: SetupOptions, min_players: int, max_players: int) -> CheopsState:
    players = tuple(options.players)
    if not min_players <= len(players) <= max_players:
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


def setup_schema() -> Mapping[str, Any]:
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
