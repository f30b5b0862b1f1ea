"""China checks itself (issue 13): random reachable games, checked state by state.

Two kinds of games, 3, 4 and 5 players, with and without the fortress variant and its options:

* tracked cards, played by the simulator (``scorer/games/china/simulate.py``), now and then a
  uniformly random legal move instead; each is replayed as the record a real table keeps
  (untracked cards: the cards of a placement kept, exchanges without their cards, the second
  exhaustion of the pile declared after the turn it happened in), which must end the same way
  with the same scores;
* untracked games played to their end by random placements, exchanges, declared passes and a
  declaration of the pile's end at a random moment (or none: the game then runs until nobody can
  place), so the end by "no player can place" and declarations at every seat are reached.

At sampled states the shared harness (``tests/games/self_checks.py``) compares ``legal_moves``
with ``violations`` over the candidates of the generator below, and an oracle written here from
the rules (rules/china.md 4.1-4.8 and the readings of docs/china.md) says of every candidate
whether it must be refused; other spellings of legal moves are checked to be the same move. A
``Witness`` counts the turns (one per player and round, clockwise from the Emperor's holder),
follows the end of the pile and the pieces left, and says when the game must be over (4.8).
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from dataclasses import dataclass, replace
from itertools import combinations, product
from typing import Any, Iterator

from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.games.china import GAME
from scorer.games.china.board import CARD_COLOURS
from scorer.games.china.moves import EMISSARY, FORTRESS, HOUSE, DeclarePileExhausted, Exchange, Pass, Place, Placement
from scorer.games.china.simulate import random_move
from scorer.games.china.state import ChinaState
from tests.games.self_checks import Tally, check_record_round_trip, check_state

COLOURS = ("blue", "green", "violet", "red", "yellow")
VARIANT_SETS: tuple[tuple[str, ...], ...] = ((), ("fortress",), ("fortress", "bare_fortress_occupies"), ("fortress", "fortress_house_in_empty"))
HAND = 3


# -- the table as a second referee sees it ------------------------------------------------------------

def province_of(st: ChinaState, pl: Placement) -> int | None:
    b = st.board
    if pl.kind in (HOUSE, FORTRESS):
        s = b.site_index.get(pl.space)
        return b.site_province[s] if s is not None else None
    if pl.kind == EMISSARY:
        return b.dragon_index.get(pl.space)
    return None


def houses(st: ChinaState, prov: int) -> list[int]:
    out = [0] * st.n
    for s in st.board.province_sites[prov]:
        if st.site_owner[s] >= 0:
            out[st.site_owner[s]] += 1
    return out


def empty_at_start(st: ChinaState, prov: int) -> bool:
    """4.2: no piece of any colour (amb. 16: a bare fortress counts only under its option)."""
    sites = st.board.province_sites[prov]
    if any(st.site_owner[s] >= 0 for s in sites) or sum(st.emissaries[prov]):
        return False
    return not (st.rules.bare_fortress_occupies and any(st.site_fortress[s] for s in sites))


def can_anyone_place(st: ChinaState) -> bool:
    """4.8 / amb. 12: some player could still put some piece somewhere, cards aside."""
    b = st.board
    for p in range(st.n):
        if st.houses_left[p] and any(o < 0 for o in st.site_owner):
            return True
        if st.emissaries_left[p] and any(sum(st.emissaries[v]) < max(houses(st, v)) for v in range(len(b.provinces))):
            return True
        if st.fortresses_left[p] and any(o < 0 and not f for o, f in zip(st.site_owner, st.site_fortress)):
            return True
    return False


def pays(cards: tuple[str, ...], colour: str, pieces: int) -> bool:
    """The four payment sets of 4.2: 1 matching card; 2 matching; a wild pair; 1 matching + a wild pair."""
    matching = [c for c in cards if c == colour]
    others = [c for c in cards if c != colour]
    pair = len(others) == 2 and others[0] == others[1]
    if pieces == 1:
        return (len(matching) == 1 and not others) or (not matching and pair)
    if pieces == 2:
        return (len(matching) == 2 and not others) or (len(matching) == 1 and pair)
    return False


def pieces_fine(st: ChinaState, placements: tuple[Placement, ...]) -> bool:
    """4.2 and 4.7, piece by piece in the order given (a house placed first raises the emissary cap)."""
    if not 1 <= len(placements) <= 2 or any(pl.kind not in (HOUSE, EMISSARY, FORTRESS) for pl in placements):
        return False
    provs = [province_of(st, pl) for pl in placements]
    if None in provs or len(set(provs)) > 1:
        return False
    prov = provs[0]
    if len(placements) == 2 and empty_at_start(st, prov):
        a, b = placements
        if not (st.rules.fortress_house_in_empty and {a.kind, b.kind} == {HOUSE, FORTRESS} and a.space == b.space):
            return False
    p = st.active
    left = {HOUSE: st.houses_left[p], EMISSARY: st.emissaries_left[p], FORTRESS: st.fortresses_left[p]}
    count = houses(st, prov)
    emissaries = sum(st.emissaries[prov])
    new_house: set[int] = set()
    new_fort: set[int] = set()
    for pl in placements:
        if pl.kind == FORTRESS and not st.rules.fortress:
            return False
        if left[pl.kind] == 0:
            return False
        left[pl.kind] -= 1
        if pl.kind == HOUSE:
            s = st.board.site_index[pl.space]
            if st.site_owner[s] >= 0 or s in new_house:
                return False
            new_house.add(s)
            count[p] += 1
        elif pl.kind == FORTRESS:
            s = st.board.site_index[pl.space]
            if st.site_owner[s] >= 0 or st.site_fortress[s] or s in new_house or s in new_fort:
                return False
            new_fort.add(s)
        else:
            if emissaries + 1 > max(count):
                return False
            emissaries += 1
    return True


def refill_fine(st: ChinaState, played: tuple[str, ...], draws: tuple[str, ...]) -> bool:
    """4.5 and amb. 20 on counts: refill to 3 from the display and/or the pile while a card can be
    taken; the first time the pile runs out the discards (the cards just played among them) become
    the pile; display slots are refilled only after the drawing."""
    cs = st.cards
    assert cs is not None
    hand = len(cs.hands[st.active]) - len(played)
    pile, discard, runs = len(cs.pile), len(cs.discard) + len(played), cs.exhaustions
    display = [c is not None for c in cs.display]
    for src in draws:
        if hand >= HAND:
            return False
        if src == "pile":
            if pile == 0:
                return False
            pile -= 1
            if pile == 0 and runs < 2:
                runs += 1
                if runs == 1:
                    pile, discard = discard, 0
                    if pile == 0:
                        runs = 2
        else:
            slot = int(src.split(":")[1])
            if not (0 <= slot < len(display) and display[slot]):
                return False
            display[slot] = False
        hand += 1
    return hand >= HAND or (pile == 0 and not any(display))


def payable_placement(st: ChinaState) -> bool:
    """The active player could place one piece somewhere with the cards in hand (then a pass is refused)."""
    assert st.cards is not None
    hand = st.cards.hands[st.active]
    subsets = {tuple(sorted(c)) for k in (1, 2) for c in combinations(hand, k)}
    b = st.board
    for prov, province in enumerate(b.provinces):
        if not any(pays(c, province.colour, 1) for c in subsets):
            continue
        for pl in one_piece_options(st, prov):
            if pieces_fine(st, (pl,)):
                return True
    return False


def one_piece_options(st: ChinaState, prov: int) -> list[Placement]:
    b = st.board
    sites = [b.sites[s] for s in b.province_sites[prov]]
    return [Placement(k, s) for s in sites for k in (HOUSE, FORTRESS)] + [Placement(EMISSARY, b.provinces[prov].dragon)]


def must_refuse(st: ChinaState, move: Any) -> bool:
    """The rules' verdict on a candidate, worked out here (True: it breaks some rule)."""
    if st.finished is not None:
        return True
    tracked = st.cards is not None
    if isinstance(move, DeclarePileExhausted):
        return tracked or st.end_triggered
    if st.player_index(move.player) != st.active:
        return True
    cs = st.cards
    if isinstance(move, Exchange):  # 4.1 B: discard one card, take one from the display or the pile
        if not tracked:
            return False
        if move.discard is None or move.take is None or move.discard not in cs.hands[st.active]:
            return True
        if move.take == "pile":
            return not cs.pile
        slot = int(move.take.split(":")[1])
        return not (0 <= slot < len(cs.display) and cs.display[slot] is not None)
    if isinstance(move, Pass):  # amb. 11: only with no possible action
        if not tracked:
            return False
        if cs.hands[st.active] and (cs.pile or any(c is not None for c in cs.display)):
            return True
        return payable_placement(st)
    assert isinstance(move, Place)
    if not pieces_fine(st, move.placements):
        return True
    colour = st.board.provinces[province_of(st, move.placements[0])].colour
    if move.cards is None:
        return tracked
    if not pays(move.cards, colour, len(move.placements)):
        return True
    if not tracked:
        return False
    if +(Counter(move.cards) - Counter(cs.hands[st.active])):
        return True
    return move.draws is None or not refill_fine(st, move.cards, move.draws)


@dataclass
class Witness:
    """Counts the turns and follows the endings (4.8) from the table and the moves."""

    n: int
    tracked: bool
    turns: int = 0
    triggered: bool = False
    expect_over: bool = False

    def check(self, st: ChinaState) -> None:
        info = GAME.turn(st)
        over = GAME.is_over(st)
        assert over == self.expect_over, f"is_over {over}, the rules say {self.expect_over} (turn {self.turns})"
        if over:
            assert info.active == ()
            out = GAME.outcome(st)
            assert out is not None
            if out.termination is Termination.DECK_EXHAUSTED:
                assert self.triggered and self.turns % self.n == 0, "the last round is not complete: not every player had as many turns"
            else:
                assert out.termination is Termination.NO_LEGAL_PLACEMENT and not can_anyone_place(st), out
            return
        assert info.active == (st.players[self.turns % self.n],), f"turn {self.turns}: {info.active} asked"
        assert info.round == self.turns // self.n + 1 and info.awaiting == "move"
        assert st.end_triggered == self.triggered

    def after(self, prev: ChinaState, move: Any, st: ChinaState) -> None:
        if isinstance(move, DeclarePileExhausted):
            self.triggered = True
            self.expect_over = self.turns > 0 and self.turns % self.n == 0  # the last seat has just played
            return
        mover = self.turns % self.n
        self.turns += 1
        if self.tracked and st.cards is not None and st.cards.exhaustions >= 2:
            self.triggered = True
        # the round ends with the player to the right of the Emperor's holder: the last seat
        self.expect_over = (self.triggered and mover == self.n - 1) or not can_anyone_place(st)


# -- candidate moves ------------------------------------------------------------------------------------

def candidates(st: ChinaState, rng: random.Random) -> Iterator[Any]:
    """Canonical inputs, legal or deliberately not: wrong or unknown player, no/three pieces, two
    provinces, wrong space or kind, taken site, over the emissary cap, the empty-province limit,
    fortress without the variant, wrong payment, cards not in hand, wrong refill."""
    b = st.board
    everyone = list(st.players) + ["ghost"]
    active = st.players[st.active] if st.finished is None else st.players[0]
    yield DeclarePileExhausted()
    for p in everyone:
        yield Pass(p)
        yield from exchanges(st, p)
        sets = list(placement_sets(st, rng, full=p == active))
        if p != active:
            sets = rng.sample(sets, min(len(sets), 10))
        for pls in sets:
            yield from with_cards(st, p, pls, rng, full=p == active)
    yield Place(active, ())
    yield Place(active, (Placement(HOUSE, "atlantis-1"),))
    yield Place(active, (Placement("castle", b.sites[0]),))
    yield Place(active, (Placement(EMISSARY, b.sites[0]),))
    yield Place(active, (Placement(HOUSE, b.provinces[0].dragon),))


def exchanges(st: ChinaState, p: str) -> Iterator[Exchange]:
    if st.cards is None:
        yield Exchange(p)
        return
    yield Exchange(p)
    for discard in CARD_COLOURS:
        for take in ["pile"] + [f"display:{i}" for i in range(4)]:
            yield Exchange(p, discard, take)


def placement_sets(st: ChinaState, rng: random.Random, full: bool) -> Iterator[tuple[Placement, ...]]:
    """Singles everywhere; pairs in two provinces (every canonical order), a few across provinces; triples."""
    b = st.board
    provs = list(range(len(b.provinces)))
    singles = [pl for v in provs for pl in one_piece_options(st, v)]
    yield from ((pl,) for pl in singles)
    for v in (rng.sample(provs, 2) if full else rng.sample(provs, 1)):
        opts = one_piece_options(st, v)
        for a, c in product(opts, repeat=2):
            if a.kind == c.kind and a.kind != EMISSARY and c.space <= a.space:
                continue  # same kind on two sites: listed once (the other order is a spelling)
            yield (a, c)
    for _ in range(4):
        a, c = rng.sample(singles, 2)
        yield (c, a) if a.kind == c.kind != EMISSARY and c.space < a.space else (a, c)
        yield tuple(rng.sample(singles, 3))


def with_cards(st: ChinaState, p: str, pls: tuple[Placement, ...], rng: random.Random, full: bool) -> Iterator[Place]:
    """Untracked: no cards (canonical), and payments that must be refused. Tracked: payments from the
    hand and beyond, each with refills."""
    prov = province_of(st, pls[0]) if pls else None
    colour = st.board.provinces[prov].colour if prov is not None else "red"
    if st.cards is None:
        yield Place(p, pls)
        if rng.random() < 0.2:
            for cards in ((colour,) * (len(pls) + 1), ("red", "green"), ("green", "green", "green", "green")):
                if not pays(cards, colour, len(pls)):
                    yield Place(p, pls, cards)
        return
    cs = st.cards
    hand = cs.hands[st.active]
    yield Place(p, pls)  # cards missing
    fine = pieces_fine(st, pls)
    if not full or rng.random() > (0.5 if fine else 0.05):
        return
    payments = {tuple(sorted(c)) for k in (1, 2, 3) for c in combinations(hand, k)}
    payments |= {(colour,) * len(pls), tuple(sorted((colour,) + ("green", "green") if colour != "green" else ("red", "red", colour)))}
    sources = ["pile"] + [f"display:{i}" for i in range(len(cs.display))]
    refills = fine and rng.random() < 0.3  # many refill orders for some placements
    for cards in sorted(payments):
        yield Place(p, pls, cards)  # refill missing
        if not refills or not pays(cards, colour, len(pls)):
            yield Place(p, pls, cards, ("pile",) * len(cards))
            continue
        draws = set(product(sources, repeat=len(cards)))
        shorter = set(product(sources, repeat=max(len(cards) - 1, 0)))
        picked = list(draws) if len(draws) <= 30 else rng.sample(sorted(draws), 30)
        for d in picked + rng.sample(sorted(shorter), min(4, len(shorter))) + [("pile",) * (len(cards) + 1)]:
            yield Place(p, pls, cards, d)


def spellings(st: ChinaState, legal: list[Any], rng: random.Random) -> int:
    """Other spellings of legal moves are the same move: the same position afterwards."""
    checked = 0

    def strip(s: ChinaState) -> ChinaState:
        """Effects aside, and the discard pile as a heap (the order the cards were laid down in only
        seeds a simulated reshuffle)."""
        cards = replace(s.cards, discard=tuple(sorted(s.cards.discard))) if s.cards is not None else None
        return replace(s, effects=(), cards=cards)

    for move in rng.sample(legal, min(len(legal), 8)):
        want = strip(GAME.apply(st, move))
        alts: list[Any] = []
        if isinstance(move, Place) and len(move.placements) == 2 and move.placements[0].kind == move.placements[1].kind != EMISSARY:
            alts.append(replace(move, placements=move.placements[::-1]))
        reshuffled = st.cards is not None and GAME.apply(st, move).cards.exhaustions != st.cards.exhaustions
        if isinstance(move, Place) and move.cards is not None and len(set(move.cards)) > 1 and not reshuffled:
            # (when the pile runs out during the refill, the discards -- laid down in this order -- are
            # shuffled into the new pile: a simulated shuffle, seeded, so the order then matters)
            alts.append(replace(move, cards=move.cards[::-1]))
        if isinstance(move, Exchange) and st.cards is None:
            alts.append(Exchange(move.player, "red", "pile"))
        for alt in alts:
            checked += 1
            assert not GAME.violations(st, alt), f"{alt!r} (another spelling of {move!r}) is refused"
            assert strip(GAME.apply(st, alt)) == want, f"{alt!r} and {move!r} differ"
        if isinstance(move, Place) and st.cards is None:  # the cards named: checked, and then counted as checked
            colour = st.board.provinces[province_of(st, move.placements[0])].colour
            for cards in ((colour,) * len(move.placements), (colour,) * (len(move.placements) - 1) + ("yellow", "yellow")):
                alt = replace(move, cards=cards)
                checked += 1
                assert bool(GAME.violations(st, alt)) == (not pays(cards, colour, len(move.placements))), alt
                if pays(cards, colour, len(move.placements)):
                    assert strip(GAME.apply(st, alt)) == replace(want, unchecked_payments=want.unchecked_payments - 1)
    return checked


# -- playing and checking ---------------------------------------------------------------------------

def check_here(st: ChinaState, tally: Tally, rng: random.Random) -> list[Any]:
    cands = list(candidates(st, rng))
    for move in cands:
        refused = bool(GAME.violations(st, move))
        assert refused == must_refuse(st, move), \
            f"{move!r}: the engine {'refuses' if refused else 'accepts'} it, the rules say the opposite ({GAME.violations(st, move)})"
    legal = check_state(GAME, st, cands, tally)
    if st.finished is None:
        tally.candidates += spellings(st, legal, rng)
    return legal


def run(st: ChinaState, w: Witness, next_move, tally: Tally, rng: random.Random, sample: float) -> tuple[ChinaState, list[Any]]:
    moves: list[Any] = []
    while True:
        w.check(st)
        if st.finished is not None or rng.random() < sample:
            legal = check_here(st, tally, rng)
            if legal and st.finished is None and rng.random() < 0.3:  # one step off the main line
                move = rng.choice(legal)
                branch = replace(w)
                nxt = GAME.apply(st, move)
                branch.after(st, move, nxt)
                branch.check(nxt)
        if st.finished is not None:
            return st, moves
        move = next_move(st)
        prev, st = st, GAME.apply(st, move)
        moves.append(move)
        w.after(prev, move, st)
        assert len(moves) < 1000, "the game does not end"


def tracked_game(seed: int, players: int, variants: tuple[str, ...], tally: Tally, sample: float) -> list[Termination]:
    rng = random.Random(seed * 31 + players)
    setup: dict[str, Any] = {"players": list(COLOURS[:players]), "seed": seed, "cards": "tracked", "variants": list(variants)}
    st = GAME.setup(SetupOptions.from_json(setup))

    def next_move(s: ChinaState) -> Any:
        if rng.random() < 0.1:
            return rng.choice(list(GAME.legal_moves(s)))
        return random_move(s, rng)

    final, moves = run(st, Witness(players, True), next_move, tally, rng, sample)
    tally.games += 1
    check_record_round_trip(GAME, setup, moves, final)
    # the same game at a real table: cards unknown, the pile's end declared after its turn
    table_setup = {"players": setup["players"], "variants": list(variants)}
    table_moves: list[Any] = []
    replayed = GAME.setup(SetupOptions.from_json(setup))
    for move in moves:
        before = replayed.cards.exhaustions
        replayed = GAME.apply(replayed, move)
        if isinstance(move, Place):
            table_moves.append(Place(move.player, move.placements, move.cards))
        else:
            table_moves.append(type(move)(move.player))
        if before < 2 <= replayed.cards.exhaustions:
            table_moves.append(DeclarePileExhausted())
    queue = iter(table_moves)

    def recorded(s: ChinaState) -> Any:
        move = next(queue, None)
        assert move is not None, "the table record is over, the game is not"
        return move

    table, played = run(GAME.setup(SetupOptions.from_json(table_setup)), Witness(players, False), recorded, tally, rng, sample / 2)
    tally.games += 1
    assert played == table_moves
    assert table.finished == final.finished and GAME.score(table).players == GAME.score(final).players, "the table record scores otherwise"
    check_record_round_trip(GAME, table_setup, table_moves, table)
    return [final.finished, table.finished]


def untracked_game(seed: int, players: int, variants: tuple[str, ...], tally: Tally, sample: float) -> Termination:
    """Random placements (now and then paid with named cards), exchanges, declared passes, and the
    pile's end declared at a random moment or never."""
    rng = random.Random(seed * 17 + players)
    setup: dict[str, Any] = {"players": list(COLOURS[:players]), "variants": list(variants)}
    st = GAME.setup(SetupOptions.from_json(setup))
    declare_at = rng.choice([None, None, rng.randrange(0, 90)])
    count = [0]

    def next_move(s: ChinaState) -> Any:
        count[0] += 1
        player = s.players[s.active]
        if declare_at is not None and count[0] > declare_at and not s.end_triggered:
            return DeclarePileExhausted()
        roll = rng.random()
        if roll < 0.06:
            return Exchange(player)
        if roll < 0.08:
            return Pass(player)
        for _ in range(60):
            prov = rng.randrange(len(s.board.provinces))
            opts = one_piece_options(s, prov)
            pls = tuple(rng.choice(opts) for _ in range(rng.choice((1, 2))))
            if rng.random() < 0.3:
                colour = s.board.provinces[prov].colour
                move = Place(player, pls, (colour,) * len(pls))
            else:
                move = Place(player, pls)
            if not GAME.violations(s, move):
                return move
        return Exchange(player)

    final, moves = run(st, Witness(players, False), next_move, tally, rng, sample)
    tally.games += 1
    check_record_round_trip(GAME, setup, moves, final)
    return final.finished


def test_china_checks_itself(long_run: bool) -> None:
    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    base = 0 if ci else random.randrange(1_000_000)
    count, sample = (1200, 0.1) if long_run else (3, 0.06)
    tally = Tally()
    endings: dict[str, int] = {}
    per_players = {3: 0, 4: 0, 5: 0}
    t0 = time.perf_counter()
    for k in range(count):
        seed, players, variants = base + k, 3 + k % 3, VARIANT_SETS[(k // 3) % len(VARIANT_SETS)]
        try:
            ends = tracked_game(seed, players, variants, tally, sample) + [untracked_game(seed, players, variants, tally, sample)]
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}, {players} players, variants {variants}: {exc}") from exc
        for why in ends:
            endings[why.value] = endings.get(why.value, 0) + 1
        per_players[players] += 1
    seconds = time.perf_counter() - t0
    print()
    print(tally.line("china", seconds), f"(seeds {base}..{base + count - 1}; tracked games, their table records and untracked games; "
                                          f"players {per_players}; endings {endings})")
    assert len(tally.rule_ids) >= 15, sorted(tally.rule_ids)


# -- disagreements the checks found (regression tests) ---------------------------------------------------

def test_untracked_pass_and_pile_declaration_are_offered_by_legal_moves() -> None:
    """At a real table a declared pass and the declaration that the pile ran out cannot be checked
    and are accepted, so they are legal moves; ``legal_moves`` offered neither."""
    st = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"]}))
    legal = list(GAME.legal_moves(st))
    assert not GAME.violations(st, Pass("blue")) and Pass("blue") in legal
    assert not GAME.violations(st, DeclarePileExhausted()) and DeclarePileExhausted() in legal
    declared = GAME.apply(st, DeclarePileExhausted())
    assert DeclarePileExhausted() not in set(GAME.legal_moves(declared)) and GAME.violations(declared, DeclarePileExhausted())
    # the exchange stays the first move the sensors cannot see ("turn done" on an unchanged table)
    from scorer.referee.reconciler import invisible_move

    assert invisible_move(GAME, st) == Exchange("blue")


def test_tracked_legal_moves_offer_placements_and_a_pass_needs_nothing_payable() -> None:
    """With tracked cards ``legal_moves`` judged placements without their cards, which the rules
    refuse (``cards.required``): it offered no placement at all, only exchanges, and a pass was
    accepted whenever no card could be taken, even with a hand that pays for a piece."""
    st = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"], "seed": 1, "cards": "tracked"}))
    places = [m for m in GAME.legal_moves(st) if isinstance(m, Place)]
    assert places and not any(GAME.violations(st, m) for m in places)
    assert all(m.cards is not None and m.draws is not None for m in places)
    # nothing to take any more, but violet + a red pair pays for two pieces in Chu (violet)
    hands = (("red", "red", "violet"),) + st.cards.hands[1:]
    dry = replace(st, cards=replace(st.cards, pile=(), display=(None,) * 4, hands=hands))
    assert [v.rule for v in GAME.violations(dry, Pass("blue"))] == ["pass.not_allowed"]
    chu = Place("blue", (Placement(HOUSE, "chu-1"),), ("violet",), ())
    assert not GAME.violations(dry, chu) and chu in set(GAME.legal_moves(dry))
