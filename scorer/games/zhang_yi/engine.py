"""The Zhang Yi rules: ``scorer.core.Game`` for 張儀 戦国七雄興亡記 (rules/zhang-yi.md), less the
reading of sensed boards (``explain``, added in game.py). The set-up is in setup.py, the turn
sequence in flow.py, what the sensors see in visible.py, descriptions, the state as JSON and
``final_scoring`` in reporting.py."""

from __future__ import annotations

from itertools import combinations
from typing import Any, Iterator, Mapping

from scorer.core.game import Game, SetupOptions, TurnInfo
from scorer.core.results import Outcome, PlayerScore, Scoreboard
from scorer.core.types import Board, Message
from scorer.games.zhang_yi import flow, rules
from scorer.games.zhang_yi import moves as mv
from scorer.games.zhang_yi.data import STATE_INDEX, STATES, TALENT_IDS, TALENT_INDEX, state_label, talent_label
from scorer.games.zhang_yi.moves import (
    Assassinate,
    DrawChit,
    DrawTalent,
    Hold,
    KeepDestiny,
    March,
    NotBacked,
    PlaceTalent,
    Recruit,
    Retreat,
    RevealDestiny,
    RollDie,
    ZhangYiMove,
)
from scorer.games.zhang_yi.reporting import declared, describe, final_scoring, state_json, unchecked
from scorer.games.zhang_yi.setup import initial_state
from scorer.games.zhang_yi.state import (
    A_ASSASSIN,
    A_CHECK,
    A_CHIT,
    A_DIE,
    A_KEEP,
    A_MOVE,
    A_RECRUIT,
    A_RETREAT,
    A_REVEAL,
    A_TALENT_DRAW,
    A_TALENT_PLACE,
    PHASE_OF,
    POOL,
    ZhangYiState,
    draft,
    evolve,
    freeze,
)
from scorer.games.zhang_yi.visible import visible_board

CATEGORIES = ("won", "backed_power", "backed_areas", "backed_cities")


class ZhangYiEngine(Game[ZhangYiState, ZhangYiMove]):
    """The rules of Zhang Yi; ``explain`` (reading sensed boards) is added by ``game.ZhangYiGame``."""

    id = "zhang_yi"
    name = Message.t('zhang_yi.engine.zhang_yi_rise_and_fall')
    min_players = 2
    max_players = 3

    # -- set-up -----------------------------------------------------------------------------
    def setup_confirmations(self) -> tuple[tuple[str, Message], ...]:
        return (("sample_map_confirmed", Message.t('zhang_yi.engine.play_on_the_invented_sample')),)

    def setup(self, options: SetupOptions) -> ZhangYiState:
        return initial_state(self, options)

    def turn(self, state: ZhangYiState) -> TurnInfo:
        active = tuple(state.players[a] for a in state.actors)
        return TurnInfo(active, phase=PHASE_OF[state.awaiting], round=state.turn, awaiting=state.awaiting, prompt=prompt(state))

    # -- legality and effects ---------------------------------------------------------------
    def violations(self, state: ZhangYiState, move: ZhangYiMove) -> tuple:
        return rules.violations(state, move)

    def apply_unchecked(self, state: ZhangYiState, move: ZhangYiMove) -> ZhangYiState:
        st = evolve(draft(state), effects=())  # a private working copy, frozen again below
        idx = st.map.area_index
        if isinstance(move, DrawTalent):
            st = flow.draw_talent(st, st.player_index(move.player), TALENT_INDEX[move.talent], move.source)
        elif isinstance(move, PlaceTalent):
            st = flow.place_talent(st, TALENT_INDEX[move.talent], idx[move.area])
        elif isinstance(move, Assassinate):
            st = flow.assassinate(st, TALENT_INDEX[move.target])
        elif isinstance(move, DrawChit):
            st = flow.draw_chit(st, STATE_INDEX[move.state], move.source)
        elif isinstance(move, Recruit):
            st = flow.recruit(st, [(idx[a], n) for a, n in move.placements])
        elif isinstance(move, March):
            st = flow.march(st, idx[move.origin], idx[move.dest], move.strength, tuple(TALENT_INDEX[t] for t in move.talents))
        elif isinstance(move, Hold):
            st = flow.hold(st)
        elif isinstance(move, RollDie):
            st = flow.roll(st, move.value, move.source)
        elif isinstance(move, Retreat):
            assert move.to is not None
            st = flow.do_retreat(st, idx[move.to])
        elif isinstance(move, RevealDestiny):
            p = st.player_index(move.player)
            if st.awaiting == A_CHECK:
                st = flow.resolve_check(st, p)
            else:
                st = flow.reveal(st, p, STATE_INDEX[move.state])
        elif isinstance(move, NotBacked):
            st = flow.resolve_check(st, -1)
        elif isinstance(move, KeepDestiny):
            st = flow.keep_destiny(st, st.player_index(move.player), STATE_INDEX[move.state])
        else:
            raise TypeError(f"not a Zhang Yi move: {move!r}")
        return freeze(flow.settle(st))

    # -- enumerating moves ------------------------------------------------------------------
    def legal_moves(self, state: ZhangYiState) -> Iterator[ZhangYiMove]:
        """Every legal move for the awaited input (declared chance inputs included)."""
        if state.finished is not None:
            return
        a = state.awaiting
        gmap = state.map
        if a == A_KEEP:
            for p in state.actors:
                for s in state.dealt[p]:
                    yield KeepDestiny(state.players[p], STATES[s])
        elif a == A_TALENT_DRAW:
            p = state.players[state.actors[0]]
            for t, loc in enumerate(state.talent_loc):
                if loc == POOL:
                    yield DrawTalent(p, TALENT_IDS[t])
        elif a == A_TALENT_PLACE:
            p = state.players[state.actors[0]]
            for i in state.areas_of(gmap.talent_state[state.held]):
                yield PlaceTalent(p, TALENT_IDS[state.held], gmap.areas[i].id)
        elif a == A_ASSASSIN:
            p = state.players[state.actors[0]]
            for t in flow.assassin_targets(state):
                yield Assassinate(p, TALENT_IDS[t])
        elif a == A_CHIT:
            p = state.players[state.actors[0]]
            for s in state.cup:
                yield DrawChit(p, STATES[s])
        elif a == A_RECRUIT:
            p = state.players[state.actors[0]]
            areas = [gmap.areas[i].id for i in state.areas_of(state.active_state)]
            due = state.recruit_due
            if state.rules.recruit_one_area:
                splits: Iterator[tuple[int, ...]] = (tuple(due if j == k else 0 for j in range(len(areas))) for k in range(len(areas)))
            else:
                splits = compositions(due, len(areas))
            for split in splits:
                move = Recruit(p, tuple((areas[j], n) for j, n in enumerate(split) if n))
                if not state.rules.counter_limit or not rules.violations(state, move):
                    yield move
        elif a == A_MOVE:
            p = state.players[state.actors[0]]
            yield Hold(p)
            for o in state.areas_of(state.active_state):
                if state.strength[o] < 2:
                    continue
                here = state.talents_in(o)
                for d, _ in gmap.neighbours[o]:
                    for m in range(1, state.strength[o]):
                        for k in range(len(here) + 1):
                            for ts in combinations(here, k):
                                move = March(p, gmap.areas[o].id, gmap.areas[d].id, m, tuple(TALENT_IDS[t] for t in ts))
                                if not state.rules.counter_limit or not rules.violations(state, move):
                                    yield move
        elif a == A_DIE:
            p = state.players[state.actors[0]]
            for v in range(1, 7):
                yield RollDie(p, v)
        elif a == A_RETREAT:
            assert state.retreat is not None
            p = state.players[state.actors[0]]
            for i in state.retreat.options:
                yield Retreat(p, gmap.areas[i].id)
        elif a == A_CHECK:
            yield NotBacked(STATES[state.check_state])
            for p in state.actors:
                yield RevealDestiny(state.players[p], STATES[state.check_state])
        elif a == A_REVEAL:
            for p in state.actors:
                for s in range(7):
                    move = RevealDestiny(state.players[p], STATES[s])
                    if not rules.violations(state, move):
                        yield move

    # -- results -------------------------------------------------------------------------------
    def score(self, state: ZhangYiState) -> Scoreboard:
        players = []
        for p, name in enumerate(state.players):
            s = state.revealed[p]
            if s >= 0:
                row = (int(name in state.winners), state.power(s), state.area_count(s), state.city_count(s))
            else:
                row = (int(name in state.winners), 0, 0, 0)
            players.append(PlayerScore(player=name, total=row[0], breakdown=tuple(zip(CATEGORIES, row))))
        return Scoreboard(
            game=self.id,
            players=tuple(players),
            final=state.finished is not None,
            not_checked=unchecked(state),
            declared=declared(state),
            provisional_data=state.map.provisional or state.map.sample,
            categories=CATEGORIES,
        )

    def outcome(self, state: ZhangYiState) -> Outcome | None:
        if state.finished is None:
            return None
        assert state.reason is not None
        return Outcome(state.finished, state.winners, state.reason, False)

    # -- sensors ---------------------------------------------------------------------------
    def visible_board(self, state: ZhangYiState) -> Board:
        return visible_board(state)

    # -- records ---------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> ZhangYiMove:
        return mv.move_from_json(data)

    def move_to_json(self, move: ZhangYiMove) -> dict[str, Any]:
        return mv.move_to_json(move)

    def move_schema(self) -> Mapping[str, Any]:
        return mv.move_schema()

    def setup_schema(self) -> Mapping[str, Any]:
        return mv.setup_schema()

    def describe_move(self, move: ZhangYiMove) -> Message:
        return describe(move)

    def state_to_json(self, state: ZhangYiState) -> dict[str, Any]:
        return state_json(self, state)


# -- helpers ---------------------------------------------------------------------------------------

def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to split ``total`` into ``parts`` ordered non-negative integers."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in compositions(total - first, parts - 1):
            yield (first,) + rest


def prompt(state: ZhangYiState) -> Message | None:
    a = state.awaiting
    who = ", ".join(state.players[p] for p in state.actors)
    sl = state_label(STATES[state.active_state]) if state.active_state >= 0 else None
    if a == A_TALENT_DRAW:
        return Message.t('zhang_yi.engine.draw_a_talent_and_declare', who=who)
    if a == A_TALENT_PLACE:
        name = talent_label(TALENT_IDS[state.held])
        owner = state_label(STATES[state.map.talent_state[state.held]])
        return Message.t('zhang_yi.engine.place_in_a_area', who=who, name=name, owner=owner)
    if a == A_ASSASSIN:
        return Message.t('zhang_yi.engine.choose_jing_ke_s_target', who=who)
    if a == A_CHIT:
        return Message.t('zhang_yi.engine.draw_an_action_chit_and', who=who)
    if a == A_RECRUIT and sl:
        return Message.t('zhang_yi.engine.recruits', who=who, sl=sl, recruit_due=state.recruit_due)
    if a == A_MOVE and sl:
        return Message.t('zhang_yi.engine.move_one_army_to_an', who=who, sl=sl)
    if a == A_DIE:
        return Message.t('zhang_yi.engine.roll_the_battle_die', who=who)
    if a == A_RETREAT and state.retreat is not None:
        rl = state_label(STATES[state.retreat.state])
        opts = ", ".join(state.map.areas[i].id for i in state.retreat.options)
        return Message.t('zhang_yi.engine.choose_where_the_army_retreats', who=who, rl=rl, opts=opts)
    if a == A_CHECK:
        cl = state_label(STATES[state.check_state])
        return Message.t('zhang_yi.engine.is_annihilated_its_backer_reveals', cl=cl)
    if a == A_REVEAL:
        return Message.t('zhang_yi.engine.reveal_your_destiny_chit', who=who)
    if a == A_KEEP:
        return Message.t('zhang_yi.engine.keep_one_of_your_two', who=who)
    return None


# final_scoring lives in reporting.py; it stays importable from here.
__all__ = ["CATEGORIES", "ZhangYiEngine", "final_scoring", "visible_board"]
