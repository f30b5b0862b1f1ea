"""Zhang Yi checks itself (issue 13): random reachable games, checked state by state.

Games come from the simulator (``scorer/games/zhang_yi/simulate.py``) with 2 and 3 players (the
game allows no more), declared and seeded chance, the named variants, the SAMPLE map and a crowded
map where states are annihilated and players go out often. At sampled states the shared harness
(``tests/games/self_checks.py``) compares ``legal_moves`` with ``violations`` over the candidates
of the generator below, which is written from the rules, not from ``legal_moves``.

A ``Witness`` follows each game beside the engine, the way a second referee at the table would:
it knows the kept destiny chits (from the table), sees the board, and works out by itself whose
action it is (10-1, 10-4: one player at a time in turn order, cycling; an out player is skipped),
who chooses a retreat (A2), when the rulebook's end condition holds (hegemony, annihilation, end
by time) and who wins. The engine's ``is_over``, ``turn``, ``outcome`` and ``final_scoring`` must
agree with it at every state.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, Iterator

import pytest
from zhang_yi_helpers import map_doc

from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.games.zhang_yi import GAME
from scorer.games.zhang_yi.data import STATES, TALENT_IDS
from scorer.games.zhang_yi.engine import final_scoring
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
)
from scorer.games.zhang_yi.simulate import PLAYERS, Table, random_move
from scorer.games.zhang_yi.state import POOL, ZhangYiState
from tests.games.self_checks import Tally, check_record_round_trip, check_state

VARIANT_SETS: tuple[tuple[str, ...], ...] = (
    (),
    ("tie_attacker_wins", "notable_own_area_only", "recruit_one_area", "no_redraw_after_dead"),
    ("hegemony_after_battle_only", "notable_attrition", "annihilation_first", "tied_top_shared_win"),
    ("counter_limit", "assassin_spares_new", "attrition_stacks"),
    ("retreat_by_next_player", "first_player_passes_left", "no_redraw_after_dead"),
)
SOURCES = ("camera", "card_reader", "record")
STRATEGIC_START = ("action_chit", "recruitment", "move")  # the first input of an action


# -- the board seen by the witness ------------------------------------------------------------------

def areas_of(st: ZhangYiState, s: int) -> int:
    return sum(1 for o in st.owner if o == s)


def cities_of(st: ZhangYiState, s: int) -> int:
    return sum(1 for o, c in zip(st.owner, st.map.is_city) if o == s and c)


def power_of(st: ZhangYiState, s: int) -> int:
    return sum(2 if c else 1 for o, c in zip(st.owner, st.map.is_city) if o == s)


def standing(st: ZhangYiState, s: int) -> bool:
    """A state is alive while it holds an area, or while its beaten army waits for its retreat."""
    return areas_of(st, s) > 0 or (st.retreat is not None and st.retreat.state == s)


def seat_order(n: int, first: int) -> tuple[int, ...]:
    """10-1: 2 players alternate; 3 players: the first player's right-hand neighbour is second.
    Players are listed clockwise, so the right-hand neighbour is the previous one in the list."""
    return (first, 1 - first) if n == 2 else tuple((first - k) % n for k in range(n))


# -- the independent referee ------------------------------------------------------------------------

@dataclass
class Witness:
    """What a second referee works out from the rules and what the table shows: the board, the
    kept destiny chits, the face-up action chit, the chits left in the cup, the talent pool, an army
    waiting to retreat, the die being rolled. None of the engine's turn logic is used."""

    n: int
    declared: bool
    variants: frozenset[str]
    first: int
    backed: dict[int, int] = field(default_factory=dict)  # player -> kept state (the table's secret)
    out: set[int] = field(default_factory=set)
    revealed: set[int] = field(default_factory=set)
    turn: int = 0
    turn_first: int = -1
    action_pending: bool = True  # the next strategic input starts an action
    last_actor: int = -1
    acting_state: int = -1
    battle: bool = False
    drawers_seen: list[int] = field(default_factory=list)
    actors: list[int] = field(default_factory=list)  # who acted, this turn
    ending: Termination | None = None
    hegemon: int = -1

    def in_players(self) -> list[int]:
        return [p for p in range(self.n) if p not in self.out]

    def order(self) -> list[int]:
        return [p for p in seat_order(self.n, self.turn_first) if p not in self.out]

    def after(self, p: int) -> int:
        seq = seat_order(self.n, self.turn_first)
        i = seq.index(p)
        return next(q for q in seq[i + 1:] + seq[:i + 1] if q not in self.out)

    def new_turn(self, turn: int) -> None:
        if self.turn == 0:
            first = self.first
        elif self.n == 2:
            first = 1 - self.turn_first
        else:
            step = 1 if "first_player_passes_left" in self.variants else -1
            first = (self.turn_first + step) % self.n
            while first in self.out:
                first = (first + step) % self.n
        self.turn, self.turn_first = turn, first
        self.action_pending, self.last_actor, self.drawers_seen, self.actors = True, -1, [], []

    # -- per state: who is asked -------------------------------------------------------------
    def check_asked(self, st: ZhangYiState) -> None:
        info = GAME.turn(st)
        if GAME.is_over(st):
            assert info.active == (), info
            return
        asked = [st.players.index(a) for a in info.active]
        assert asked, f"the game goes on but nobody is asked ({info.awaiting})"
        assert not set(asked) & self.out, f"{info.awaiting}: asks {info.active}, but {[st.players[p] for p in self.out]} is out"
        if info.round != self.turn:
            self.new_turn(info.round)
        a = info.awaiting
        order = self.order()
        if a == "destiny_keep":
            assert not set(asked) & set(self.backed), "a player who kept a chit is asked again"
        elif a == "talent_draw":  # 10-2: first and second player draw; a redraw is the same player's
            p = asked[0]
            drawers = order[:2]
            assert p in drawers, f"turn {self.turn}: {st.players[p]} asked to draw a talent; drawers {drawers}"
            if not self.drawers_seen:
                assert p == drawers[0], f"turn {self.turn}: first talent draw by {st.players[p]}, not the first player"
            elif p != self.drawers_seen[-1]:
                assert drawers.index(p) > drawers.index(self.drawers_seen[-1]), "talent draws out of turn order"
            self.drawers_seen.append(p)
        elif a == "action_chit" and not self.action_pending:  # a dead state's chit thrown away: draw again (A14)
            assert asked == [self.last_actor], f"the redraw is asked of {info.active}, not of {st.players[self.last_actor]}"
        elif a in STRATEGIC_START and self.action_pending:
            p = asked[0]
            want = order[0] if self.last_actor < 0 else self.after(self.last_actor)
            assert p == want, (f"turn {self.turn}: action {len(self.actors) + 1} asked of {st.players[p]}, but the turn order "
                               f"{[st.players[q] for q in seat_order(self.n, self.turn_first)]} (out: {sorted(self.out)}) "
                               f"after {st.players[self.last_actor] if self.last_actor >= 0 else 'nobody'} gives {st.players[want]}")
            self.actors.append(p)
            self.last_actor, self.action_pending, self.battle, self.acting_state = p, False, False, -1
        elif a == "retreat_choice":
            acting = self.last_actor
            if self.n == 2:
                want = 1 - acting
            elif "retreat_by_next_player" in self.variants:
                want = self.after(acting)
            else:
                want = order[1]
            assert asked == [want], f"retreat chosen by {info.active}, expected {st.players[want]} (A2)"
        elif a == "destiny_check":
            assert sorted(asked) == self.in_players()
        elif a == "destiny_reveal":
            assert set(asked) <= set(self.in_players()) - self.revealed
        if a in ("recruitment", "move") and self.acting_state < 0:
            self.acting_state = st.active_state  # the face-up action chit

    # -- per move: actions ending, players going out, the end of the game -------------------
    def after_move(self, prev: ZhangYiState, move: Any, st: ZhangYiState) -> None:
        a_prev, a_next = prev.awaiting, GAME.turn(st).awaiting
        if isinstance(move, KeepDestiny):
            self.backed[st.players.index(move.player)] = STATES.index(move.state)
        if isinstance(move, RevealDestiny) and a_prev == "destiny_reveal":
            self.revealed.add(st.players.index(move.player))
        if any(e.kind == "die" for e in st.effects):
            self.battle = True
        ends = False
        used_up = 0
        if isinstance(move, Hold):
            ends = True
        elif isinstance(move, March):
            ends = a_next not in ("die_roll", "retreat_choice", "destiny_check")
        elif isinstance(move, RollDie):
            ends = a_next not in ("retreat_choice", "destiny_check")
        elif isinstance(move, Retreat):
            ends = a_next != "destiny_check"
        elif isinstance(move, (RevealDestiny, NotBacked)) and a_prev == "destiny_check":
            ends = True
        elif isinstance(move, DrawChit) and areas_of(prev, STATES.index(move.state)) == 0 and "no_redraw_after_dead" in self.variants:
            ends, self.acting_state = True, -1  # the action is used up (A14 option)
        if ends:
            self.action_ended(prev, st)
            if not self.declared and "no_redraw_after_dead" in self.variants and st.turn == prev.turn:
                used_up = sum(1 for e in st.effects if e.kind == "chit_discarded")
            for _ in range(used_up):  # seeded: dead chits drawn by the next players use up their actions
                self.last_actor = self.after(self.last_actor)
                self.actors.append(self.last_actor)

    def action_ended(self, prev: ZhangYiState, st: ZhangYiState) -> None:
        self.action_pending = True
        if self.ending is not None:
            return
        s = self.acting_state
        heg = s >= 0 and (areas_of(st, s) >= 6 or cities_of(st, s) >= 4)
        if "hegemony_after_battle_only" in self.variants and not self.battle:
            heg = False
        dead = [p for p in self.in_players() if p in self.backed and not standing(st, self.backed[p])]
        if self.n == 2:
            ann = bool(dead)
        else:
            ann = False
            if dead and (not heg or "annihilation_first" in self.variants):
                self.out.update(dead)
                ann = len(self.in_players()) <= 1
        # talents are drawn only in the talent phase, so the pool is as it was during the action (a
        # seeded game may already have drawn the next turn's talents by now)
        pool = sum(1 for loc in prev.talent_loc if loc == POOL) - (2 if self.declared else 0)
        live_chits = [c for c in prev.cup if standing(st, c)]
        if heg and not (ann and "annihilation_first" in self.variants):
            self.ending, self.hegemon = Termination.HEGEMONY, s
        elif ann:
            self.ending = Termination.ANNIHILATION
        elif pool == 0 and not live_chits:
            self.ending = Termination.TIME

    def expect_over(self) -> bool:
        if self.ending is None:
            return False
        if self.ending is Termination.ANNIHILATION or not self.declared:
            return True
        return set(self.in_players()) <= self.revealed

    def result(self, st: ZhangYiState) -> tuple[set[str], str]:
        """The winners and verdict by the rulebook (11.1-11.3, 10-6, A11)."""
        names = st.players
        live = self.in_players()
        if self.ending is Termination.ANNIHILATION:
            if self.n == 2:
                live = [p for p in range(2) if standing(st, self.backed[p])]
            assert len(live) == 1
            return {names[live[0]]}, "win"
        if self.ending is Termination.HEGEMONY:
            won = {names[p] for p in live if self.backed[p] == self.hegemon}
            return won, ("win" if won else "all_lose")
        powers = {s: power_of(st, s) for s in range(7) if areas_of(st, s) > 0}
        top = max(powers.values())
        on_top = {names[p] for p in live if powers.get(self.backed[p], -1) == top}
        if len(on_top) == 1 or (on_top and "tied_top_shared_win" in self.variants):
            return on_top, "win"
        return set(), "draw"


# -- candidate moves, written from the rules ----------------------------------------------------------

def candidates(st: ZhangYiState, rng: random.Random) -> Iterator[tuple[Any, bool]]:
    """(move, must_be_refused): the inputs a table could give now, legal or deliberately not --
    wrong player, unknown player, wrong kind of input, unknown area/state/talent, too much or too
    little strength, wrong area, wrong die value. Only canonical forms (``source`` left at
    ``dashboard``; placements in map order; talents in table order): other spellings of the same
    move are checked by ``check_spellings``."""
    gm = st.map
    ids = [a.id for a in gm.areas]
    asked = [st.players[p] for p in st.actors]
    everyone = list(st.players) + ["ghost"]
    awaiting = st.awaiting
    over = st.finished is not None
    first = asked[0] if asked else st.players[0]
    wrong_kind = {
        "destiny_keep": KeepDestiny(first, "qin"), "talent_draw": DrawTalent(first, "bai_qi"),
        "talent_placement": PlaceTalent(first, "bai_qi", ids[0]), "assassin_target": Assassinate(first, "bai_qi"),
        "action_chit": DrawChit(first, "qin"), "recruitment": Recruit(first, ((ids[0], 1),)), "move": Hold(first),
        "die_roll": RollDie(first, 3), "retreat_choice": Retreat(first, ids[0]), "destiny_check": NotBacked("qin"),
        "destiny_reveal": RevealDestiny(first, "qin"),
    }
    for kind, move in wrong_kind.items():
        if kind != awaiting and not (kind == "destiny_check" and awaiting == "destiny_reveal") \
                and not (kind == "destiny_reveal" and awaiting == "destiny_check"):
            yield move, True
    for p in everyone:
        mine = list(for_player(st, p, over or p not in asked, rng))
        # someone not asked: a sample is enough (each of them is refused the same way)
        yield from (mine if p in asked else rng.sample(mine, min(len(mine), 8)))
    if awaiting == "destiny_check":
        for s in STATES + ("rome",):
            yield NotBacked(s), over or s == "rome" or STATES.index(s) != st.check_state


def for_player(st: ZhangYiState, p: str, not_asked: bool, rng: random.Random) -> Iterator[tuple[Any, bool]]:
    """The candidates of the awaited kind given by player ``p``."""
    gm = st.map
    ids = [a.id for a in gm.areas]
    awaiting = st.awaiting
    if awaiting == "destiny_keep":
        for s in STATES + ("rome",):
            yield KeepDestiny(p, s), not_asked or s == "rome"
    elif awaiting == "talent_draw":
        for t in TALENT_IDS + ("zhuge_liang",):
            yield DrawTalent(p, t), not_asked or t == "zhuge_liang" or st.talent_loc[TALENT_IDS.index(t)] != POOL
        yield DrawTalent(p, "bai_qi", "telepathy"), True
    elif awaiting == "talent_placement":
        held = TALENT_IDS[st.held]
        for t in (held, rng.choice(TALENT_IDS)):
            for i, a in enumerate(ids + ["atlantis"]):
                foreign = i == len(ids) or st.owner[i] != gm.talent_state[st.held]
                yield PlaceTalent(p, t, a), not_asked or t != held or foreign
    elif awaiting == "assassin_target":
        for t in TALENT_IDS:  # any talent on the map but Jing Ke himself (10.4, A9)
            yield Assassinate(p, t), not_asked or t == "jing_ke" or st.talent_loc[TALENT_IDS.index(t)] < 0
    elif awaiting == "action_chit":
        for s in STATES + ("rome",):
            yield DrawChit(p, s), not_asked or s == "rome" or STATES.index(s) not in st.cup
    elif awaiting == "recruitment":
        yield from ((m, not_asked or bad) for m, bad in recruits(st, p, rng))
    elif awaiting == "move":
        yield Hold(p), not_asked
        yield from ((m, not_asked or bad) for m, bad in marches(st, p, rng, full=not not_asked))
    elif awaiting == "die_roll":
        for v in range(0, 8):
            yield RollDie(p, v), not_asked or not 1 <= v <= 6
        yield RollDie(p, 3, "telepathy"), True
    elif awaiting == "retreat_choice":
        r = st.retreat
        assert r is not None
        near = {d for d, _ in gm.neighbours[r.area]}
        yield Retreat(p, None), True
        for i, a in enumerate(ids + ["atlantis"]):  # A3: adjacent, own territory or neutral
            ok = i < len(ids) and i in near and st.owner[i] in (r.state, -1)
            yield Retreat(p, a), not_asked or not ok
    elif awaiting in ("destiny_check", "destiny_reveal"):
        for s in STATES:
            yield RevealDestiny(p, s), not_asked or (awaiting == "destiny_check" and STATES.index(s) != st.check_state)


def recruits(st: ZhangYiState, p: str, rng: random.Random) -> Iterator[tuple[Recruit, bool]]:
    """7: exactly the due strength, into the active state's own areas, split freely (A7)."""
    gm = st.map
    due = st.recruit_due
    own = [i for i, o in enumerate(st.owner) if o == st.active_state]
    others = [i for i in range(len(gm.areas)) if i not in own]
    for i in own + rng.sample(others, min(len(others), 3)):
        foreign = i not in own
        for n in (due - 1, due, due + 1):
            if n >= 1:
                yield Recruit(p, ((gm.areas[i].id, n),)), foreign or n != due
        yield Recruit(p, ((gm.areas[i].id, 0),)), True
    yield Recruit(p, ()), due > 0
    yield Recruit(p, (("atlantis", due),)), True
    for i, j in combinations(own, 2):
        for k in range(1, due):
            yield Recruit(p, ((gm.areas[i].id, k), (gm.areas[j].id, due - k))), False
    for _ in range(6):  # random splits over the own areas, in map order
        split = [0] * len(own)
        for _ in range(due):
            split[rng.randrange(len(own))] += 1
        yield Recruit(p, tuple((gm.areas[i].id, n) for i, n in zip(own, split) if n)), False


def marches(st: ZhangYiState, p: str, rng: random.Random, full: bool) -> Iterator[tuple[March, bool]]:
    """8: one area of the active state, to one adjacent area, leaving at least 1; talents only
    from the origin. ``full``: every strength and talent subset from the active state's areas."""
    gm = st.map
    s = st.active_state
    n = len(gm.areas)
    own_areas = [o for o in range(n) if st.owner[o] == s]
    others = [o for o in range(n) if st.owner[o] != s]
    for o in own_areas + rng.sample(others, min(len(others), 3)):
        have = st.strength[o]
        own = st.owner[o] == s
        near = [d for d, _ in gm.neighbours[o]]
        far = [d for d in range(n) if d != o and d not in near]
        dests = near + [o] + ([rng.choice(far)] if far else [])
        here = [t for t, loc in enumerate(st.talent_loc) if loc == o]
        elsewhere = [t for t, loc in enumerate(st.talent_loc) if loc >= 0 and loc != o]
        for d in dests:
            bad_place = not own or d not in near
            amounts = range(0, have + 2) if (full and own) else sorted({0, 1, max(have - 1, 1), have})
            for m in amounts:
                bad = bad_place or not 1 <= m <= have - 1
                subsets = [c for k in range(len(here) + 1) for c in combinations(here, k)] if (full and own and d in near) else [()]
                for ts in subsets:
                    yield March(p, gm.areas[o].id, gm.areas[d].id, m, tuple(TALENT_IDS[t] for t in ts)), bad
            if elsewhere and own and d in near and have >= 2:
                yield March(p, gm.areas[o].id, gm.areas[d].id, 1, (TALENT_IDS[rng.choice(elsewhere)],)), True
    yield March(p, "atlantis", gm.areas[0].id, 1), True


def check_spellings(st: ZhangYiState, legal: list[Any], rng: random.Random) -> int:
    """Other spellings of a legal move are the same move: another input source, recruit
    placements in another order or split in two, talents listed in another order. Each has no
    violations and leads to the same position (only the count of sensor-read inputs differs)."""
    checked = 0
    for move in rng.sample(legal, min(len(legal), 4)):
        other: list[Any] = []
        if isinstance(move, (DrawTalent, DrawChit, RollDie)):
            other = [replace(move, source=src) for src in SOURCES]
        elif isinstance(move, Recruit) and move.placements:
            a, k = move.placements[0]
            other = [Recruit(move.player, tuple(reversed(move.placements)))]
            if k >= 2:
                other.append(Recruit(move.player, ((a, 1), (a, k - 1)) + move.placements[1:]))
        elif isinstance(move, March) and len(move.talents) >= 2:
            other = [March(move.player, move.origin, move.dest, move.strength, tuple(reversed(move.talents)))]
        want = GAME.apply(st, move)
        for alt in other:
            checked += 1
            assert not GAME.violations(st, alt), f"{alt!r} (a spelling of the legal {move!r}) is refused"
            got = GAME.apply(st, alt)
            assert got.owner == want.owner and got.strength == want.strength and got.talent_loc == want.talent_loc \
                and got.awaiting == want.awaiting and got.actors == want.actors, f"{alt!r} and {move!r} differ"
    return checked


# -- playing and checking ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def crowded_map(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Seven states on one small ring (plus two neutral areas and a centre city): annihilations,
    players going out and hegemony are frequent."""
    ring = [(f"r{i}", i % 3 == 0, STATES[i], 1 + i % 2) for i in range(7)]
    areas = ring + [("n1", False, None, 0), ("n2", False, None, 0), ("centre", True, None, 0)]
    borders = [(f"r{i}", f"r{(i + 1) % 7}", "open" if i % 2 else "river") for i in range(7)]
    borders += [("r0", "n1", "open"), ("r3", "n2", "mountain"), ("n1", "centre", "open"), ("n2", "centre", "open"),
                ("r5", "centre", "open")]
    doc = map_doc(areas, borders, fill=False, counters=(5, 3))
    path = tmp_path_factory.mktemp("zy_self") / "crowded.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


@dataclass
class GameSpec:
    """One game to play: how it is set up."""

    seed: int
    players: int
    chance: str
    variants: tuple[str, ...]
    board: str

    def setup(self) -> dict[str, Any]:
        rng = random.Random(self.seed)
        doc: dict[str, Any] = {"players": list(PLAYERS[:self.players]), "board": self.board, "sample_map_confirmed": True,
                               "chance": self.chance, "first_player": rng.choice(PLAYERS[:self.players])}
        if self.chance == "seeded":
            doc["seed"] = self.seed
        if self.variants:
            doc["variants"] = list(self.variants)
        return doc


def play_and_check(g: GameSpec, tally: Tally, sample: float) -> Termination:
    """Play ``g`` with the simulator (now and then a uniformly random legal decision instead),
    checking every state against the witness and sampled states against the harness."""
    rng = random.Random(g.seed * 7919 + 1)
    setup = g.setup()
    st = GAME.setup(SetupOptions.from_json(setup))
    table = Table.deal(random.Random(g.seed), g.players) if g.chance == "declared" else None
    witness = Witness(g.players, g.chance == "declared", frozenset(g.variants), st.players.index(setup["first_player"]))
    if table is not None:
        witness.backed = dict(table.kept)
    moves: list[Any] = []
    rare = ("retreat_choice", "destiny_check", "destiny_reveal", "assassin_target", "destiny_keep")
    while True:
        witness.check_asked(st)
        over = GAME.is_over(st)
        assert over == witness.expect_over(), f"is_over {over}, but the rulebook says {witness.expect_over()} (ending {witness.ending})"
        if over or st.awaiting in rare or rng.random() < sample:
            legal = check_state(GAME, st, refused_or_not(st, rng), tally)
            tally.candidates += check_spellings(st, legal, rng) if legal else 0
            if legal and rng.random() < 0.5:  # the next step of a multi-step action, off the main line
                nxt = GAME.apply(st, rng.choice(legal))
                check_state(GAME, nxt, refused_or_not(nxt, rng), tally)
        else:
            legal = []
        if over:
            break
        decision = st.awaiting in ("talent_placement", "assassin_target", "recruitment", "move", "retreat_choice")
        if decision and rng.random() < 0.25:
            move = rng.choice(legal or list(GAME.legal_moves(st)))
        else:
            move = random_move(st, rng, table)
        prev, st = st, GAME.apply(st, move)
        moves.append(move)
        witness.after_move(prev, move, st)
        assert len(moves) < 5000, "the game does not end"
    tally.games += 1
    out = GAME.outcome(st)
    assert out is not None and out.termination is witness.ending, (out, witness.ending)
    winners, verdict = witness.result(st)
    assert set(out.winners) == winners and st.verdict == verdict, (out.winners, st.verdict, winners, verdict)
    fs = final_scoring(st)
    assert fs["ending"] == out.termination.value and fs["winners"] == out.winners and fs["verdict"] == st.verdict, fs
    if witness.ending is Termination.HEGEMONY:
        assert fs["winning_states"] == (STATES[witness.hegemon],), fs
    check_record_round_trip(GAME, setup, moves, st)
    return out.termination


def refused_or_not(st: ZhangYiState, rng: random.Random) -> Iterator[Any]:
    """The candidates for the harness, asserting on the way that the deliberately illegal ones are refused."""
    for move, must_refuse in candidates(st, rng):
        if must_refuse:
            assert GAME.violations(st, move), f"{move!r} should be refused while awaiting {st.awaiting}"
        yield move


def games(count: int, base: int, crowded: str) -> Iterator[GameSpec]:
    """Player counts, chance modes, variant sets and maps in cycles of different lengths, so that
    they combine; 3 players more often than 2 (players going out is where the turn order breaks)."""
    for k in range(count):
        seed = base + k
        yield GameSpec(seed, 2 if k % 5 in (0, 2) else 3, "declared" if k % 4 < 2 else "seeded",
                       VARIANT_SETS[(k // 4) % len(VARIANT_SETS)], crowded if k % 3 else "sample")


def test_zhang_yi_checks_itself(long_run: bool, crowded_map: str) -> None:
    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    base = 0 if ci else random.randrange(1_000_000)
    count, sample = (4000, 0.25) if long_run else (30, 0.25)
    tally = Tally()
    endings: dict[str, int] = {}
    per_players = {2: 0, 3: 0}
    t0 = time.perf_counter()
    for g in games(count, base, crowded_map):
        try:
            why = play_and_check(g, tally, sample)
        except AssertionError as exc:
            raise AssertionError(f"{g}: {exc}") from exc
        endings[why.value] = endings.get(why.value, 0) + 1
        per_players[g.players] += 1
    seconds = time.perf_counter() - t0
    print()
    print(tally.line("zhang_yi", seconds), f"(seeds {base}..{base + count - 1}; players {per_players}; endings {endings})")
    assert set(endings) == {"hegemony", "annihilation", "time"}, endings
    assert len(tally.rule_ids) >= 20, sorted(tally.rule_ids)
