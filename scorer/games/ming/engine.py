"""The Ming engine: ``scorer.core.Game`` for Ming Dynasty / Ming-Dynastie (rules/ming.md).

``apply_unchecked`` first makes the move's own change (``effect``), then runs the table forward by
itself (``advance``): the next player, the next phase, automatic passes, the majorities of the
scoring phase, forced returns, city and cloister points, the end of the game. It stops whenever
the rules wait for a person: a move, secret return cards, a choice of pieces, a start player.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import Any, Iterator, Mapping, Sequence

from scorer.core.game import Explanation, Game, SetupOptions, TurnInfo, check_players_and_variants
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Termination, Unchecked, winners_from
from scorer.core.types import Board, InvalidRecord, Message, Piece, player_label
from scorer.games.ming import moves as mv
from scorer.games.ming import rules, scoring
from scorer.games.ming.board import (
    TILES_PER_COLOUR,
    MingBoard,
    city_space,
    cloister_space,
    load_board,
    province_space,
)
from scorer.games.ming.moves import (
    FAMILY,
    NEUTRAL,
    PRINCE,
    ChooseStartPlayer,
    MingMove,
    MovePrince,
    Pass,
    PlaceFamily,
    PlaceNeutral,
    PlacePrince,
    ReturnCards,
    SendBack,
    Stay,
    TakeCard,
    TakeDragon,
)
from scorer.games.ming.state import (
    CAT_BONUS,
    CAT_CITY,
    CAT_CLOISTERS,
    CAT_SETS5,
    CAT_SETS6,
    CAT_TILES,
    CATEGORIES,
    EMPTY,
    FAMILY_PER_ROUND,
    HAND_LIMIT,
    MAX_DEPLOY,
    PH_CARDS,
    PH_MOVE,
    PH_NEUTRAL,
    PH_OVER,
    PH_PRINCES,
    PH_ROUND_END,
    PH_SCORING,
    PH_SPACES,
    PLAYER_COLOURS,
    ROUNDS,
    SCORING_ROUNDS,
    ST_COMMIT,
    ST_NEUTRAL,
    ST_NEUTRAL_FIRST,
    ST_SEND_BACK,
    SUPPLY_START,
    UNKNOWN,
    Effect,
    Hand,
    MingRules,
    MingState,
    Scoring,
    evolve,
)

CAT_INDEX = {c: i for i, c in enumerate(CATEGORIES)}


class MingGame(Game[MingState, MingMove]):
    id = "ming"
    name = Message.t('ming.engine.ming_dynasty_ming_dynastie')
    min_players = 2
    max_players = 4

    # -- set-up -----------------------------------------------------------------------------
    def setup(self, options: SetupOptions) -> MingState:
        players = check_players_and_variants(
            options, label="Ming Dynasty", min_players=self.min_players, max_players=self.max_players,
            colours=tuple(PLAYER_COLOURS), colour_noun="Ming player colour", variants=tuple(MingRules.VARIANTS),
        )
        board = options.board if isinstance(options.board, MingBoard) else load_board(options.board)
        mode = options.get("cards", "declared")
        if mode not in ("declared", "required"):
            raise InvalidRecord("cards must be 'declared' or 'required'", where="setup.cards")
        values = options.get("return_cards")
        values_provisional = values is None and bool(board.source.get("return_cards", {}).get("provisional", False))
        values = tuple(int(v) for v in (values if values is not None else board.return_values))
        if len(values) != 4 or any(v < 0 for v in values):
            raise InvalidRecord("return_cards lists the 4 return-card values of a player", where="setup.return_cards")
        per = options.get("neutral_per_player", 3)
        if not isinstance(per, int) or not 0 <= per <= 9:
            raise InvalidRecord("neutral_per_player must be an integer from 0 to 9", where="setup.neutral_per_player")
        start_name = options.get("start_player", players[0])
        if start_name not in players:
            raise InvalidRecord(f"start_player {start_name!r} is not one of the players", where="setup.start_player")
        variants = set(options.variants)
        rules_ = MingRules(
            return_values=values,
            cards_required=mode == "required",
            dragon_any_member="dragon_any_member" in variants,
            strict_return_total="strict_return_total" in variants,
            bonus_tiebreak_fullest_area="bonus_tiebreak_fullest_area" in variants,
            neutral_before_returns="neutral_before_returns" in variants,
            bonus_ignores_neutral="bonus_ignores_neutral" in variants,
            neutral_in_blocks="neutral_in_blocks" in variants,
            no_revisit="no_revisit" in variants,
            tiebreak_monks="tiebreak_monks" in variants,
            tiles_in_turn_order="tiles_in_turn_order" in variants,
            neutral_per_player=per,
            return_values_provisional=values_provisional,
        )
        n = len(players)
        kinds = len(board.kinds)
        display = _parse_display(board, options.get("display"))
        if mode == "required" and UNKNOWN in display:
            raise InvalidRecord("cards 'required' needs the initial display (6 symbols)", where="setup.display")
        start = players.index(start_name)
        dragon_lb = tuple(1 if k == board.dragon_kind else 0 for k in range(kinds))
        state = MingState(
            board=board,
            players=players,
            rules=rules_,
            round=0,
            phase=PH_PRINCES,
            start=start,
            active=start,
            supply=(SUPPLY_START,) * n,
            in_hand=(0,) * n,
            spaces=((0,) * n,) * len(board.provinces),
            open=((0,) * (n + 1),) * len(board.districts),
            cloister=(EMPTY,) * len(board.districts),
            city=((0,) * (n + 1),) * len(board.districts),
            princes=(EMPTY,) * n,
            hands=(Hand(1, dragon_lb),) * n,
            display=display,
            tiles=((0,) * len(board.provinces),) * n,
            tile_supply=(TILES_PER_COLOUR,) * len(board.provinces),
            points=((0,) * len(CATEGORIES),) * n,
            boxed=(0,) * (n + 1),
            passed=(False,) * n,
        )
        return state

    def turn(self, state: MingState) -> TurnInfo:
        phase, rnd = state.phase, state.round
        if state.finished:
            return TurnInfo((), phase=PH_OVER, round=rnd, awaiting="none")
        if phase == PH_SCORING and state.scoring is not None:
            sc = state.scoring
            prov = state.board.provinces[sc.province]
            if sc.stage == ST_COMMIT:
                waiting = tuple(state.players[p] for p in sc.committers if sc.commits[p] < 0)
                return TurnInfo(waiting, phase=phase, round=rnd, awaiting="return_cards", prompt=Message.t('ming.engine.scoring_everybody_with_family_members', prov=prov.name))
            who = state.players[sc.chooser]
            return TurnInfo((who,), phase=phase, round=rnd, awaiting="send_back", prompt=Message.t(
                "ming.engine.scoring_chooses_send_back", province=prov.name, who=player_label(who)))
        if phase == PH_ROUND_END:
            who = state.players[state.chooser]
            return TurnInfo((who,), phase=phase, round=rnd, awaiting="start_player", prompt=Message.t(
                "ming.engine.chooses_start_player", who=player_label(who), round=rnd + 1))
        awaiting = "card" if phase == PH_CARDS else "move"
        return TurnInfo((state.players[state.active],), phase=phase, round=rnd, awaiting=awaiting)

    # -- legality and effects ---------------------------------------------------------------
    def violations(self, state: MingState, move: MingMove) -> tuple:
        return rules.violations(state, move)

    def apply_unchecked(self, state: MingState, move: MingMove) -> MingState:
        return advance(effect(evolve(state, effects=()), move), move)

    # -- enumerating moves ------------------------------------------------------------------
    def legal_moves(self, state: MingState) -> Iterator[MingMove]:
        """Every legal move of the player(s) to act, in every form a record may give it: cards,
        refills and return cards declared or not (``ReturnCards``, ``SendBack`` and ``TakeDragon``
        normalise themselves, so each move has one value)."""
        if state.phase == PH_MOVE and not state.finished:
            yield from _legal_prince_turns(state)
            return
        for move in _candidates(state):
            if not rules.violations(state, move):
                yield move

    # -- results -----------------------------------------------------------------------------
    def score(self, state: MingState) -> Scoreboard:
        players = []
        for i, pl in enumerate(state.players):
            total = sum(state.points[i])
            players.append(PlayerScore(
                player=pl,
                total=total,
                breakdown=tuple(zip(CATEGORIES, state.points[i])),
                tiebreak=(state.monks(i),) if state.rules.tiebreak_monks else (),
                laps=total // state.board.score_track,
            ))
        declared = []
        if state.declared_returns:
            declared.append(f"city, city_bonus: rest on {state.declared_returns} secret return-card declaration(s) (which family members stayed in the cities)")
        if state.declared_choices:
            declared.append(f"start player of rounds 5-6: {state.declared_choices} declared choice(s)")
        return Scoreboard(
            game=self.id,
            players=tuple(players),
            final=state.finished,
            not_checked=unchecked(state),
            declared=tuple(declared),
            provisional_data=state.board.provisional or state.rules.return_values_provisional,
            categories=CATEGORIES,
        )

    def outcome(self, state: MingState) -> Outcome | None:
        if not state.finished:
            return None
        winners, by_tiebreak = winners_from(self.score(state))
        if len(winners) > 1:
            reason = Message.t('ming.engine.shared_victory_equal_points_the')
        elif by_tiebreak:
            reason = Message.t('ming.engine.won_on_the_tie_break')
        else:
            reason = Message.t('ming.engine.most_points_after_the_round')
        return Outcome(Termination.ROUNDS_COMPLETE, winners, reason, by_tiebreak and len(winners) == 1)

    # -- sensors -------------------------------------------------------------------------------
    def visible_board(self, state: MingState) -> Board:
        return visible_board(state)

    def explain(self, state: MingState, sensed: Board) -> tuple[Explanation[MingMove], ...]:
        from scorer.games.ming.explain import explain

        return explain(self, state, sensed)

    # -- records ---------------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> MingMove:
        return mv.move_from_json(data)

    def move_to_json(self, move: MingMove) -> dict[str, Any]:
        return mv.move_to_json(move)

    def move_schema(self) -> Mapping[str, Any]:
        return mv.MOVE_SCHEMA

    def setup_schema(self) -> Mapping[str, Any]:
        return SETUP_SCHEMA

    def describe_move(self, move: MingMove) -> Message:
        return describe(move)

    def state_to_json(self, state: MingState) -> dict[str, Any]:
        return state_json(state)


SETUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["players"],
    "additionalProperties": False,
    "properties": {
        "players": {"type": "array", "minItems": 2, "maxItems": 4, "uniqueItems": True, "items": {"enum": list(PLAYER_COLOURS)},
                    "description": "player colours in clockwise seating order"},
        "start_player": {"enum": list(PLAYER_COLOURS), "description": "default: the first player"},
        "board": {"type": "string", "description": "shipped board id (ming-provisional) or a board file path"},
        "variants": {"type": "array", "items": {"enum": list(MingRules.VARIANTS)}, "uniqueItems": True},
        "seed": {"type": "integer"},
        "cards": {"enum": ["declared", "required"],
                  "description": "declared (default): card identities are checked when declared; required: every card taken and played must be declared"},
        "display": {"type": "array", "minItems": 6, "maxItems": 6, "items": {"type": ["string", "null"]},
                    "description": "the 6 display cards dealt at set-up, in province order (null = not declared)"},
        "return_cards": {"type": "array", "minItems": 4, "maxItems": 4, "items": {"type": "integer", "minimum": 0, "maximum": 6},
                         "description": "the values of one player's 4 return cards (default from the board file: 0,1,2,3, ambiguity A1)"},
        "neutral_per_player": {"type": "integer", "minimum": 0, "maximum": 9, "description": "2 players: neutral family members each player places (A10, default 3)"},
    },
}


def _parse_display(board: MingBoard, data: Any) -> tuple[int, ...]:
    if data is None:
        return (UNKNOWN,) * len(board.provinces)
    out = []
    for i, s in enumerate(data):
        if s is None:
            out.append(UNKNOWN)
            continue
        k = board.symbol_index.get(s)
        if k is None:
            raise InvalidRecord(f"{s!r} is not a transport symbol ({', '.join(board.symbols)})", where=f"setup.display[{i}]")
        out.append(k)
    for k, n in enumerate(board.deck):
        if out.count(k) > n:
            raise InvalidRecord(f"the display shows more {board.symbols[k]} cards than exist ({n})", where="setup.display")
    return tuple(out)


# -- the move's own change ---------------------------------------------------------------------------

def _set(t: tuple, i: int, v: Any) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


def _add2(t: tuple[tuple[int, ...], ...], i: int, j: int, k: int) -> tuple[tuple[int, ...], ...]:
    row = t[i]
    return t[:i] + (row[:j] + (row[j] + k,) + row[j + 1:],) + t[i + 1:]


def _gain_tiles(state: MingState, p: int, province: int, k: int) -> MingState:
    """Take up to k tiles of a province colour (as many as the supply holds, A13)."""
    k = min(k, state.tile_supply[province])
    if k <= 0:
        return state
    return evolve(state, tiles=_add2(state.tiles, p, province, k), tile_supply=_set(state.tile_supply, province, state.tile_supply[province] - k))


def _add_points(state: MingState, p: int, category: str, k: int) -> MingState:
    if not k:
        return state
    return evolve(state, points=_add2(state.points, p, CAT_INDEX[category], k))


def play_unknown(hand: Hand, k: int, dragon: int) -> Hand:
    """k cards left the hand and nobody said which: keep only what is still certain."""
    lb = tuple(max(0, x - k) for x in hand.lb)
    total = hand.total - k
    may = (hand.may_dragon or lb[dragon] < hand.lb[dragon]) and total > sum(lb)
    return Hand(total, lb, may)


def _pay(state: MingState, p: int, cards: tuple[str, ...] | None, steps: int) -> MingState:
    board = state.board
    if cards is None:
        hand = play_unknown(state.hands[p], steps, board.dragon_kind)
        return evolve(state, hands=_set(state.hands, p, hand), undeclared_payments=state.undeclared_payments + 1)
    hand, why, unverified = rules._pay(state, p, cards)
    assert hand is not None and not why
    if hand.unknown == 0 and hand.may_dragon:
        hand = Hand(hand.total, hand.lb, False)
    return evolve(state, hands=_set(state.hands, p, hand), unverified_cards=state.unverified_cards + unverified)


def _deploy(state: MingState, p: int, district: int, deploy: int, cloister: bool) -> MingState:
    if deploy <= 0:
        return state
    board = state.board
    prov = board.district_province[district]
    spaces = _add2(state.spaces, prov, p, -deploy)
    opened = _add2(state.open, district, p, deploy)
    cl = state.cloister
    effects = state.effects
    if cloister:
        opened = _add2(opened, district, p, -1)
        ousted = cl[district]
        if ousted != EMPTY:
            opened = _add2(opened, district, ousted, 1)
            effects += (Effect("ousted", Message.t('ming.engine.s_family_member_is_ousted', text=player_label(state.players[ousted]),
                                                   district=board.districts[district])),)
        cl = _set(cl, district, p)
    return evolve(state, spaces=spaces, open=opened, cloister=cl, effects=effects)


def effect(state: MingState, move: MingMove) -> MingState:
    """The change the move itself makes on the table (no automatic follow-ups)."""
    board = state.board
    p = state.player_index(move.player)
    if isinstance(move, PlacePrince):
        d = board.district_index[move.district]
        state = evolve(state, princes=_set(state.princes, p, d))
        return _gain_tiles(state, p, board.district_province[d], 1)
    if isinstance(move, PlaceNeutral):
        d = board.district_index[move.district]
        return evolve(state, open=_add2(state.open, d, state.neutral, 1), queue=state.queue[1:])
    if isinstance(move, PlaceFamily):
        i = board.province_index[move.province]
        return evolve(state, in_hand=_set(state.in_hand, p, state.in_hand[p] - 1), spaces=_add2(state.spaces, i, p, 1))
    if isinstance(move, TakeCard):
        i = board.province_index[move.province]
        taken = board.symbol_index[move.symbol] if move.symbol is not None else state.display[i]
        hand = state.hands[p]
        lb = hand.lb if taken == UNKNOWN else _set(hand.lb, taken, hand.lb[taken] + 1)
        refill = board.symbol_index[move.refill] if move.refill is not None else UNKNOWN
        return evolve(state, hands=_set(state.hands, p, Hand(hand.total + 1, lb, hand.may_dragon)), display=_set(state.display, i, refill))
    if isinstance(move, TakeDragon):
        i = board.province_index[move.province]
        owner = p if move.owner is None else state.player_index(move.owner)
        hand = state.hands[p]
        dk = board.dragon_kind
        return replace(
            state,
            spaces=_add2(state.spaces, i, owner, -1),
            boxed=_set(state.boxed, owner, state.boxed[owner] + 1),
            hands=_set(state.hands, p, Hand(hand.total + 1, _set(hand.lb, dk, hand.lb[dk] + 1), hand.may_dragon)),
        )
    if isinstance(move, MovePrince):
        end = board.district_index[move.path[-1]]
        state = _pay(state, p, move.cards, len(move.path))
        state = evolve(state, princes=_set(state.princes, p, end))
        return _deploy(state, p, end, move.deploy, move.cloister)
    if isinstance(move, Stay):
        state = _pay(state, p, (move.card,) if move.card is not None else None, 1)
        return _deploy(state, p, state.princes[p], move.deploy, move.cloister)
    if isinstance(move, Pass):
        return evolve(state, passed=_set(state.passed, p, True))
    if isinstance(move, ReturnCards):
        sc = state.scoring
        assert sc is not None
        total = sum(move.cards) if move.cards is not None else int(move.total)  # type: ignore[arg-type]
        return evolve(state, scoring=replace(sc, commits=_set(sc.commits, p, total)), declared_returns=state.declared_returns + 1)
    if isinstance(move, SendBack):
        sc = state.scoring
        assert sc is not None
        owner = state.neutral if move.owner == NEUTRAL else p
        for name in move.districts:
            state = _return_one(state, board.district_index[name], owner)
        return evolve(state, scoring=replace(sc, to_send=_set(sc.to_send, owner, 0)))
    if isinstance(move, ChooseStartPlayer):
        return evolve(state, start=state.player_index(move.start), chooser=EMPTY, declared_choices=state.declared_choices + 1)
    raise TypeError(f"not a Ming move: {move!r}")


def _return_one(state: MingState, district: int, owner: int) -> MingState:
    return evolve(state, city=_add2(state.city, district, owner, -1), open=_add2(state.open, district, owner, 1))


# -- running the table forward ----------------------------------------------------------------------

def advance(state: MingState, move: MingMove) -> MingState:
    if isinstance(move, PlacePrince):
        if all(d != EMPTY for d in state.princes):
            return _setup_done(state)
        return evolve(state, active=(state.active + 1) % state.n)
    if isinstance(move, PlaceNeutral):
        if state.queue:
            return evolve(state, active=state.queue[0])
        return _enter_round(state, 1) if state.round == 0 else _enter_spaces(state)
    if isinstance(move, PlaceFamily):
        nxt = _next(state, state.active + 1, lambda q: state.in_hand[q] > 0)
        return evolve(state, active=nxt) if nxt is not None else _enter_cards(state)
    if isinstance(move, (TakeCard, TakeDragon)):
        nxt = _next(state, state.active + 1, lambda q: can_take_card(state, q))
        return evolve(state, active=nxt) if nxt is not None else _enter_move(state)
    if isinstance(move, (MovePrince, Stay, Pass)):
        return _next_mover(state, state.active + 1)
    if isinstance(move, (ReturnCards, SendBack)):
        return _continue_scoring(state)
    if isinstance(move, ChooseStartPlayer):
        return _enter_round(state, state.round + 1)
    raise TypeError(f"not a Ming move: {move!r}")


def _next(state: MingState, first: int, ok) -> int | None:
    """The first player from ``first`` on (clockwise, wrapping) for whom ``ok`` holds."""
    for k in range(state.n):
        q = (first + k) % state.n
        if ok(q):
            return q
    return None


def _setup_done(state: MingState) -> MingState:
    state = _effect_msg(state, "setup", Message.t("ming.engine.setup_done"))
    if state.two_player and state.rules.neutral_per_player > 0:
        return _enter_neutral(state)
    return _enter_round(state, 1)


def _neutral_queue(state: MingState) -> tuple[int, ...]:
    per = state.rules.neutral_per_player
    order = [(state.start + k) % state.n for k in range(state.n)]
    if state.rules.neutral_in_blocks:
        return tuple(p for p in order for _ in range(per))
    return tuple(p for _ in range(per) for p in order)


def _enter_neutral(state: MingState) -> MingState:
    queue = _neutral_queue(state)
    return evolve(state, phase=PH_NEUTRAL, queue=queue, active=queue[0])


def _enter_round(state: MingState, r: int) -> MingState:
    state = evolve(state, round=r)
    state = _effect_msg(state, "round_start", Message.t("ming.engine.round_start", round=r, who=player_label(state.players[state.start])))
    if state.two_player and r in (3, 5) and state.rules.neutral_per_player > 0:
        return _enter_neutral(state)
    return _enter_spaces(state)


def _enter_spaces(state: MingState) -> MingState:
    take = tuple(min(FAMILY_PER_ROUND, s) for s in state.supply)
    state = evolve(
        state,
        phase=PH_SPACES,
        supply=tuple(s - t for s, t in zip(state.supply, take)),
        in_hand=tuple(h + t for h, t in zip(state.in_hand, take)),
        queue=(),
    )
    nxt = _next(state, state.start, lambda q: state.in_hand[q] > 0)
    return evolve(state, active=nxt) if nxt is not None else _enter_cards(state)


def can_take_card(state: MingState, p: int) -> bool:
    """Phase 2: must p take a card now? (fewer than 5 cards and a way to pay; ambiguity A4)."""
    if state.hands[p].total >= HAND_LIMIT:
        return False
    if state.on_spaces(p) > 0:
        return True  # the display card next to that space (the display is always refilled)
    if state.rules.dragon_any_member and state.dragon_supply()[1] > 0:
        return any(sum(row) > 0 for row in state.spaces)
    return False


def _enter_cards(state: MingState) -> MingState:
    state = evolve(state, phase=PH_CARDS)
    nxt = _next(state, state.start, lambda q: can_take_card(state, q))
    return evolve(state, active=nxt) if nxt is not None else _enter_move(state)


def _enter_move(state: MingState) -> MingState:
    state = evolve(state, phase=PH_MOVE, passed=(False,) * state.n)
    return _next_mover(state, state.start)


def _next_mover(state: MingState, first: int) -> MingState:
    """Strict rotation skipping passed players (A19); a player without cards passes by force."""
    passed = list(state.passed)
    for k in range(state.n):
        q = (first + k) % state.n
        if passed[q]:
            continue
        if state.hands[q].total == 0:
            passed[q] = True
            state = _effect_msg(state, "auto_pass", Message.t("ming.engine.auto_pass", who=player_label(state.players[q])))
            continue
        return evolve(state, passed=tuple(passed), active=q)
    state = evolve(state, passed=tuple(passed))
    if state.round in SCORING_ROUNDS:
        return _enter_scoring(state, 0)
    return _round_end(state)


def _round_end(state: MingState) -> MingState:
    r = state.round
    if state.n == 4 and r in (4, 5):
        chooser = start_player_chooser(state)
        state = _effect_msg(state, "start_choice", Message.t("ming.engine.chooses_start_player", who=player_label(state.players[chooser]),
                                                             round=r + 1))
        return evolve(state, phase=PH_ROUND_END, chooser=chooser, active=chooser)
    state = evolve(state, start=(state.start + 1) % state.n)
    return _enter_round(state, r + 1)


def start_player_chooser(state: MingState) -> int:
    """4 players: second-fewest points after round 4, fewest after round 5; ties to the most monks,
    then to the first of them clockwise from the current start player (A11)."""
    totals = [sum(state.points[i]) for i in range(state.n)]
    position = 1 if state.round == 4 else 0
    value = sorted(totals)[position]
    tied = [i for i in range(state.n) if totals[i] == value]
    if len(tied) > 1:
        most = max(state.monks(i) for i in tied)
        tied = [i for i in tied if state.monks(i) == most]
    order = [(state.start + k) % state.n for k in range(state.n)]
    return min(tied, key=order.index)


def _effect_msg(state: MingState, kind: str, message: Message, points: tuple[int, ...] = ()) -> MingState:
    return evolve(state, effects=state.effects + (Effect(kind, message, points),))


# -- phase 4 --------------------------------------------------------------------------------------

def _check_sets(state: MingState, p: int) -> MingState:
    """Forced and immediate (A14): every complete set of 6 colours goes back and scores."""
    k = scoring.six_sets(state.tiles[p])
    if k <= 0:
        return state
    value = scoring.SET6_POINTS[state.round] * k
    tiles = tuple(t - k for t in state.tiles[p])
    state = evolve(state, tiles=_set(state.tiles, p, tiles), tile_supply=tuple(s + k for s in state.tile_supply))
    state = _add_points(state, p, CAT_SETS6, value)
    return _effect_msg(state, "set6", Message.t("ming.engine.set6", who=player_label(state.players[p]), k=k, value=value))


def tile_order(state: MingState, counts: Sequence[int]) -> list[int]:
    """Who takes province tiles first when a district's members move into the city (A13).

    Recommended: the player with the most members in the district first, then the second (the
    seed's 4.1 moves them in that order); players with equal counts clockwise from the start
    player. Variant ``tiles_in_turn_order``: clockwise from the start player. It matters only when
    the colour's supply runs short."""
    order = [(state.start + k) % state.n for k in range(state.n)]
    if state.rules.tiles_in_turn_order:
        return order
    return sorted(order, key=lambda p: -counts[p])


def _majorities(state: MingState, prov: int) -> MingState:
    board = state.board
    for d in board.province_districts[prov]:
        counts = state.open[d]
        moved = scoring.district_majority(counts)
        if not any(moved):
            continue
        order = tile_order(state, counts)
        opened, city = state.open, state.city
        for o, k in enumerate(moved):
            if k:
                opened = _add2(opened, d, o, -k)
                city = _add2(city, d, o, k)
        state = evolve(state, open=opened, city=city)
        parts = tuple(Message.t("ming.engine.majority.part", who=_owner(state, o), k=k) for o, k in enumerate(moved) if k)
        state = _effect_msg(state, "majority", Message.t("ming.engine.majority", district=board.districts[d], parts=parts),
                            tuple(moved[:state.n]))
        for p in order:
            short = 0
            for _ in range(moved[p]):  # one tile per member moved, a completed set at once (A13, A14)
                short += state.tile_supply[prov] == 0
                state = _gain_tiles(state, p, prov, 1)
                state = _check_sets(state, p)
            if short:
                short_of = Message.t("ming.engine.tiles_short", who=player_label(state.players[p]), short=short,
                                     colour=board.provinces[prov].name)
                state = _effect_msg(state, "tiles_short", short_of)
    return state


def _owner(state: MingState, o: int) -> Message:
    return player_label(NEUTRAL if o == state.neutral else state.players[o])


def _enter_scoring(state: MingState, prov: int) -> MingState:
    name = state.board.provinces[prov].name
    state = evolve(state, phase=PH_SCORING)
    state = _effect_msg(state, "scoring", Message.t("ming.engine.scoring", province=name))
    state = _majorities(state, prov)
    n = state.n
    stage = ST_NEUTRAL_FIRST if state.two_player and state.rules.neutral_before_returns else ST_COMMIT
    state = evolve(state, scoring=Scoring(prov, stage, (), (-1,) * n, (0,) * (n + 1)))
    if stage == ST_COMMIT:
        state = _open_commits(state)
    return _continue_scoring(state)


def _open_commits(state: MingState) -> MingState:
    sc = state.scoring
    assert sc is not None
    city = state.city_in_province(sc.province)
    committers = tuple(p for p in range(state.n) if city[p] > 0)
    return evolve(state, scoring=replace(sc, stage=ST_COMMIT, committers=committers, commits=(-1,) * state.n))


def _areas(state: MingState, prov: int, owner: int) -> list[int]:
    return [d for d in state.board.province_districts[prov] if state.city[d][owner] > 0]


def _continue_scoring(state: MingState) -> MingState:
    while True:
        sc = state.scoring
        assert sc is not None
        prov = sc.province
        if sc.stage == ST_NEUTRAL_FIRST or sc.stage == ST_NEUTRAL:
            state, waiting = _neutral_step(state)
            if waiting:
                return state
            if sc.stage == ST_NEUTRAL_FIRST:
                state = _open_commits(state)
                continue
            return _score_city(state)
        if sc.stage == ST_COMMIT:
            if any(sc.commits[p] < 0 for p in sc.committers):
                return state
            city = state.city_in_province(prov)
            to_send = tuple(min(sc.commits[p], city[p]) if p in sc.committers else 0 for p in range(state.n)) + (0,)
            if sc.committers:
                reveals = tuple(Message.t("ming.engine.player_number", who=player_label(state.players[p]), n=sc.commits[p])
                                for p in sc.committers)
                state = _effect_msg(state, "reveal", Message.t("ming.engine.reveal", reveals=reveals))
            state = evolve(state, scoring=replace(sc, stage=ST_SEND_BACK, to_send=to_send, chooser=EMPTY))
            continue
        if sc.stage == ST_SEND_BACK:
            order = [(state.start + k) % state.n for k in range(state.n)]
            waiting_for = None
            for p in order:
                k = state.scoring.to_send[p]  # type: ignore[union-attr]
                if k <= 0:
                    continue
                areas = _areas(state, prov, p)
                have = sum(state.city[d][p] for d in areas)
                if k >= have or len(areas) == 1:
                    state = _auto_return(state, prov, p, k)
                    continue
                waiting_for = p
                break
            if waiting_for is not None:
                return evolve(state, scoring=replace(state.scoring, chooser=waiting_for), active=waiting_for)  # type: ignore[arg-type]
            if state.two_player and not state.rules.neutral_before_returns:
                state = evolve(state, scoring=replace(state.scoring, stage=ST_NEUTRAL, chooser=EMPTY))  # type: ignore[arg-type]
                continue
            return _score_city(state)
        raise AssertionError(f"unknown scoring stage {sc.stage}")


def _auto_return(state: MingState, prov: int, owner: int, k: int) -> MingState:
    """Send k city pieces back where there is no choice (all of them, or all in one area)."""
    sent = 0
    for d in state.board.province_districts[prov]:
        while sent < k and state.city[d][owner] > 0:
            state = _return_one(state, d, owner)
            sent += 1
    sc = state.scoring
    assert sc is not None
    state = _effect_msg(state, "returned", Message.t("ming.engine.returned", who=_owner(state, owner), n=sent))
    return evolve(state, scoring=replace(sc, to_send=_set(sc.to_send, owner, 0)))


def _neutral_step(state: MingState) -> tuple[MingState, bool]:
    """2 players: trim neutral to the smallest sole majority, or send all of it back (A8)."""
    sc = state.scoring
    assert sc is not None
    prov = sc.province
    city = state.city_in_province(prov)
    neutral = city[state.neutral]
    keep = scoring.neutral_keep(neutral, city[: state.n])
    excess = neutral - keep
    if excess <= 0:
        return state, False
    areas = _areas(state, prov, state.neutral)
    if keep == 0 or len(areas) == 1:
        return _auto_return(state, prov, state.neutral, excess), False
    state = evolve(state, scoring=replace(sc, to_send=_set(sc.to_send, state.neutral, excess), chooser=state.start), active=state.start)
    return state, True


def _score_city(state: MingState) -> MingState:
    board = state.board
    sc = state.scoring
    assert sc is not None
    prov = sc.province
    n = state.n
    districts = board.province_districts[prov]
    city = state.city_in_province(prov)
    per = scoring.CITY_POINTS[state.round]
    for p in range(n):
        state = _add_points(state, p, CAT_CITY, per * city[p])
    real = city[:n]
    neutral_sole = state.two_player and city[state.neutral] > max(real, default=0)
    bonus = [0] * n
    if not neutral_sole or state.rules.bonus_ignores_neutral:
        if state.rules.bonus_tiebreak_fullest_area:
            fullest = max(sum(state.city[d]) for d in districts)
            areas = [d for d in districts if sum(state.city[d]) == fullest]
        else:
            areas = list(districts)
        key = [max(state.city[d][p] for d in areas) for p in range(n)]
        bonus = scoring.city_bonus(real, key)
        for p in range(n):
            state = _add_points(state, p, CAT_BONUS, bonus[p])
    name = board.provinces[prov].name
    pts = tuple(per * city[p] + bonus[p] for p in range(n))
    points = tuple(Message.t("ming.engine.player_number", who=player_label(state.players[p]), n=pts[p]) for p in range(n))
    state = _effect_msg(state, "city_points", Message.t("ming.engine.city_points", province=name, points=points), pts)
    # everybody left in the city goes to the box
    boxed = tuple(b + c for b, c in zip(state.boxed, city))
    cleared = state.city
    for d in districts:
        cleared = _set(cleared, d, (0,) * (n + 1))
    state = evolve(state, city=cleared, boxed=boxed)
    if prov + 1 < len(board.provinces):
        return _enter_scoring(evolve(state, scoring=None), prov + 1)
    return _finish_scoring(evolve(state, scoring=None))


def _finish_scoring(state: MingState) -> MingState:
    pts = [0] * state.n
    for o in state.cloister:
        if 0 <= o < state.n:
            pts[o] += scoring.CLOISTER_POINTS
    for p, k in enumerate(pts):
        state = _add_points(state, p, CAT_CLOISTERS, k)
    state = _effect_msg(state, "cloisters", Message.t("ming.engine.cloisters", points=scoring.CLOISTER_POINTS), tuple(pts))
    if state.round < ROUNDS:
        return _round_end(state)
    return _finish(state)


def _finish(state: MingState) -> MingState:
    figures = final_scoring(state)
    final = []
    for p in range(state.n):
        state = _add_points(state, p, CAT_SETS5, figures[CAT_SETS5][p])
        state = _add_points(state, p, CAT_TILES, figures[CAT_TILES][p])
        final.append(figures[CAT_SETS5][p] + figures[CAT_TILES][p])
    state = _effect_msg(state, "final_tiles", Message.t("ming.engine.final_tiles"), tuple(final))
    state = _effect_msg(state, "game_over", Message.t("ming.engine.game_over"))
    return evolve(state, phase=PH_OVER, finished=True, active=EMPTY)


def final_scoring(state: MingState) -> dict[str, list[int]]:
    """The end-of-game tile scoring (after the round-6 scoring): sets of 5 colours and single tiles,
    per player, from the tiles held. ``_finish`` books exactly these figures."""
    sets, tiles_ = [], []
    for p in range(state.n):
        _, set_pts, tile_pts = scoring.final_tile_points(state.tiles[p])
        sets.append(set_pts)
        tiles_.append(tile_pts)
    return {CAT_SETS5: sets, CAT_TILES: tiles_}


# -- sensors --------------------------------------------------------------------------------------

def visible_board(state: MingState) -> Board:
    board = state.board
    names = state.players + (NEUTRAL,)
    cells: dict[str, dict[Piece, int]] = {}
    for d, name in enumerate(board.districts):
        for o, k in enumerate(state.open[d]):
            if k:
                cells.setdefault(name, {})[Piece(names[o], FAMILY)] = k
        if state.cloister[d] != EMPTY:
            cells[cloister_space(name)] = {Piece(names[state.cloister[d]], FAMILY): 1}
        for o, k in enumerate(state.city[d]):
            if k:
                cells.setdefault(city_space(name), {})[Piece(names[o], FAMILY)] = k
    for i, prov in enumerate(board.provinces):
        for p, k in enumerate(state.spaces[i]):
            if k:
                cells.setdefault(province_space(prov.id), {})[Piece(names[p], FAMILY)] = k
    for p, d in enumerate(state.princes):
        if d != EMPTY:
            cells.setdefault(board.districts[d], {})[Piece(names[p], PRINCE)] = 1
    return Board.from_counts(cells)


# -- candidate moves (legal_moves filters them) ----------------------------------------------------

def _candidates(state: MingState) -> Iterator[MingMove]:
    if state.finished:
        return
    board = state.board
    phase = state.phase
    if phase == PH_SCORING and state.scoring is not None:
        sc = state.scoring
        if sc.stage == ST_COMMIT:
            for p in sc.committers:
                if sc.commits[p] >= 0:
                    continue
                seen = set()
                for k in range(1, len(state.rules.return_values) + 1):
                    for combo in combinations(state.rules.return_values, k):
                        c = tuple(sorted(combo))
                        if c not in seen:
                            seen.add(c)
                            yield ReturnCards(state.players[p], c)
                for total in sorted(scoring.achievable_totals(state.rules.return_values)):  # declared as a total
                    yield ReturnCards(state.players[p], total=total)
            return
        owner = state.neutral if sc.stage in (ST_NEUTRAL, ST_NEUTRAL_FIRST) else sc.chooser
        pieces = [board.districts[d] for d in board.province_districts[sc.province] for _ in range(state.city[d][owner])]
        player = state.players[sc.chooser]
        for combo in sorted(set(combinations(pieces, sc.to_send[owner]))):
            yield SendBack(player, combo, NEUTRAL if owner == state.neutral else None)
        return
    if phase == PH_ROUND_END:
        for q in state.players:
            yield ChooseStartPlayer(state.players[state.chooser], q)
        return
    player = state.players[state.active]
    p = state.active
    if phase == PH_PRINCES:
        for d in board.districts:
            yield PlacePrince(player, d)
    elif phase == PH_NEUTRAL:
        for d in board.districts:
            yield PlaceNeutral(player, d)
    elif phase == PH_SPACES:
        for prov in board.provinces:
            yield PlaceFamily(player, prov.id)
    elif phase == PH_CARDS:
        refills: list[str | None] = [None, *board.symbols]
        for i, prov in enumerate(board.provinces):
            # the card taken and the refill, each declared or not (a known display card need not be named)
            shown = [board.symbols[state.display[i]], None] if state.display[i] != UNKNOWN else [None, *board.symbols]
            for symbol in shown:
                for r in refills:
                    yield TakeCard(player, prov.id, symbol, r)
            owners = [None] + ([q for q in state.players if q != player] if state.rules.dragon_any_member else [])
            for o in owners:
                yield TakeDragon(player, prov.id, o)
    # phase 3 (move and deploy): _legal_prince_turns


def _legal_prince_turns(state: MingState) -> Iterator[MingMove]:
    """Phase 3: like ``_candidates`` then ``violations``, but a move or stay that is illegal
    without deploying is not tried again with each deployment (the deployment is checked last)."""
    p = state.active
    player = state.players[p]
    if not rules.violations(state, Pass(player)):
        yield Pass(player)
    turns: list[MovePrince | Stay] = [Stay(player, card) for card in _stay_cards(state, p)]
    for base in turns:
        if rules.violations(state, base):
            continue
        for deploy, cloister in _deploy_options():
            move = replace(base, deploy=deploy, cloister=cloister)
            if not deploy and not cloister or not rules.violations(state, move):
                yield move
    for path in _paths(state, p):
        for cards in _payments(state, p, path):
            base = MovePrince(player, path, cards)
            if rules.violations(state, base):
                continue
            for deploy, cloister in _deploy_options():
                move = replace(base, deploy=deploy, cloister=cloister)
                if not deploy and not cloister or not rules.violations(state, move):
                    yield move


def _deploy_options() -> list[tuple[int, bool]]:
    return [(0, False)] + [(k, c) for k in range(1, MAX_DEPLOY + 1) for c in (False, True)]


def _stay_cards(state: MingState, p: int) -> list[str | None]:
    """The card discarded: any the hand may hold (declared), or undeclared."""
    hand = state.hands[p]
    if not hand.exact:
        return [None, *state.board.kinds]
    return [state.board.kinds[k] for k, c in enumerate(hand.lb) if c > 0] + [None]


def _paths(state: MingState, p: int) -> Iterator[tuple[str, ...]]:
    board = state.board
    limit = state.hands[p].total
    start = state.princes[p]

    def walk(at: int, path: list[int]) -> Iterator[tuple[str, ...]]:
        if path:
            yield tuple(board.districts[d] for d in path)
        if len(path) >= limit:
            return
        for nb in board.neighbours[at]:
            path.append(nb)
            yield from walk(nb, path)
            path.pop()

    yield from walk(start, [])


def _payments(state: MingState, p: int, path: tuple[str, ...]) -> Iterator[tuple[str, ...] | None]:
    """Undeclared, and every declared payment the hand may hold: a card of a kind the hand surely
    holds, else one from its undeclared part (a dragon only if that part may hold one)."""
    board = state.board
    hand = state.hands[p]
    if not hand.exact:
        yield None
    steps = [board.district_index[d] for d in path]
    prev = [state.princes[p]] + steps[:-1]
    options = [sorted(board.border_symbols[(a, b)]) + [board.dragon_kind] for a, b in zip(prev, steps)]
    have = list(hand.lb)
    dragon = board.dragon_kind

    def rec(i: int, chosen: list[int], free: int) -> Iterator[tuple[str, ...]]:
        if i == len(options):
            yield tuple(board.kinds[k] for k in chosen)
            return
        for k in options[i]:
            chosen.append(k)
            if have[k] > 0:
                have[k] -= 1
                yield from rec(i + 1, chosen, free)
                have[k] += 1
            elif free > 0 and (k != dragon or hand.may_dragon):
                yield from rec(i + 1, chosen, free - 1)
            chosen.pop()

    yield from rec(0, [], hand.unknown)
    if hand.exact:
        yield None


# -- reporting --------------------------------------------------------------------------------------

def unchecked(state: MingState) -> tuple[Unchecked, ...]:
    out = []
    if state.undeclared_payments:
        out.append(Unchecked("cards.payment", Message.t('ming.engine.cards_were_not_declared_for', undeclared_payments=state.undeclared_payments)))
    if state.unverified_cards:
        out.append(Unchecked("cards.identity", Message.t('ming.engine.declared_card_s_came_from', unverified_cards=state.unverified_cards)))
    unknown_hands = [state.players[p] for p, h in enumerate(state.hands) if h.unknown]
    if unknown_hands:
        players = tuple(player_label(h) for h in unknown_hands)
        out.append(Unchecked("cards.hands", Message.t("ming.engine.hands_partly_known", players=players)))
    lo, hi = state.dragon_supply()
    if lo != hi:
        out.append(Unchecked("dragon.supply", Message.t('ming.engine.the_dragon_supply_holds_between', lo=lo, hi=hi)))
    if state.board.provisional:
        out.append(Unchecked("board.provisional", Message.t('ming.engine.board_is_provisional_borders_and', id=state.board.id)))
    if state.rules.return_values_provisional:
        out.append(Unchecked("returns.values", Message.t('ming.engine.return_card_values_0_1')))
    return tuple(out)


def describe(move: MingMove) -> Message:
    who = player_label(move.player)
    if isinstance(move, PlacePrince):
        return Message.t('ming.engine.prince_into', text=who, district=move.district)
    if isinstance(move, PlaceNeutral):
        return Message.t('ming.engine.neutral_family_member_into', text=who, district=move.district)
    if isinstance(move, PlaceFamily):
        return Message.t('ming.engine.family_member_onto', text=who, province=province_space(move.province))
    if isinstance(move, TakeCard):
        if move.symbol is None:
            return Message.t("ming.engine.takes_card.undeclared", who=who, province=move.province)
        return Message.t("ming.engine.takes_card", who=who, symbol=move.symbol, province=move.province)
    if isinstance(move, TakeDragon):
        return Message.t('ming.engine.takes_a_dragon_card_a', text=who, province=province_space(move.province))
    if isinstance(move, MovePrince):
        return Message.t("ming.engine.prince_moves", who=who, path=" > ".join(move.path), deploys=_deploys(move.deploy, move.cloister))
    if isinstance(move, Stay):
        return Message.t("ming.engine.prince_stays", who=who, deploys=_deploys(move.deploy, move.cloister))
    if isinstance(move, Pass):
        return Message.t('ming.engine.passes', text=who)
    if isinstance(move, ReturnCards):
        return Message.t('ming.engine.puts_down_return_cards_secret', text=who)
    if isinstance(move, SendBack):
        key = "ming.engine.sends_back.neutral" if move.owner == NEUTRAL else "ming.engine.sends_back"
        return Message.t(key, who=who, n=len(move.districts))
    if isinstance(move, ChooseStartPlayer):
        return Message.t('ming.engine.chooses_as_start_player', text=who, s=player_label(move.start))
    return Message(repr(move), repr(move))


def _deploys(deploy: int, cloister: bool) -> Message | str:
    """The deployment part of a prince's move ("" when nobody is deployed)."""
    if not deploy:
        return ""
    return Message.t("ming.engine.deploys.cloister" if cloister else "ming.engine.deploys", n=deploy)


def state_json(state: MingState) -> dict[str, Any]:
    board = state.board
    names = state.players + (NEUTRAL,)
    info = {
        "board": board.id,
        "provisional_board": board.provisional,
        "players": list(state.players),
        "round": state.round,
        "phase": state.phase,
        "start_player": state.players[state.start],
        "active": state.players[state.active] if 0 <= state.active < state.n and not state.finished else None,
        "princes": {state.players[p]: (board.districts[d] if d != EMPTY else None) for p, d in enumerate(state.princes)},
        "supply": dict(zip(state.players, state.supply)),
        # hands are secret at the table: only their size is shown
        "hand_sizes": {pl: h.total for pl, h in zip(state.players, state.hands)},
        "display": {prov.id: (board.symbols[s] if s != UNKNOWN else None) for prov, s in zip(board.provinces, state.display)},
        "dragon_supply": list(state.dragon_supply()),
        "tiles": {pl: dict(zip((p.colour for p in board.provinces), t)) for pl, t in zip(state.players, state.tiles)},
        "tile_supply": dict(zip((p.colour for p in board.provinces), state.tile_supply)),
        "districts": {
            name: {
                "open": {names[o]: k for o, k in enumerate(state.open[d]) if k},
                "cloister": names[state.cloister[d]] if state.cloister[d] != EMPTY else None,
                "city": {names[o]: k for o, k in enumerate(state.city[d]) if k},
            }
            for d, name in enumerate(board.districts)
        },
        "province_spaces": {prov.id: {names[p]: k for p, k in enumerate(state.spaces[i]) if k} for i, prov in enumerate(board.provinces)},
        "effects": [{"kind": e.kind, "message": e.message.to_json(), "points": list(e.points)} for e in state.effects],
    }
    if state.scoring is not None:
        sc = state.scoring
        info["scoring"] = {
            "province": board.provinces[sc.province].id,
            "stage": sc.stage,
            # secret until every committer has committed
            "committed": [state.players[p] for p in sc.committers if sc.commits[p] >= 0],
            "waiting": [state.players[p] for p in sc.committers if sc.commits[p] < 0],
        }
    return info


GAME = MingGame()

__all__ = ["GAME", "MingGame", "final_scoring", "visible_board", "effect", "advance", "can_take_card", "start_player_chooser"]
