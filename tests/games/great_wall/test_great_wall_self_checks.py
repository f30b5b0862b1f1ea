"""The Great Wall checks itself (issue 13): random reachable games, checked state by state.

Games come from the simulator (``scorer/games/great_wall/simulate.py``, tracked cards, players
naming the card a first token lies on) with 2 to 5 players and sets of the referee options, now
and then taking a uniformly random legal move instead of the simulator's; each game is also
replayed as the record a real table keeps (untracked cards: reveals entered, draws unnamed,
declared passes), whose states are checked too.

At sampled states the shared harness (``tests/games/self_checks.py``) compares ``legal_moves``
with ``violations`` over the candidates of the generator below, and an oracle written here from
the rules (rules/great-wall.md and the readings of docs/great-wall.md) says of every candidate
whether it must be refused. Other spellings of legal moves (a draw naming its card, the ``free``
flag left to the engine, a dragon or token card named without its position, a reveal in the other
order) are checked to be the same move.

A ``Witness`` follows each game the way a second referee would, from the table (cards in the
rows, tokens, hand and deck sizes) and the moves: whose turn it is (turn order, two actions and one
free cavalry play per turn), which first tokens still wait for their card to be named, the last
round and its final checks (3, 4a, amb. 7), the last token (4b) and the stalemate guard (E6); the
engine's ``turn``, ``is_over`` and ``outcome`` must agree with it.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, Iterator

from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.games.great_wall import GAME
from scorer.games.great_wall.data import CAVALRY, DRAGON, KINDS
from scorer.games.great_wall.moves import CardRef, Claim, Draw, Pass, Play, Reveal, section_index, section_space
from scorer.games.great_wall.simulate import as_table_record, random_move
from scorer.games.great_wall.state import GreatWallState
from tests.games.self_checks import Tally, check_record_round_trip, check_state

COLOURS = ("blue", "red", "yellow", "green", "grey")
VARIANT_SETS: tuple[tuple[str, ...], ...] = (
    (),
    ("claim_on_tie", "dragon_any_target", "voluntary_pass"),
    ("cavalry_single_card", "final_check_announcer_only", "claim_without_cards"),
    ("first_token_exception_literal", "noble_point_cards_only", "soldiers_square", "covered_soldier_keeps_place"),
    ("noble_opponents_only", "voluntary_pass", "dragon_any_target", "cavalry_single_card"),
)
BOGUS_KIND = "catapult"


# -- the table as a second referee sees it ------------------------------------------------------------

def covered(st: GreatWallState, s: int) -> set[int]:
    return {c.covers for c in st.sections[s].cards if c.covers >= 0}


def live(st: GreatWallState, s: int) -> bool:
    """Cards go only to a section with tokens to win (amb. 9)."""
    return bool(st.sections[s].tokens)


def dragon_target_fine(st: GreatWallState, s: int, p: int, i: int, taken: set[int]) -> bool:
    """Amb. 5: an uncovered card of another player, not the one holding a token (option: any uncovered card)."""
    sec = st.sections[s]
    if i in covered(st, s) or i in taken:
        return False
    if "dragon_any_target" in variants_of(st):
        return True
    return sec.cards[i].owner != p and not (sec.claimed_owner >= 0 and sec.claimed_card == i)


def variants_of(st: GreatWallState) -> set[str]:
    return {v for v in st.rules.VARIANTS if getattr(st.rules, v)}


def can_play_something(st: GreatWallState, p: int) -> bool:
    """Tracked hands: some card of the hand could go somewhere now."""
    assert st.hands is not None
    open_ = [s for s in range(len(st.sections)) if live(st, s)]
    if not open_:
        return False
    hand = dict(zip(KINDS, st.hands[p]))
    if any(n > 0 for k, n in hand.items() if k != DRAGON):
        return True
    return hand[DRAGON] > 0 and any(dragon_target_fine(st, s, p, i, set()) for s in open_ for i in range(len(st.sections[s].cards)))


@dataclass
class Witness:
    """What a second referee works out from the rules, the table and the moves (no engine logic)."""

    n: int
    variants: frozenset[str]
    tracked: bool
    turn: int = 0  # turns begun (the table's turn counter)
    actions: int = 0  # actions of the current turn (plays that are not the free one, draws, passes)
    free_used: bool = False
    busy: bool = False  # something changed in the current turn (E6)
    idle: int = 0  # whole turns in a row without any change
    idle_known: bool = True
    announcer: int = -1
    announced_in: int = -1  # the turn in which the announcer's hand and deck ran out
    last_checker: int = -1  # final checks: offset from the announcer of the last player asked
    open_claims: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # section -> (player, value, cards then)

    def final_phase(self, st: GreatWallState) -> bool:
        return self.announcer >= 0 and st.turn_number >= self.announced_in + self.n

    def last_token(self, st: GreatWallState) -> bool:
        """4b: the supply is empty and no token is left at any section (face up or on a card)."""
        return not st.supply and all(not s.tokens and s.claimed_owner < 0 and not s.awaiting_reveal for s in st.sections)

    # -- per state --------------------------------------------------------------------------------
    def check(self, st: GreatWallState) -> None:
        info = GAME.turn(st)
        over = GAME.is_over(st)
        if over:
            assert info.active == () and info.awaiting == "none", info
            out = GAME.outcome(st)
            assert out is not None
            if out.termination is Termination.LAST_TOKEN:
                assert self.last_token(st), "LAST_TOKEN, but a token is left"
            elif out.termination is Termination.LAST_ROUND:
                assert self.final_phase(st), "LAST_ROUND before play came back to the announcer"
            elif out.termination is Termination.BLOCKED:
                self.check_blocked(st)
            else:
                raise AssertionError(f"unexpected ending {out.termination}")
            return
        assert len(info.active) == 1 and info.active[0] in st.players, info
        p = st.players.index(info.active[0])
        assert not self.last_token(st), "the last token is gone, yet the game goes on (4b)"
        if self.idle_known:
            assert self.idle < self.n or self.final_phase(st), f"{self.idle} whole turns without any change, yet the game goes on (E6)"
        if self.final_phase(st):
            assert info.awaiting == "claim_choice", f"the final checks await {info.awaiting}"
            offset = (p - self.announcer) % self.n
            assert offset >= self.last_checker, "final checks out of turn order from the announcer (amb. 7)"
            if "final_check_announcer_only" in self.variants:
                assert offset == 0, "only the announcer checks (option final_check_announcer_only)"
            self.last_checker = offset
            return
        assert st.turn_number == self.turn, f"turn counter {st.turn_number}, the table counts {self.turn}"
        assert p == self.turn % self.n, f"turn {self.turn}: {info.active[0]} asked, but it is {st.players[self.turn % self.n]}'s turn"
        assert info.round == self.turn // self.n + 1
        assert st.free_used == self.free_used and st.actions_done == self.actions, (st.free_used, st.actions_done, self.free_used, self.actions)
        named = {s: (sec.claimed_owner, sec.claimed_value, sec.unnamed_claim) for s, sec in enumerate(st.sections) if sec.unnamed_claim >= 0}
        assert named == self.open_claims, f"first tokens waiting for their card: engine {named}, table {self.open_claims}"

    def check_blocked(self, st: GreatWallState) -> None:
        if self.idle_known:
            assert self.idle >= self.n, f"BLOCKED after only {self.idle} idle turns"
        if self.tracked and "voluntary_pass" not in self.variants:
            for p in range(self.n):
                assert st.deck_sizes[p] == 0 and not can_play_something(st, p), f"BLOCKED, but {st.players[p]} could still play or draw"

    # -- per move ---------------------------------------------------------------------------------
    def after(self, prev: GreatWallState, move: Any, st: GreatWallState) -> None:
        p = prev.active
        claimed = {e.section: e for e in st.effects if e.kind in ("first_token", "section_cleared")}
        if isinstance(move, Play):
            self.busy = True
            kind = move.cards[0]
            free = move.free if move.free is not None else (
                kind == CAVALRY and not self.free_used and not ("cavalry_single_card" in self.variants and len(move.cards) > 1))
            if free:
                assert not self.free_used
                self.free_used = True
            else:
                self.actions += 1
            if st.hand_sizes[p] == 0 and st.deck_sizes[p] == 0 and self.announcer < 0:
                self.announcer, self.announced_in = p, prev.turn_number
        elif isinstance(move, Draw):
            self.busy, self.actions = True, self.actions + 1
        elif isinstance(move, Pass):
            self.actions += 1
        elif isinstance(move, Claim):
            s = section_index(move.section)
            if prev.pending_claim < 0:
                assert self.open_claims.pop(s)[0] == p  # a naming: settled
            else:
                self.busy = True
                if move.on is None:
                    self.open_claims[s] = (p, move.token, len(st.sections[s].cards))
                claimed.pop(s, None)
        assert self.actions <= 2, "more than two actions in a turn"
        ended = st.turn_number - prev.turn_number
        if ended:
            assert not isinstance(move, (Claim, Reveal)) or prev.deck_sizes[p] == 0, "a turn ended on a claim or reveal"
            if self.actions < 2 and st.finished is None:
                assert st.deck_sizes[p] == 0, f"{st.players[p]}'s turn ended after {self.actions} action(s) with cards to draw"
                if not self.tracked:
                    assert st.hand_sizes[p] == 0, f"{st.players[p]}'s turn ended with cards in hand (untracked)"
            self.end_turns(prev, st, ended)
        # first tokens laid by the check without a card named: the claimant may name it this turn
        if st.finished is None:
            active = st.active
            self.open_claims = {s: v for s, v in self.open_claims.items() if v[0] == active and not ended}
            for s, e in claimed.items():
                if e.kind == "first_token" and st.players.index(e.player) == active and st.sections[s].claimed_owner == active \
                        and not self.final_phase(st):
                    self.open_claims[s] = (active, e.tokens[0], len(st.sections[s].cards))
                if e.kind in ("first_token", "section_cleared") and st.players.index(e.player) == active:
                    self.busy = True
        else:
            self.open_claims = {}

    def end_turns(self, prev: GreatWallState, st: GreatWallState, ended: int) -> None:
        """``ended`` turns are over: this one and those that ended by themselves (nothing to do)."""
        claimers = [st.players.index(e.player) for e in st.effects if e.kind in ("first_token", "section_cleared")]
        if ended > self.n:
            self.idle_known = False  # whose claim is whose can no longer be told apart
        for k in range(ended):
            if k > 0:
                q = (prev.active + k) % self.n
                assert st.deck_sizes[q] == 0, f"{st.players[q]}'s turn went by with cards to draw"
                self.busy = q in claimers
            self.idle = 0 if self.busy else self.idle + 1
            self.busy = False
        self.turn = prev.turn_number + ended
        self.actions, self.free_used = 0, False


# -- candidate moves and what the rules say of each -----------------------------------------------------

def refs_of(st: GreatWallState, s: int) -> list[CardRef]:
    """Every card of the row, named in full (the canonical form)."""
    return [CardRef(st.players[c.owner], c.kind, i + 1) for i, c in enumerate(st.sections[s].cards)]


def candidates(st: GreatWallState, rng: random.Random) -> Iterator[Any]:
    """The inputs a table could give now, legal or deliberately not: wrong player, unknown player,
    wrong section, dead section, too many or unknown or mixed cards, unaffordable, wrong dragon
    target, wrong token value, wrong phase. Canonical forms only (see ``spellings``)."""
    n_sec = len(st.sections)
    spaces = [section_space(s) for s in range(4)] + ["section-5"]
    everyone = list(st.players) + ["ghost"]
    active = st.players[st.active] if st.finished is None else st.players[0]
    # reveals: any section, any pair (the awaited ones in full)
    for sp in spaces:
        s = section_index(sp)
        waiting = s is not None and s < n_sec and st.sections[s].awaiting_reveal
        pairs = [(a, b) for a in range(1, 9) for b in range(a, 9)] if waiting else [(rng.randint(1, 8), 8), (3, 5)]
        for pair in pairs:
            yield Reveal(sp, pair)
        yield Reveal(sp, (5,))
        yield Reveal(sp, (2, 3, 4))
    # claims: every player, section, token value, card
    for p in everyone:
        for s in range(min(4, n_sec + 1)):
            sp = section_space(s)
            sec = st.sections[s] if s < n_sec else None
            values = sorted(set((sec.tokens if sec else ()) + ((sec.claimed_value,) if sec and sec.claimed_owner >= 0 else ()) + (6,)))
            refs: list[CardRef | None] = [None] + (refs_of(st, s) if sec else []) + [CardRef(position=99)]
            if p != active:
                refs = rng.sample(refs, min(3, len(refs)))
            for v in values:
                for ref in refs:
                    yield Claim(p, sp, v, ref)
    # draws and passes
    for p in everyone:
        yield Draw(p)
        yield Pass(p)
    # plays: the active player in full, the others sampled
    for p in everyone:
        mine = list(plays(st, p, rng))
        yield from (mine if p == active else rng.sample(mine, min(12, len(mine))))


def plays(st: GreatWallState, player: str, rng: random.Random) -> Iterator[Play]:
    n_sec = len(st.sections)
    p = st.player_index(player)
    hand = st.hand_sizes[p] if p >= 0 else 3
    spaces = [section_space(s) for s in range(n_sec)] + ["section-4" if n_sec < 4 else "section-5", "section-9"]
    for sp in spaces:
        s = section_index(sp)
        sec = st.sections[s] if s is not None and s < n_sec else None
        yield Play(player, sp, ())
        yield Play(player, sp, ("wall", "gate"))
        yield Play(player, sp, (BOGUS_KIND,))
        yield Play(player, sp, ("wall",), (CardRef(kind="wall"),))
        for kind in KINDS:
            for k in range(1, min(hand, 3) + 2):
                cards = (kind,) * k
                if kind == DRAGON:
                    refs = refs_of(st, s) if sec is not None else []
                    combos = list(combinations(refs, k))
                    if len(combos) > 40:
                        combos = rng.sample(combos, 40)
                    for targets in combos:
                        yield Play(player, sp, cards, targets)
                    yield Play(player, sp, cards, ())
                    if refs:
                        yield Play(player, sp, cards, tuple(refs[:1]) * (k + 1))
                    continue
                if kind == CAVALRY:  # canonical: free or not while the free play is open to it, else left to the engine
                    yield Play(player, sp, cards, (), True)
                    open_ = not st.free_used and not ("cavalry_single_card" in variants_of(st) and k > 1)
                    yield Play(player, sp, cards, (), False if open_ else None)
                    continue
                yield Play(player, sp, cards)
                yield Play(player, sp, cards, (), True)


def must_refuse(st: GreatWallState, w: Witness, move: Any) -> bool:
    """The rules' verdict on a candidate, worked out here (True: it breaks some rule)."""
    if st.finished is not None:
        return True
    waiting = [s for s, sec in enumerate(st.sections) if sec.awaiting_reveal]
    if isinstance(move, Reveal):
        if st.rules.track_cards or not waiting:
            return True
        s = section_index(move.section)
        if s not in waiting:
            return True
        if len(move.tokens) != min(2, len(st.supply)):
            return True
        supply = list(st.supply)
        for v in move.tokens:
            if v not in supply:
                return True
            supply.remove(v)
        return False
    if waiting:
        return True
    p = st.player_index(getattr(move, "player", ""))
    if isinstance(move, Claim):
        return claim_refused(st, w, move, p)
    if p != st.active or st.pending_claim >= 0 or w.final_phase(st):
        return True
    if isinstance(move, Draw):
        if st.deck_sizes[p] == 0:
            return True
        if move.card is None:
            return False
        return move.card != st.decks[p][0] if st.decks is not None else move.card not in KINDS
    if isinstance(move, Pass):
        if "voluntary_pass" in w.variants:
            return False
        if st.deck_sizes[p] > 0:
            return True
        return st.hands is not None and can_play_something(st, p)
    assert isinstance(move, Play)
    return play_refused(st, w, move, p)


def claim_refused(st: GreatWallState, w: Witness, move: Claim, p: int) -> bool:
    s = section_index(move.section)
    if s is None or s >= len(st.sections):
        return True
    sec = st.sections[s]

    def own_card(ref: CardRef | None, upto: int) -> bool:
        if ref is None or ref.position is None:
            return ref is None
        i = ref.position - 1
        if not 0 <= i < min(upto, len(sec.cards)):
            return False
        card = sec.cards[i]
        return card.owner == p and ref.kind in (None, card.kind) and ref.owner in (None, st.players[p])

    if st.pending_claim >= 0:  # 3.1: choose one of the two tokens, lay it on one of your cards there
        return not (p == st.active and s == st.pending_claim and move.token in sec.tokens and own_card(move.on, len(sec.cards)))
    if s not in w.open_claims:
        return True
    who, value, upto = w.open_claims[s]
    return not (p == who and move.token == value and move.on is not None and own_card(move.on, upto))


def play_refused(st: GreatWallState, w: Witness, move: Play, p: int) -> bool:
    s = section_index(move.section)
    if s is None or s >= len(st.sections) or not move.cards:
        return True
    if any(c not in KINDS for c in move.cards) or len(set(move.cards)) > 1:
        return True
    if not live(st, s):
        return True
    kind, k = move.cards[0], len(move.cards)
    if move.free and (kind != CAVALRY or w.free_used or ("cavalry_single_card" in w.variants and k > 1)):
        return True
    if k > st.hand_sizes[p]:
        return True
    ki = KINDS.index(kind)
    if st.hands is not None:
        if st.hands[p][ki] < k:
            return True
    elif st.played[p][ki] + k > st.deck.count(kind):
        return True
    if kind != DRAGON:
        return bool(move.targets)
    if len(move.targets) != k:
        return True
    taken: set[int] = set()
    for ref in move.targets:
        i = ref.position - 1
        row = st.sections[s].cards
        if not 0 <= i < len(row) or row[i].kind != ref.kind or st.players[row[i].owner] != ref.owner:
            return True
        if not dragon_target_fine(st, s, p, i, taken):
            return True
        taken.add(i)
    return False


def spellings(st: GreatWallState, legal: list[Any], rng: random.Random) -> int:
    """Other spellings of legal moves are the same move: same position afterwards (effects aside)."""
    checked = 0

    def same(alt: Any, want: Any) -> None:
        nonlocal checked
        checked += 1
        assert not GAME.violations(st, alt), f"{alt!r} (another spelling of {want!r}) is refused"
        assert strip(GAME.apply(st, alt)) == strip(GAME.apply(st, want)), f"{alt!r} and {want!r} differ"

    def one_of(alt: Any, like: list[Any]) -> None:
        """Same position as one of ``like`` -- up to which of two dragons of one play lies on which card."""
        nonlocal checked
        checked += 1
        assert unordered(GAME.apply(st, alt)) in {unordered(GAME.apply(st, m)) for m in like}, f"{alt!r} is none of the legal moves"

    for move in rng.sample(legal, min(len(legal), 6)):
        if isinstance(move, Draw) and st.decks is not None:
            same(Draw(move.player, st.decks[st.active][0]), move)
            wrong = next(k for k in KINDS if k != st.decks[st.active][0])
            assert GAME.violations(st, Draw(move.player, wrong)), "a draw naming the wrong card is accepted"
        elif isinstance(move, Draw):  # recorded, not checked (and counted as such)
            alt = Draw(move.player, rng.choice(KINDS))
            assert not GAME.violations(st, alt)
            got = GAME.apply(st, alt)
            assert replace(got, draw_cards_unchecked=got.draw_cards_unchecked - 1, effects=()) == strip(GAME.apply(st, move))
            checked += 1
        elif isinstance(move, Play) and move.cards[0] not in (CAVALRY, DRAGON):
            same(replace(move, free=False), move)  # an action either way
        elif isinstance(move, Play) and move.cards[0] == CAVALRY:
            if move.free is None:  # the free play is used (or not open to a set): an action
                same(replace(move, free=False), move)
            elif move.free:  # left to the engine, cavalry takes the free play while it is open
                same(replace(move, free=None), move)
        elif isinstance(move, Play) and move.targets:
            alt = replace(move, targets=tuple(CardRef(t.owner, t.kind) for t in move.targets))
            if not GAME.violations(st, alt):  # then the latest fitting card(s) that may be covered
                one_of(alt, [m for m in legal if isinstance(m, Play) and m.section == move.section and m.cards == move.cards])
        elif isinstance(move, Claim) and move.on is not None:
            alt = replace(move, on=CardRef(kind=move.on.kind))
            assert not GAME.violations(st, alt), f"{alt!r} is refused, {move!r} is not"
            one_of(alt, [m for m in legal if isinstance(m, Claim) and m.section == move.section and m.token == move.token])
        elif isinstance(move, Reveal) and len(move.tokens) == 2:
            same(Reveal(move.section, tuple(reversed(move.tokens))), move)
    return checked


def strip(st: GreatWallState) -> GreatWallState:
    return replace(st, effects=())


def unordered(st: GreatWallState) -> GreatWallState:
    return replace(strip(st), sections=tuple(replace(sec, cards=tuple(sorted(sec.cards, key=repr))) for sec in st.sections))


# -- playing and checking ---------------------------------------------------------------------------

def check_here(st: GreatWallState, w: Witness, tally: Tally, rng: random.Random) -> list[Any]:
    cands = list(candidates(st, rng))
    for move in cands:
        refused = bool(GAME.violations(st, move))
        assert refused == must_refuse(st, w, move), \
            f"{move!r}: the engine {'refuses' if refused else 'accepts'} it, the rules say the opposite ({GAME.violations(st, move)})"
    legal = check_state(GAME, st, cands, tally)
    if st.finished is None:
        assert legal, f"the game goes on ({GAME.turn(st).awaiting}) but no legal move exists"
        tally.candidates += spellings(st, legal, rng)
    return legal


def play_and_check(seed: int, players: int, variants: tuple[str, ...], tally: Tally, sample: float) -> tuple[Termination, Termination]:
    """Play one tracked game, checking it, then the same game as recorded at a real table."""
    rng = random.Random(seed * 7919 + players)
    setup: dict[str, Any] = {"players": list(COLOURS[:players]), "seed": seed, "cards": "tracked"}
    if variants:
        setup["variants"] = list(variants)
    st = GAME.setup(SetupOptions.from_json(setup))
    w = Witness(players, frozenset(variants), True)
    moves: list[Any] = []
    while True:
        w.check(st)
        rare = GAME.turn(st).awaiting == "claim_choice" or any(s.unnamed_claim >= 0 for s in st.sections)
        if st.finished is not None or rng.random() < (sample * 4 if rare else sample):
            legal = check_here(st, w, tally, rng)
            if legal and rng.random() < 0.3:  # the next step of the turn, off the main line
                move = rng.choice(legal)
                nxt = GAME.apply(st, move)
                branch = replace_witness(w)
                branch.after(st, move, nxt)
                branch.check(nxt)
                check_here(nxt, branch, tally, rng)
        else:
            legal = []
        if st.finished is not None:
            break
        move = rng.choice(legal or list(GAME.legal_moves(st))) if rng.random() < 0.15 else random_move(st, rng, name_cards=True)
        prev, st = st, GAME.apply(st, move)
        moves.append(move)
        w.after(prev, move, st)
        assert len(moves) < 3000, "the game does not end"
    tally.games += 1
    check_record_round_trip(GAME, setup, moves, st)
    ending = st.finished
    # the same game at a real table: untracked cards, reveals entered, draws unnamed, passes declared
    table_setup, table_moves = as_table_record(setup, moves)
    tb = GAME.setup(SetupOptions.from_json(table_setup))
    tw = Witness(players, frozenset(variants), False)
    for move in table_moves:
        tw.check(tb)
        if rng.random() < sample / 2 or GAME.turn(tb).awaiting == "token_reveal" and rng.random() < 0.3:
            check_here(tb, tw, tally, rng)
        prev, tb = tb, GAME.apply(tb, move)
        tw.after(prev, move, tb)
    tw.check(tb)
    check_here(tb, tw, tally, rng)
    tally.games += 1
    check_record_round_trip(GAME, table_setup, table_moves, tb)
    assert tb.finished is not None
    return ending, tb.finished


def replace_witness(w: Witness) -> Witness:
    return replace(w, open_claims=dict(w.open_claims))


def test_great_wall_checks_itself(long_run: bool) -> None:
    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    base = 0 if ci else random.randrange(1_000_000)
    count, sample = (1500, 0.1) if long_run else (6, 0.06)
    tally = Tally()
    endings: dict[str, int] = {}
    per_players = {n: 0 for n in range(2, 6)}
    t0 = time.perf_counter()
    for k in range(count):
        seed, players, variants = base + k, 2 + k % 4, VARIANT_SETS[(k // 4) % len(VARIANT_SETS)]
        try:
            for why in play_and_check(seed, players, variants, tally, sample):
                endings[why.value] = endings.get(why.value, 0) + 1
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}, {players} players, variants {variants}: {exc}") from exc
        per_players[players] += 1
    seconds = time.perf_counter() - t0
    print()
    print(tally.line("great_wall", seconds), f"(seeds {base}..{base + count - 1}; tracked games and their table records; "
                                               f"players {per_players}; endings {endings})")
    assert len(tally.rule_ids) >= 25, sorted(tally.rule_ids)


# -- disagreements the checks found (regression tests) ---------------------------------------------------

def test_every_section_waiting_for_tokens_is_offered_a_reveal() -> None:
    """Set-up at a real table: all sections wait for their tokens and may be revealed in any order;
    ``legal_moves`` offered only the first, although ``violations`` accepts any."""
    st = GAME.setup(SetupOptions.from_json({"players": ["blue", "red", "green"]}))
    assert not GAME.violations(st, Reveal("section-3", (3, 7)))
    assert {m.section for m in GAME.legal_moves(st)} == {"section-1", "section-2", "section-3"}
    assert Reveal("section-3", (3, 7)) in set(GAME.legal_moves(st))
