"""The Zhang Yi engine: ``scorer.core.Game`` for 張儀 戦国七雄興亡記 (rules/zhang-yi.md)."""

from __future__ import annotations

from itertools import combinations
from typing import Any, Iterator, Mapping

from scorer.core.game import Explanation, Game, SetupOptions, TurnInfo
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Termination, Unchecked
from scorer.core.types import Board, InvalidRecord, Message, Piece
from scorer.games.zhang_yi import flow, rules, scoring
from scorer.games.zhang_yi import moves as mv
from scorer.games.zhang_yi.board import ZhangYiMap, load_map
from scorer.games.zhang_yi.counters import representable
from scorer.games.zhang_yi.data import (
    ARMY,
    POOL_SIZE,
    SET_ASIDE,
    STATE_INDEX,
    STATES,
    TALENT_IDS,
    TALENT_INDEX,
    state_label,
    talent_label,
    talent_piece_kind,
)
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
    GRAVE,
    HELD,
    OUT,
    PHASE_OF,
    POOL,
    TRANSIT,
    ZhangYiRules,
    ZhangYiState,
    draft,
    evolve,
    freeze,
)

# Sources whose inputs rest on a person's word; the camera and the card reader are sensors (they
# read the die or the drawn counter), though neither can tell whether the draw itself was random.
DECLARING_SOURCES = frozenset({"dashboard", "record"})
CATEGORIES = ("won", "backed_power", "backed_areas", "backed_cities")
RESERVED_PLAYER_IDS = frozenset(STATES) | {"neutral"}



class ZhangYiGame(Game[ZhangYiState, ZhangYiMove]):
    id = "zhang_yi"
    name = Message.t('zhang_yi.engine.zhang_yi_rise_and_fall')
    min_players = 2
    max_players = 3

    # -- set-up -----------------------------------------------------------------------------
    def setup_confirmations(self) -> tuple[tuple[str, Message], ...]:
        return (("sample_map_confirmed", Message.t('zhang_yi.engine.play_on_the_invented_sample')),)

    def setup(self, options: SetupOptions) -> ZhangYiState:
        players = tuple(options.players)
        if not self.min_players <= len(players) <= self.max_players:
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
        """Army strength as ``Piece(state, "army")`` counted by strength; talents as
        ``Piece(state, "talent-<id>")``; per area's ``space_id``. A battle waiting for its die
        shows the attacker in the battle area; a loser waiting to retreat is still there."""
        gmap = state.map
        cells: dict[str, dict[Piece, int]] = {}

        def add(area: int, piece: Piece, n: int) -> None:
            if n > 0:
                cell = cells.setdefault(gmap.areas[area].space_id, {})
                cell[piece] = cell.get(piece, 0) + n

        for i, (o, n) in enumerate(zip(state.owner, state.strength)):
            if o >= 0:
                add(i, Piece(STATES[o], ARMY), n)
        ts = gmap.talent_state
        for t, loc in enumerate(state.talent_loc):
            if loc >= 0:
                add(loc, Piece(STATES[ts[t]], talent_piece_kind(TALENT_IDS[t])), 1)
        if state.battle is not None:
            b = state.battle
            add(b.dest, Piece(STATES[state.active_state], ARMY), b.attacker)
            for t in b.talents:
                add(b.dest, Piece(STATES[ts[t]], talent_piece_kind(TALENT_IDS[t])), 1)
        if state.retreat is not None:
            r = state.retreat
            add(r.area, Piece(STATES[r.state], ARMY), r.strength)
        return Board.from_counts(cells)

    def explain(self, state: ZhangYiState, sensed: Board) -> tuple[Explanation[ZhangYiMove], ...]:
        from scorer.games.zhang_yi.explain import explain

        return explain(self, state, sensed)

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
        gmap = state.map
        ts = gmap.talent_state

        def where(loc: int) -> str:
            if loc >= 0:
                return gmap.areas[loc].id
            return {POOL: "pool", GRAVE: "graveyard", OUT: "pool", HELD: "drawn", TRANSIT: "moving"}[loc]

        return {
            "map": gmap.id,
            "sample_map": gmap.sample,
            "provisional_map": gmap.provisional,
            "players": list(state.players),
            "turn": state.turn,
            "first_player": state.players[state.first],
            "turn_info": self.turn(state).to_json(),
            "acting": state.players[state.acting] if state.acting >= 0 else None,
            "active_state": STATES[state.active_state] if state.active_state >= 0 else None,
            "recruit_due": state.recruit_due if state.awaiting == A_RECRUIT else None,
            "pool_left": state.pool_left,
            "chits_left": [STATES[s] for s in state.cup],
            "areas": [
                {
                    "id": a.id,
                    "space": a.space_id,
                    "name": a.label.to_json(),
                    "city": a.city,
                    "state": STATES[state.owner[i]] if state.owner[i] >= 0 else None,
                    "strength": state.strength[i],
                    "talents": [TALENT_IDS[t] for t in state.talents_in(i)],
                }
                for i, a in enumerate(gmap.areas)
            ],
            "states": {
                STATES[s]: {
                    "alive": state.alive[s],
                    "power": state.power(s),
                    "areas": state.area_count(s),
                    "cities": state.city_count(s),
                    "strength": sum(n for i, n in enumerate(state.strength) if state.owner[i] == s),
                }
                for s in range(7)
            },
            "talents": {TALENT_IDS[t]: {"state": STATES[ts[t]] if ts[t] >= 0 else None, "where": where(loc)} for t, loc in enumerate(state.talent_loc)},
            "battle": None if state.battle is None else {
                "from": gmap.areas[state.battle.origin].id, "to": gmap.areas[state.battle.dest].id,
                "attacker": state.battle.attacker, "talents": [TALENT_IDS[t] for t in state.battle.talents]},
            "retreat": None if state.retreat is None else {
                "state": STATES[state.retreat.state], "strength": state.retreat.strength, "from": gmap.areas[state.retreat.area].id,
                "options": [gmap.areas[i].id for i in state.retreat.options], "chooser": state.players[state.retreat.chooser]},
            "revealed": {state.players[p]: STATES[s] for p, s in enumerate(state.revealed) if s >= 0},
            "out": [state.players[p] for p in range(state.n) if state.out[p]],
            "effects": [{"kind": e.kind, "message": e.message.to_json()} for e in state.effects],
        }


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


def unchecked(state: ZhangYiState) -> tuple[Unchecked, ...]:
    out = []
    gmap = state.map
    if gmap.sample:
        out.append(Unchecked("map.sample", Message.t('zhang_yi.engine.played_on_the_invented_sample', id=gmap.id)))
    elif gmap.provisional:
        out.append(Unchecked("map.provisional", Message.t('zhang_yi.engine.map_is_marked_provisional_some', id=gmap.id)))
    if gmap.unconfirmed_talents:
        names = ", ".join(gmap.unconfirmed_talents)
        out.append(Unchecked("talents.state_unconfirmed", Message.t('zhang_yi.engine.the_state_of_these_talents', names=names)))
    if not state.rules.seeded:
        out.append(Unchecked("talents.set_aside", Message.t('zhang_yi.engine.the_two_talents_put_aside')))
        out.append(Unchecked("chance.declared", Message.t('zhang_yi.engine.draws_and_die_rolls_are')))
    if state.finished is None and any(state.revealed[p] < 0 for p in range(state.n)):
        out.append(Unchecked("destiny.secret", Message.t('zhang_yi.engine.destiny_chits_are_secret_until')))
    if not state.rules.counter_limit:
        out.append(Unchecked("counters.limit", Message.t('zhang_yi.engine.the_army_counter_limit_8')))
    else:
        bad = [STATES[s] for s in range(7) if gmap.counters[s] is not None and
               not representable([state.strength[i] for i in state.areas_of(s)], *gmap.counters[s])]  # type: ignore[misc]
        if bad:
            out.append(Unchecked("counters.after_losses", Message.t('zhang_yi.engine.after_losses_these_states_strengths', bad=', '.join(bad))))
    return tuple(out)


def declared(state: ZhangYiState) -> tuple[str, ...]:
    out = []
    for what, label in (("die_roll", "die rolls"), ("talent_draw", "talent draws"), ("chit_draw", "action chit draws")):
        parts = [(k.split(":", 1)[1], n) for k, n in state.declared_counts if k.startswith(what + ":")]
        said = [(src, n) for src, n in parts if src in DECLARING_SOURCES]
        seen = [(src, n) for src, n in parts if src not in DECLARING_SOURCES]
        if said:
            text = f"{label}: {sum(n for _, n in said)} declared ({', '.join(f'{src} {n}' for src, n in said)})"
            if seen:
                text += f"; {sum(n for _, n in seen)} read by sensors ({', '.join(f'{src} {n}' for src, n in seen)})"
            out.append(text)
    revealed = [f"{state.players[p]}={STATES[s]}" for p, s in enumerate(state.revealed) if s >= 0]
    if revealed:
        out.append("destiny chits revealed: " + ", ".join(revealed))
    if state.not_backed:
        out.append("declared backed by nobody when annihilated: " + ", ".join(STATES[s] for s in state.not_backed))
    if state.finished is not None and not state.rules.seeded:
        out.append("winner: rests on the declared destiny chits")
    return tuple(out)


def describe(move: ZhangYiMove) -> Message:
    if isinstance(move, DrawTalent):
        n = talent_label(move.talent)
        return Message.t('zhang_yi.engine.draws', player=move.player, n=n, source=move.source)
    if isinstance(move, PlaceTalent):
        n = talent_label(move.talent)
        return Message.t('zhang_yi.engine.places_in', player=move.player, n=n, area=move.area)
    if isinstance(move, Assassinate):
        n = talent_label(move.target)
        return Message.t('zhang_yi.engine.jing_ke_kills', player=move.player, n=n)
    if isinstance(move, DrawChit):
        sl = state_label(move.state)
        return Message.t('zhang_yi.engine.draws_the_chit', player=move.player, sl=sl, source=move.source)
    if isinstance(move, Recruit):
        parts = tuple(Message.t("zhang_yi.engine.recruits.part", n=n, area=a) for a, n in move.placements)
        return Message.t('zhang_yi.engine.recruits.2', player=move.player, text=parts)
    if isinstance(move, March):
        names = tuple(talent_label(t) for t in move.talents)
        with_ = Message.t("zhang_yi.engine.moves_from_to.with", names=names) if names else ""
        return Message.t('zhang_yi.engine.moves_from_to', player=move.player, strength=move.strength, origin=move.origin, dest=move.dest, with_=with_)
    if isinstance(move, Hold):
        return Message.t('zhang_yi.engine.does_not_move', player=move.player)
    if isinstance(move, RollDie):
        return Message.t('zhang_yi.engine.rolls', player=move.player, move=move.value, source=move.source)
    if isinstance(move, Retreat):
        return Message.t('zhang_yi.engine.sends_the_retreat_to', player=move.player, to=move.to)
    if isinstance(move, RevealDestiny):
        sl = state_label(move.state)
        return Message.t('zhang_yi.engine.reveals_destiny', player=move.player, sl=sl)
    if isinstance(move, NotBacked):
        sl = state_label(move.state)
        return Message.t('zhang_yi.engine.nobody_backs_the_annihilated', sl=sl)
    if isinstance(move, KeepDestiny):
        return Message.t('zhang_yi.engine.keeps_a_destiny_chit', player=move.player)
    return Message(repr(move), repr(move))


def final_scoring(state: ZhangYiState) -> dict[str, Any]:
    """National power of the live states, how the game ended, the winning states and the result,
    for the benchmark and the dashboard. The result follows the ending the game had: hegemony
    (11.1) -- the hegemon wins for its backers; annihilation (10-6, 11.2) -- the last player still
    in wins, no state does; end by time (11.3) -- the strongest states. A game still running gets
    the end-by-time view of the position. Backers are known from the destiny chits revealed so far."""
    powers = {STATES[s]: state.power(s) for s in range(7) if state.alive[s]}
    backed = {state.players[p]: STATES[s] for p, s in enumerate(state.revealed) if s >= 0 and not state.out[p]}
    ending = state.ending
    winning: tuple[str, ...]
    if ending is Termination.ANNIHILATION:
        winning, winners, verdict = (), tuple(state.players[p] for p in range(state.n) if not state.out[p]), "win"
    elif ending is Termination.HEGEMONY:
        winning = (STATES[state.hegemon],)
        winners, verdict, _ = scoring.hegemony_result(winning[0], backed)
    else:
        winning = scoring.winning_states(powers)
        winners, verdict, _ = scoring.time_result(powers, backed, state.rules.tied_top_shared_win)
    return {"ending": ending.value if ending is not None else None, "powers": powers, "winning_states": winning,
            "winners": winners, "verdict": verdict}


GAME = ZhangYiGame()
