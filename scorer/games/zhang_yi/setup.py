"""Setting up a table of Zhang Yi: players, variants, map and chance mode checked, the initial state
(the set-up JSON Schema is ``moves.setup_schema``)."""

from __future__ import annotations

from scorer.core.game import Game, SetupOptions
from scorer.core.types import InvalidRecord, Message
from scorer.games.zhang_yi import flow
from scorer.games.zhang_yi.board import ZhangYiMap, load_map
from scorer.games.zhang_yi.data import POOL_SIZE, SET_ASIDE, STATES, TALENT_IDS
from scorer.games.zhang_yi.state import A_KEEP, OUT, POOL, ZhangYiRules, ZhangYiState

RESERVED_PLAYER_IDS = frozenset(STATES) | {"neutral"}


def initial_state(game: Game, options: SetupOptions) -> ZhangYiState:
    """The set-up of ``engine.ZhangYiEngine.setup`` (``game`` gives the player limits)."""
    players = tuple(options.players)
    if not game.min_players <= len(players) <= game.max_players:
        raise InvalidRecord(f"Zhang Yi is for 2 players (3 with the variant), not {len(players)}", where="setup.players")
    if len(set(players)) != len(players):
        raise InvalidRecord("player ids must be different", where="setup.players")
    for p in players:
        if p in RESERVED_PLAYER_IDS:
            raise InvalidRecord(f"{p!r} names a state; choose another player id", where="setup.players")
    unknown = set(options.variants) - set(ZhangYiRules.VARIANTS)
    if unknown:
        raise InvalidRecord(f"unknown variant(s) {sorted(unknown)}; known: {', '.join(ZhangYiRules.VARIANTS)}", where="setup.variants")
    board = options.board
    gmap = board if isinstance(board, ZhangYiMap) else load_map(board or "sample")
    if gmap.sample and options.get("sample_map_confirmed") is not True:
        # InvalidRecord carries plain text, not a Message: the refusal stays one "English / Simplified Chinese" line
        raise InvalidRecord(str(Message.t("zhang_yi.engine.sample_refusal")), where="setup.board")
    chance = options.get("chance", "declared")
    if chance not in ("declared", "seeded"):
        raise InvalidRecord("chance must be 'declared' or 'seeded'", where="setup.chance")
    if chance == "seeded" and options.seed is None:
        raise InvalidRecord("seeded chance needs a seed", where="setup.seed")
    first_name = options.get("first_player", players[0])
    if first_name not in players:
        raise InvalidRecord(f"first_player {first_name!r} is not one of the players", where="setup.first_player")
    flags = {v: True for v in options.variants}
    rules_ = ZhangYiRules(seeded=chance == "seeded", **flags)
    if rules_.counter_limit and any(c is None for c in gmap.counters):
        raise InvalidRecord("the counter_limit variant needs counters_1_2 and counters_3_4 for every state in the map", where="setup.variants")
    n = len(players)
    owner = tuple(a.setup_state for a in gmap.areas)
    strength = tuple(a.setup_strength for a in gmap.areas)
    talent_loc = [POOL] * len(TALENT_IDS)
    pool_order: tuple[int, ...] = ()
    dealt: tuple[tuple[int, ...], ...] = ()
    rng = 0
    if rules_.seeded:
        rng = (int(options.seed) * 0x2545F4914F6CDD1D + 0x5DEECE66D) & flow.MASK  # type: ignore[arg-type]
        rng, order = flow.rng_shuffle(rng, tuple(range(len(TALENT_IDS))))
        for t in order[:SET_ASIDE]:
            talent_loc[t] = OUT
        pool_order = order[SET_ASIDE:]
        rng, chits = flow.rng_shuffle(rng, tuple(range(7)))
        dealt = tuple(tuple(chits[2 * p: 2 * p + 2]) for p in range(n))
    state = ZhangYiState(
        map=gmap,
        players=players,
        rules=rules_,
        owner=owner,
        strength=strength,
        talent_loc=tuple(talent_loc),
        alive=(True,) * 7,
        awaiting=A_KEEP,
        first=players.index(first_name),
        pool_left=POOL_SIZE,
        pool_order=pool_order,
        rng=rng,
        dealt=dealt,
        kept=(-1,) * n,
        revealed=(-1,) * n,
        out=(False,) * n,
    )
    return flow.settle(flow.start(state))


__all__ = ["RESERVED_PLAYER_IDS", "initial_state"]
