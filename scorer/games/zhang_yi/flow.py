"""The turn sequence of Zhang Yi as pure transitions over ``ZhangYiState`` (rules sections 5-12).

Each function takes a state and the input that was awaited and returns the next state, with the
rules' automatic effects resolved (attrition, notables, battle results, lone talents, hegemony,
annihilation, end of game) and ``awaiting`` set to the next input. Legality is checked before,
in ``rules.py``; these functions trust their inputs.

In seeded games ``settle`` resolves chance inputs (draws, die rolls, destiny reveals) from the
random stream carried in the state, so a replay is exact.
"""

from __future__ import annotations

from scorer.core.results import Termination
from scorer.core.types import Message
from scorer.games.zhang_yi import scoring
from scorer.games.zhang_yi.data import JING_KE, STATES, TALENT_IDS, state_label, talent_label
from scorer.games.zhang_yi.state import (
    A_ASSASSIN,
    A_CHECK,
    A_CHIT,
    A_DIE,
    A_KEEP,
    A_MOVE,
    A_NONE,
    A_RECRUIT,
    A_RETREAT,
    A_REVEAL,
    A_TALENT_DRAW,
    A_TALENT_PLACE,
    GRAVE,
    HELD,
    NEUTRAL,
    TRANSIT,
    Battle,
    PendingRetreat,
    ZhangYiState,
    evolve,
)
from scorer.games.zhang_yi.chance import MASK, rng_below, rng_next, rng_shuffle  # noqa: F401  (re-exported)
from scorer.games.zhang_yi.reckoning import (  # noqa: F401  (re-exported: rules, simulate and the tests import them from flow)
    _lone_talents,
    area_name,
    assassin_targets,
    attrition,
    bump,
    fx,
    hegemony_reached,
    protecting_notable,
    recruit_amount,
    recruit_formula,
    retreat_chooser,
    retreat_options,
)


# -- set-up and the talent phase --------------------------------------------------------------------

def start(st: ZhangYiState) -> ZhangYiState:
    if st.rules.seeded:
        return evolve(st, awaiting=A_KEEP, actors=tuple(range(st.n)))
    return begin_turn(st, 1, st.first)


def keep_destiny(st: ZhangYiState, p: int, s: int) -> ZhangYiState:
    kept = list(st.kept)
    kept[p] = s
    actors = tuple(a for a in st.actors if a != p)
    st = evolve(st, kept=tuple(kept), actors=actors)
    if actors:
        return st
    return begin_turn(st, 1, st.first)


def begin_turn(st: ZhangYiState, turn: int, first: int) -> ZhangYiState:
    st = evolve(st, turn=turn, first=first, placed_this_phase=(), pool_emptied=False, held=-1, jing_ke_by=-1)
    st = evolve(st, drawers=st.order()[:2])
    return next_talent(st)


def next_talent(st: ZhangYiState) -> ZhangYiState:
    if st.drawers and st.pool_left > 0:
        return evolve(st, awaiting=A_TALENT_DRAW, actors=(st.drawers[0],))
    if st.jing_ke_by >= 0:
        if assassin_targets(st):
            return evolve(st, awaiting=A_ASSASSIN, actors=(st.jing_ke_by,))
        loc = list(st.talent_loc)
        loc[JING_KE] = GRAVE
        st = evolve(st, talent_loc=tuple(loc), jing_ke_by=-1)
        st = fx(st, "assassin_idle", Message.t("zhang_yi.flow.assassin_idle"))
    return begin_strategic(st)


def draw_talent(st: ZhangYiState, p: int, t: int, source: str | None) -> ZhangYiState:
    loc = list(st.talent_loc)
    left = st.pool_left - 1
    st = evolve(st, pool_left=left, pool_emptied=st.pool_emptied or left == 0,
                 pool_order=st.pool_order[1:] if st.rules.seeded else st.pool_order)
    if source is not None:
        st = bump(st, f"talent_draw:{source}")
    name = talent_label(TALENT_IDS[t])
    who = st.players[p]
    if t == JING_KE:
        loc[t] = HELD
        st = evolve(st, talent_loc=tuple(loc), jing_ke_by=p, drawers=st.drawers[1:])
        st = fx(st, "assassin_drawn", Message.t("zhang_yi.flow.assassin_drawn", who=who))
        return next_talent(st)
    owner = st.map.talent_state[t]
    if not st.alive[owner]:
        loc[t] = GRAVE
        st = evolve(st, talent_loc=tuple(loc))
        sl = state_label(STATES[owner])
        if st.rules.no_redraw_after_dead:
            st = evolve(st, drawers=st.drawers[1:])
            st = fx(st, "talent_discarded", Message.t("zhang_yi.flow.talent_discarded.used_up", name=name, state=sl))
        else:
            st = fx(st, "talent_discarded", Message.t("zhang_yi.flow.talent_discarded.draw_again", name=name, state=sl, who=who))
        return next_talent(st)
    loc[t] = HELD
    return evolve(st, talent_loc=tuple(loc), held=t, awaiting=A_TALENT_PLACE, actors=(p,))


def place_talent(st: ZhangYiState, t: int, area: int) -> ZhangYiState:
    loc = list(st.talent_loc)
    loc[t] = area
    st = evolve(st, talent_loc=tuple(loc), held=-1, placed_this_phase=st.placed_this_phase + (t,), drawers=st.drawers[1:])
    return next_talent(st)


def assassinate(st: ZhangYiState, target: int) -> ZhangYiState:
    loc = list(st.talent_loc)
    loc[target] = GRAVE
    loc[JING_KE] = GRAVE
    st = evolve(st, talent_loc=tuple(loc), jing_ke_by=-1)
    name = talent_label(TALENT_IDS[target])
    st = fx(st, "assassination", Message.t("zhang_yi.flow.assassination", name=name))
    return begin_strategic(st)


# -- the strategic phase ------------------------------------------------------------------------

def begin_strategic(st: ZhangYiState) -> ZhangYiState:
    live = tuple(s for s in range(7) if st.alive[s])
    if st.rules.seeded:
        rng, cup = rng_shuffle(st.rng, live)
        st = evolve(st, rng=rng)
    else:
        cup = live
    return next_action(evolve(st, cup=cup, action_no=0))


def next_action(st: ZhangYiState, same_player: bool = False) -> ZhangYiState:
    """Players act one at a time in turn order, cycling (6.3; 3 players 10-4): the first action is
    the first player's, each later one goes to the player after the one who acted last, skipping
    players who are out (A20) -- also one who went out during that very action. Counting actions
    round the shrunken order instead would give a player two actions in a row. ``same_player``:
    a dead state's chit was thrown away and the same player draws again (A14)."""
    last = st.acting
    st = evolve(st, active_state=-1, battle=None, retreat=None, fought=False, recruit_due=0, acting=-1)
    if not any(st.alive[s] for s in st.cup):
        return end_turn(st)
    if same_player:
        acting = last
    elif st.action_no == 0 or last < 0:
        acting = st.order()[0]
    else:
        acting = st.player_after(last)
    return evolve(st, awaiting=A_CHIT, actors=(acting,), acting=acting)


def draw_chit(st: ZhangYiState, s: int, source: str | None) -> ZhangYiState:
    acting = st.actors[0]
    st = evolve(st, cup=tuple(c for c in st.cup if c != s), acting=acting)
    if source is not None:
        st = bump(st, f"chit_draw:{source}")
    sl = state_label(STATES[s])
    if not st.alive[s]:
        if st.rules.no_redraw_after_dead:
            st = fx(st, "chit_discarded", Message.t("zhang_yi.flow.chit_discarded.used_up", state=sl))
            return next_action(evolve(st, action_no=st.action_no + 1))
        st = fx(st, "chit_discarded", Message.t("zhang_yi.flow.chit_discarded.draw_again", state=sl))
        return next_action(st, same_player=True)
    due = recruit_amount(st, s)
    st = evolve(st, active_state=s, recruit_due=due, acting=acting)
    if due <= 0:
        st = fx(st, "recruit_none", Message.t("zhang_yi.flow.recruit_none", state=sl))
        return evolve(st, awaiting=A_MOVE, actors=(acting,))
    return evolve(st, awaiting=A_RECRUIT, actors=(acting,))


def recruit(st: ZhangYiState, placements: list[tuple[int, int]]) -> ZhangYiState:
    strength = list(st.strength)
    for a, n in placements:
        strength[a] += n
    return evolve(st, strength=tuple(strength), awaiting=A_MOVE, actors=(st.acting,))


def hold(st: ZhangYiState) -> ZhangYiState:
    return end_action(st)


def march(st: ZhangYiState, o: int, d: int, m: int, talents: tuple[int, ...]) -> ZhangYiState:
    s = st.active_state
    owner, strength, loc = list(st.owner), list(st.strength), list(st.talent_loc)
    strength[o] -= m
    lost = attrition(st, o, d)
    arrive = m - lost
    origin, dest = area_name(st, o), area_name(st, d)
    if arrive <= 0:
        for t in talents:
            loc[t] = GRAVE
        st = evolve(st, strength=tuple(strength), talent_loc=tuple(loc))
        extra = Message.t("zhang_yi.flow.attrition_destroyed.talents", n=len(talents)) if talents else ""
        st = fx(st, "attrition_destroyed", Message.t("zhang_yi.flow.attrition_destroyed", strength=m, origin=origin, dest=dest,
                                                     talents=extra))
        return end_action(st)
    d_owner = owner[d]
    notable = protecting_notable(st, d_owner, d) if d_owner not in (s, NEUTRAL) else -1
    if lost and (notable < 0 or st.rules.notable_attrition):
        st = fx(st, "attrition", Message.t("zhang_yi.flow.attrition", dest=dest, lost=lost, arrive=arrive))
    if d_owner == s or d_owner == NEUTRAL:
        if d_owner == NEUTRAL:
            sl = state_label(STATES[s])
            st = fx(st, "occupied", Message.t("zhang_yi.flow.occupied", dest=dest, state=sl))
        owner[d] = s
        strength[d] += arrive
        for t in talents:
            loc[t] = d
        return end_action(evolve(st, owner=tuple(owner), strength=tuple(strength), talent_loc=tuple(loc)))
    if notable >= 0:
        loc[notable] = GRAVE
        strength[o] += arrive if st.rules.notable_attrition else m
        name = talent_label(TALENT_IDS[notable])
        st = evolve(st, strength=tuple(strength), talent_loc=tuple(loc))
        st = fx(st, "repulsed", Message.t("zhang_yi.flow.repulsed", name=name, dest=dest, origin=origin))
        return end_action(st)
    for t in talents:
        loc[t] = TRANSIT
    st = evolve(st, strength=tuple(strength), talent_loc=tuple(loc), battle=Battle(o, d, arrive, talents), fought=True)
    return evolve(st, awaiting=A_DIE, actors=(st.acting,))


def roll(st: ZhangYiState, value: int, source: str | None) -> ZhangYiState:
    assert st.battle is not None
    b = st.battle
    s, d = st.active_state, b.dest
    enemy = st.owner[d]
    if source is not None:
        st = bump(st, f"die_roll:{source}")
    owner, strength, loc = list(st.owner), list(st.strength), list(st.talent_loc)
    att = b.attacker - (value if value in (1, 2) else 0)
    deff = strength[d] - (1 if value == 6 else 0)
    def_talents = [t for t, where in enumerate(loc) if where == d]
    dest = area_name(st, d)
    a_l, e_l = state_label(STATES[s]), state_label(STATES[enemy])
    st = fx(st, "die", Message.t("zhang_yi.flow.die", dest=dest, value=value, attacker=a_l, att=max(att, 0), defender=e_l,
                                 deff=max(deff, 0)))
    if att <= 0:
        for t in b.talents:
            loc[t] = GRAVE
        st = evolve(st, talent_loc=tuple(loc), battle=None)
        st = fx(st, "battle_lost", Message.t("zhang_yi.flow.battle_lost.die", attacker=a_l, defender=e_l, dest=dest))
        return end_action(st)
    if deff <= 0:
        for t in def_talents:
            loc[t] = GRAVE
        for t in b.talents:
            loc[t] = d
        owner[d], strength[d] = s, att
        st = evolve(st, owner=tuple(owner), strength=tuple(strength), talent_loc=tuple(loc), battle=None)
        st = fx(st, "battle_won", Message.t("zhang_yi.flow.battle_won.die", defender=e_l, attacker=a_l, dest=dest, att=att))
        return end_action(st, annihilated=enemy if st.area_count(enemy) == 0 else -1)
    a_val = att + st.best_bonus(b.talents)
    d_val = deff + st.best_bonus(def_talents)
    attacker_wins = a_val > d_val or (a_val == d_val and st.rules.tie_attacker_wins)
    tie = Message.t("zhang_yi.flow.tie") if a_val == d_val else ""
    if attacker_wins:
        for t in def_talents:
            loc[t] = GRAVE
        for t in b.talents:
            loc[t] = d
        owner[d], strength[d] = s, att
        st = evolve(st, owner=tuple(owner), strength=tuple(strength), talent_loc=tuple(loc), battle=None)
        st = fx(st, "battle_won", Message.t("zhang_yi.flow.battle_won", a_val=a_val, d_val=d_val, tie=tie, attacker=a_l, dest=dest,
                                            defender=e_l))
        return start_retreat(st, enemy, deff, d)
    for t in b.talents:
        loc[t] = GRAVE
    strength[d] = deff
    st = evolve(st, strength=tuple(strength), talent_loc=tuple(loc), battle=None)
    st = fx(st, "battle_lost", Message.t("zhang_yi.flow.battle_lost", a_val=a_val, d_val=d_val, tie=tie, defender=e_l, dest=dest,
                                         attacker=a_l))
    return start_retreat(st, s, att, d)


def start_retreat(st: ZhangYiState, loser: int, n: int, area: int) -> ZhangYiState:
    options = retreat_options(st, loser, area)
    if not options:
        sl = state_label(STATES[loser])
        st = fx(st, "retreat_destroyed", Message.t("zhang_yi.flow.retreat_destroyed", state=sl))
        return end_action(st, annihilated=loser if st.area_count(loser) == 0 else -1)
    chooser = retreat_chooser(st)
    return evolve(st, retreat=PendingRetreat(loser, n, area, options, chooser), awaiting=A_RETREAT, actors=(chooser,))


def do_retreat(st: ZhangYiState, to: int) -> ZhangYiState:
    r = st.retreat
    assert r is not None
    owner, strength = list(st.owner), list(st.strength)
    owner[to] = r.state
    strength[to] += r.strength
    sl = state_label(STATES[r.state])
    dest = area_name(st, to)
    st = evolve(st, owner=tuple(owner), strength=tuple(strength), retreat=None)
    st = fx(st, "retreat", Message.t("zhang_yi.flow.retreat", state=sl, strength=r.strength, dest=dest))
    return end_action(st)


def end_action(st: ZhangYiState, annihilated: int = -1) -> ZhangYiState:
    """After the move and any battle: lone talents, then hegemony and annihilation (11, A4, A10)."""
    loc = list(st.talent_loc)
    gone = _lone_talents(st, loc)
    if gone:
        st = evolve(st, talent_loc=tuple(loc))
        names = tuple(talent_label(TALENT_IDS[t]) for t in gone)
        st = fx(st, "lone_talent", Message.t("zhang_yi.flow.lone_talent", names=names))
    s = st.active_state
    check_heg = not (st.rules.hegemony_after_battle_only and not st.fought)
    heg = check_heg and hegemony_reached(st, s)
    if annihilated >= 0:
        alive = list(st.alive)
        alive[annihilated] = False
        loc = list(st.talent_loc)
        ts = st.map.talent_state
        for t, where in enumerate(loc):
            if where >= 0 and ts[t] == annihilated:
                loc[t] = GRAVE
        st = evolve(st, alive=tuple(alive), talent_loc=tuple(loc))
        sl = state_label(STATES[annihilated])
        st = fx(st, "annihilated", Message.t("zhang_yi.flow.annihilated", state=sl))
        if st.rules.annihilation_first or not heg:
            return ask_check(st, annihilated, heg)
    if heg:
        return game_end(st, Termination.HEGEMONY, s)
    return next_action(evolve(st, action_no=st.action_no + 1))


def ask_check(st: ZhangYiState, s: int, heg_after: bool) -> ZhangYiState:
    actors = tuple(p for p in range(st.n) if not st.out[p])
    return evolve(st, awaiting=A_CHECK, actors=actors, check_state=s, hegemony_after_check=heg_after)


def resolve_check(st: ZhangYiState, backer: int) -> ZhangYiState:
    s = st.check_state
    heg_after = st.hegemony_after_check
    st = evolve(st, check_state=-1, hegemony_after_check=False)
    sl = state_label(STATES[s])
    if backer >= 0:
        kept, revealed, out = list(st.kept), list(st.revealed), list(st.out)
        kept[backer] = revealed[backer] = s
        out[backer] = True
        st = evolve(st, kept=tuple(kept), revealed=tuple(revealed), out=tuple(out))
        who = st.players[backer]
        remaining = [p for p in range(st.n) if not out[p]]
        if len(remaining) == 1:
            win = st.players[remaining[0]]
            return finish(st, Termination.ANNIHILATION, (win,), "win",
                          Message.t('zhang_yi.flow.backed_which_was_annihilated_wins', who=who, sl=sl, win=win))
        st = fx(st, "player_out", Message.t("zhang_yi.flow.player_out", who=who, state=sl))
    else:
        st = evolve(st, not_backed=st.not_backed + (s,))
    if heg_after:
        return game_end(st, Termination.HEGEMONY, st.active_state)
    return next_action(evolve(st, action_no=st.action_no + 1))


# -- end of turn, end of game ---------------------------------------------------------------------

def end_turn(st: ZhangYiState) -> ZhangYiState:
    if st.pool_emptied:
        st = fx(st, "time", Message.t("zhang_yi.flow.time"))
        return game_end(st, Termination.TIME, -1)
    n = st.n
    if n == 2:
        nxt = 1 - st.first
    else:
        step = 1 if st.rules.first_player_passes_left else -1
        nxt = (st.first + step) % n
        while st.out[nxt]:
            nxt = (nxt + step) % n
    return begin_turn(st, st.turn + 1, nxt)


def game_end(st: ZhangYiState, why: Termination, hegemon: int) -> ZhangYiState:
    st = evolve(st, ending=why, hegemon=hegemon, battle=None, retreat=None)
    if why is Termination.HEGEMONY:
        sl = state_label(STATES[hegemon])
        st = fx(st, "hegemony", Message.t("zhang_yi.flow.hegemony", state=sl))
    need = tuple(p for p in range(st.n) if not st.out[p] and st.revealed[p] < 0)
    if not need:
        return finalize(st)
    return evolve(st, awaiting=A_REVEAL, actors=need)


def reveal(st: ZhangYiState, p: int, s: int) -> ZhangYiState:
    kept, revealed = list(st.kept), list(st.revealed)
    kept[p] = revealed[p] = s
    actors = tuple(a for a in st.actors if a != p)
    st = evolve(st, kept=tuple(kept), revealed=tuple(revealed), actors=actors)
    if actors:
        return st
    return finalize(st)


def finalize(st: ZhangYiState) -> ZhangYiState:
    backed = {st.players[p]: STATES[st.revealed[p]] for p in range(st.n) if not st.out[p]}
    if st.ending is Termination.HEGEMONY:
        winners, verdict, reason = scoring.hegemony_result(STATES[st.hegemon], backed)
    else:
        powers = {STATES[s]: st.power(s) for s in range(7) if st.alive[s]}
        winners, verdict, reason = scoring.time_result(powers, backed, st.rules.tied_top_shared_win)
    assert st.ending is not None
    return finish(st, st.ending, winners, verdict, reason)


def finish(st: ZhangYiState, why: Termination, winners: tuple[str, ...], verdict: str, reason: Message) -> ZhangYiState:
    st = evolve(st, finished=why, ending=why, winners=winners, verdict=verdict, reason=reason, awaiting=A_NONE, actors=(),
                 battle=None, retreat=None)
    return fx(st, "game_over", reason)


# -- seeded chance --------------------------------------------------------------------------------

def settle(st: ZhangYiState) -> ZhangYiState:
    """Seeded games: resolve every pending chance input from the state's random stream."""
    if not st.rules.seeded:
        return st
    while True:
        a = st.awaiting
        if a == A_TALENT_DRAW:
            st = draw_talent(st, st.actors[0], st.pool_order[0], None)
        elif a == A_CHIT:
            st = draw_chit(st, st.cup[0], None)
        elif a == A_DIE:
            rng, v = rng_below(st.rng, 6)
            st = roll(evolve(st, rng=rng), v + 1, None)
        elif a == A_CHECK:
            backers = [p for p in range(st.n) if not st.out[p] and st.kept[p] == st.check_state]
            st = resolve_check(st, backers[0] if backers else -1)
        elif a == A_REVEAL:
            for p in st.actors:
                st = reveal(st, p, st.kept[p])
        else:
            return st
