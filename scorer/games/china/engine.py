"""The China rules engine: ``scorer.core.Game`` for Der Kaiser von China (rules/china.md), all but
``explain`` (the reading of sensed boards, added in ``game.py``)."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations, product
from typing import Any, Iterator, Mapping

from scorer.core.game import Game, SetupOptions, TurnInfo
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Termination, Unchecked, winners_from
from scorer.core.types import Board, Message, Piece, SpaceId, Violation, player_label
from scorer.games.china import cards as cardlib
from scorer.games.china import moves as mv
from scorer.games.china import rules, scoring
from scorer.games.china.board import ChinaBoard
from scorer.games.china.moves import EMISSARY, FORTRESS, HOUSE, ChinaMove, DeclarePileExhausted, Exchange, Pass, Place, Placement
from scorer.games.china.setup import initial_state, setup_schema
from scorer.games.china.state import CATEGORIES, ChinaState, Effect, evolve

NEUTRAL_FORTRESS = Piece("neutral", FORTRESS)
LAP = 50  # the score track: a point card per lap (display only)


class ChinaEngine(Game[ChinaState, ChinaMove]):
    """China's rules; ``explain`` stays abstract here (``ChinaGame`` in game.py adds it)."""

    id = "china"
    name = Message.t('china.engine.der_kaiser_von_china_china')
    min_players = 3
    max_players = 5

    # -- set-up -----------------------------------------------------------------------------
    def setup(self, options: SetupOptions) -> ChinaState:
        return initial_state(options, self.min_players, self.max_players)

    def turn(self, state: ChinaState) -> TurnInfo:
        if state.finished is not None:
            return TurnInfo((), phase="over", round=None, awaiting="none")
        player = state.players[state.active]
        return TurnInfo(
            (player,),
            phase="last_round" if state.end_triggered else "play",
            round=state.turn_number // state.n + 1,
            awaiting="move",
        )

    # -- legality and effects ---------------------------------------------------------------
    def violations(self, state: ChinaState, move: ChinaMove) -> tuple[Violation, ...]:
        return rules.violations(state, move)

    def apply_unchecked(self, state: ChinaState, move: ChinaMove) -> ChinaState:
        if isinstance(move, Place):
            return self._place(state, move)
        if isinstance(move, Exchange):
            return self._exchange(state, move)
        if isinstance(move, DeclarePileExhausted):
            return self._declare_end(state)
        if isinstance(move, Pass):
            return self._end_turn(state, effects=())
        raise TypeError(f"not a China move: {move!r}")

    def _place(self, state: ChinaState, move: Place) -> ChinaState:
        board, p = state.board, state.active
        owner = list(state.site_owner)
        fort = state.site_fortress
        emiss = state.emissaries
        scored = state.scored
        points = state.points
        houses_left, emissaries_left, forts_left = state.houses_left, state.emissaries_left, state.fortresses_left
        effects: list[Effect] = []
        for pl in move.placements:
            if pl.kind == HOUSE:
                s = board.site_index[pl.space]
                owner[s] = p
                houses_left = _dec(houses_left, p)
                prov = board.site_province[s]
                if not scored[prov] and all(owner[x] >= 0 for x in board.province_sites[prov]):
                    pts = _province_points(board, owner, fort, prov, state.n)
                    points = tuple((row[0] + pts[i], row[1], row[2]) for i, row in enumerate(points))
                    scored = scored[:prov] + (True,) + scored[prov + 1 :]
                    name = board.provinces[prov].label
                    effects.append(Effect("province_scored", Message.t('china.engine.is_full_and_scores_its', name=name), tuple(pts), prov))
            elif pl.kind == FORTRESS:
                s = board.site_index[pl.space]
                fort = fort[:s] + (True,) + fort[s + 1 :]
                forts_left = _dec(forts_left, p)
            else:
                prov = board.dragon_index[pl.space]
                row = emiss[prov]
                emiss = emiss[:prov] + (row[:p] + (row[p] + 1,) + row[p + 1 :],) + emiss[prov + 1 :]
                emissaries_left = _dec(emissaries_left, p)
        cs = state.cards
        if state.rules.track_cards and cs is not None and move.cards is not None and move.draws is not None:
            cs, _ = cardlib.play_and_draw(cs, p, move.cards, move.draws)
        return self._end_turn(
            state,
            site_owner=tuple(owner),
            site_fortress=fort,
            emissaries=emiss,
            scored=scored,
            houses_left=houses_left,
            emissaries_left=emissaries_left,
            fortresses_left=forts_left,
            points=points,
            cards=cs,
            unchecked_payments=state.unchecked_payments + (move.cards is None),
            effects=tuple(effects),
        )

    def _exchange(self, state: ChinaState, move: Exchange) -> ChinaState:
        cs = state.cards
        if state.rules.track_cards and cs is not None and move.discard is not None and move.take is not None:
            cs, _ = cardlib.exchange(cs, state.active, move.discard, move.take)
        return self._end_turn(state, cards=cs, effects=())

    def _declare_end(self, state: ChinaState) -> ChinaState:
        new = replace(state, end_triggered=True, declared_end=True, effects=())
        if (state.active - 1) % state.n == state.n - 1 and state.turn_number > 0:
            return self._finish(new, Termination.DECK_EXHAUSTED)
        return new

    def _end_turn(self, state: ChinaState, **changes: Any) -> ChinaState:
        """Apply the turn's changes and pass the turn on; then check both endings."""
        mover = state.active
        cards_ = changes.get("cards", state.cards)
        triggered = state.end_triggered or (cards_ is not None and cards_.exhaustions >= 2)
        state = evolve(state, active=(mover + 1) % state.n, turn_number=state.turn_number + 1, end_triggered=triggered, **changes)
        if triggered and mover == state.n - 1:
            return self._finish(state, Termination.DECK_EXHAUSTED)
        if not can_anyone_place(state):
            return self._finish(state, Termination.NO_LEGAL_PLACEMENT)
        return state

    def _finish(self, state: ChinaState, why: Termination) -> ChinaState:
        final = final_scoring(state)
        points = tuple(
            (state.points[i][0] + final["provinces"][i], final["alliances"][i], final["roads"][i]) for i in range(state.n)
        )
        text = {
            Termination.DECK_EXHAUSTED: Message.t('china.engine.the_draw_pile_ran_out.2'),
            Termination.NO_LEGAL_PLACEMENT: Message.t('china.engine.no_player_can_place_a'),
        }[why]
        effects = state.effects + (Effect("game_over", text), Effect("final_scoring", Message.t('china.engine.final_scoring')))
        return replace(
            state,
            points=points,  # type: ignore[arg-type]
            finished=why,
            road_disputes=final["disputes"],
            road_uncompared=final["uncompared"],
            effects=effects,
        )

    # -- enumerating moves ------------------------------------------------------------------
    def legal_moves(self, state: ChinaState) -> Iterator[ChinaMove]:
        """Every legal move; with tracked cards each payment and refill choice is a separate move.

        Untracked cards: a placement without its cards (the cards are optional information), the
        exchange, the declared pass and, until the end is triggered, the declaration that the pile
        ran out (none of them can be checked, so all are legal); the exchange comes first among the
        moves the sensors cannot see (``invisible_move`` takes it for a "turn done")."""
        if state.finished is not None:
            return
        player = state.players[state.active]
        for placements, colour in placement_options(state):
            if not state.rules.track_cards:
                yield Place(player, placements)
                continue
            assert state.cards is not None
            hand = state.cards.hands[state.active]
            for cards_ in payment_options(hand, colour, len(placements)):
                for draws in draw_options(state, cards_):
                    yield Place(player, placements, cards_, draws)
        if state.rules.track_cards and state.cards is not None:
            hand = state.cards.hands[state.active]
            sources = ["pile"] if state.cards.pile else []
            sources += [f"display:{i}" for i, c in enumerate(state.cards.display) if c is not None]
            for discard in sorted(set(hand)):
                for take in sources:
                    yield Exchange(player, discard, take)
            if not self.violations(state, Pass(player)):
                yield Pass(player)
        else:
            yield Exchange(player)
            yield Pass(player)
            if not state.end_triggered:
                yield DeclarePileExhausted()

    # -- results -------------------------------------------------------------------------------
    def score(self, state: ChinaState) -> Scoreboard:
        players = tuple(
            PlayerScore(
                player=pl,
                total=sum(state.points[i]),
                breakdown=tuple(zip(CATEGORIES, state.points[i])),
                tiebreak=(state.supply_left(i),),
                laps=sum(state.points[i]) // LAP,
            )
            for i, pl in enumerate(state.players)
        )
        return Scoreboard(
            game=self.id,
            players=players,
            final=state.finished is not None,
            not_checked=unchecked(state),
            declared=("end of game (pile exhausted, declared)",) if state.declared_end else (),
            provisional_data=state.board.provisional,
            categories=CATEGORIES,
        )

    def outcome(self, state: ChinaState) -> Outcome | None:
        if state.finished is None:
            return None
        winners, by_tiebreak = winners_from(self.score(state))
        if len(winners) > 1:
            reason = Message.t('china.engine.shared_victory_equal_points_and')
        elif by_tiebreak:
            reason = Message.t('china.engine.won_on_the_tie_break')
        else:
            reason = Message.t('china.engine.most_points')
        return Outcome(state.finished, winners, reason, by_tiebreak)

    # -- sensors ---------------------------------------------------------------------------
    def visible_board(self, state: ChinaState) -> Board:
        board = state.board
        cells: dict[str, dict[Piece, int]] = {}
        for s, o in enumerate(state.site_owner):
            if o >= 0 or state.site_fortress[s]:
                c = cells.setdefault(board.sites[s], {})
                if o >= 0:
                    c[Piece(state.players[o], HOUSE)] = 1
                if state.site_fortress[s]:
                    c[NEUTRAL_FORTRESS] = 1
        for pi, counts in enumerate(state.emissaries):
            for i, k in enumerate(counts):
                if k:
                    cells.setdefault(board.provinces[pi].dragon, {})[Piece(state.players[i], EMISSARY)] = k
        return Board.from_counts(cells)

    # -- records ---------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> ChinaMove:
        return mv.move_from_json(data)

    def move_to_json(self, move: ChinaMove) -> dict[str, Any]:
        return mv.move_to_json(move)

    def move_schema(self) -> Mapping[str, Any]:
        return mv.MOVE_SCHEMA

    def setup_schema(self) -> Mapping[str, Any]:
        return setup_schema()

    def describe_move(self, move: ChinaMove) -> Message:
        if isinstance(move, Place):
            text: Message | str = ""
            for i, pl in enumerate(move.placements):
                one = Message.t("china.engine.placement", kind=rules.kind_label(pl.kind), space=pl.space)
                text = one if i == 0 else Message.t("china.engine.placements", a=text, b=one)
            return Message.t('china.engine.text', p=player_label(move.player), text=text)
        if isinstance(move, Exchange):
            return Message.t('china.engine.exchanges_a_card', p=player_label(move.player))
        if isinstance(move, Pass):
            return Message.t('china.engine.passes_no_possible_action', p=player_label(move.player))
        return Message.t('china.engine.the_draw_pile_ran_out')

    def state_to_json(self, state: ChinaState) -> dict[str, Any]:
        board = state.board
        return {
            "board": board.id,
            "provisional_board": board.provisional,
            "players": list(state.players),
            "active": state.players[state.active] if state.finished is None else None,
            "turn_number": state.turn_number,
            "end_triggered": state.end_triggered,
            "provinces": [
                {
                    "id": p.id,
                    "name": p.label.to_json(),
                    "colour": p.colour,
                    "scored": state.scored[i],
                    "houses": dict(zip(state.players, state.houses_in(i))),
                    "emissaries": dict(zip(state.players, state.emissaries[i])),
                    "emissary_cap": max(state.houses_in(i)),
                }
                for i, p in enumerate(board.provinces)
            ],
            "supply": {
                pl: {"house": state.houses_left[i], "emissary": state.emissaries_left[i], "fortress": state.fortresses_left[i]}
                for i, pl in enumerate(state.players)
            },
            "pile": len(state.cards.pile) if state.cards else None,
            "effects": [{"kind": e.kind, "message": e.message.to_json(), "points": list(e.points)} for e in state.effects],
        }


# -- helpers shared with explain/simulate -----------------------------------------------------

def _dec(values: tuple[int, ...], i: int) -> tuple[int, ...]:
    return values[:i] + (values[i] - 1,) + values[i + 1 :]


def _province_points(board: ChinaBoard, owner: list[int] | tuple[int, ...], fort: list[bool] | tuple[bool, ...], prov: int, n: int) -> list[int]:
    counts = [0] * n
    on_fortress = [False] * n
    for s in board.province_sites[prov]:
        o = owner[s]
        if o >= 0:
            counts[o] += 1
            if fort[s]:
                on_fortress[o] = True
    return scoring.province_points(counts, on_fortress)


def final_scoring(state: ChinaState) -> dict[str, Any]:
    """Unscored provinces, alliances 1-15, roads (4.6): per-player lists plus road notes."""
    board, n = state.board, state.n
    provinces = [0] * n
    for prov in range(len(board.provinces)):
        if not state.scored[prov]:
            for i, v in enumerate(_province_points(board, state.site_owner, state.site_fortress, prov, n)):
                provinces[i] += v
    alliances = scoring.alliance_points(board.alliances, state.emissaries, n)
    roads = [0] * n
    disputes, uncompared = [], []
    doubled = [state.site_fortress[s] for s in range(len(board.sites))]
    for i, pl in enumerate(state.players):
        owned = [s for s, o in enumerate(state.site_owner) if o == i]
        res = scoring.road_points(owned, board.neighbours, doubled)
        roads[i] = res.points
        if res.split_disputed:
            disputes.append((pl, res.points, res.exhaustive_points))
        if not res.compared:
            uncompared.append(pl)
    return {"provinces": provinces, "alliances": alliances, "roads": roads, "disputes": tuple(disputes), "uncompared": tuple(uncompared)}


def unchecked(state: ChinaState) -> tuple[Unchecked, ...]:
    out = []
    if state.unchecked_payments:
        out.append(Unchecked("cards.payment", Message.t('china.engine.cards_were_not_declared_for', unchecked_payments=state.unchecked_payments)))
    if not state.rules.track_cards:
        out.append(Unchecked("cards.hands", Message.t('china.engine.hands_and_the_draw_pile')))
    if state.board.provisional:
        out.append(Unchecked("board.provisional", Message.t('china.engine.board_is_provisional_alliance_and', id=state.board.id)))
    if state.road_disputes:
        parts = [Message.t("china.engine.road_dispute", player=player_label(pl), greedy=greedy, best=best) for pl, greedy, best in state.road_disputes]
        disputes = parts[0]
        for part in parts[1:]:
            disputes = Message.t("list.semicolon", a=disputes, b=part)
        out.append(Unchecked("roads.split", Message.t("china.engine.road_split_disputed", disputes=disputes)))
    if state.road_uncompared:
        out.append(Unchecked("roads.split_compare", Message.t("china.engine.road_split_uncompared",
                                                              players=tuple(player_label(p) for p in state.road_uncompared))))
    return tuple(out)


def can_anyone_place(state: ChinaState) -> bool:
    """True while some player could still legally place some piece (ambiguity 12)."""
    board = state.board
    free_site = any(o < 0 for o in state.site_owner)
    if free_site and any(h > 0 for h in state.houses_left):
        return True
    if any(state.emissaries_left):
        for prov in range(len(board.provinces)):
            if sum(state.emissaries[prov]) < max(state.houses_in(prov)):
                return True
    if any(state.fortresses_left):
        if any(o < 0 and not f for o, f in zip(state.site_owner, state.site_fortress)):
            return True
    return False


def placement_options(state: ChinaState) -> Iterator[tuple[tuple[Placement, ...], str]]:
    """Legal piece placements of the active player (cards aside), with the province colour.

    Judged by the rules of the pieces alone: with tracked cards a placement without its cards is
    refused (``cards.required``), which once hid every placement from ``legal_moves`` and the pass check."""
    board = state.board
    p = state.active
    kinds = [k for k, left in ((HOUSE, state.houses_left[p]), (EMISSARY, state.emissaries_left[p]), (FORTRESS, state.fortresses_left[p])) if left > 0]
    for prov, province in enumerate(board.provinces):
        spaces: list[Placement] = []
        free = [board.sites[s] for s in board.province_sites[prov] if state.site_owner[s] < 0]
        if HOUSE in kinds:
            spaces += [Placement(HOUSE, SpaceId(s)) for s in free]
        if FORTRESS in kinds and state.rules.fortress:
            spaces += [Placement(FORTRESS, SpaceId(s)) for s in free if not state.site_fortress[board.site_index[s]]]
        if EMISSARY in kinds:
            spaces.append(Placement(EMISSARY, SpaceId(province.dragon)))
        seen: set[tuple[Placement, ...]] = set()
        for one in spaces:
            cand = (one,)
            if cand not in seen and not rules.placement_violations(state, Place(state.players[p], cand)):
                seen.add(cand)
                yield cand, province.colour
        for a, b in product(spaces, repeat=2):
            cand = (a, b)
            if cand in seen:
                continue
            if a.kind == b.kind and a.kind != EMISSARY and b.space <= a.space:
                continue  # same kind on two sites: one order is enough
            if not rules.placement_violations(state, Place(state.players[p], cand)):
                seen.add(cand)
                yield cand, province.colour


def payment_options(hand: tuple[str, ...], colour: str, pieces: int) -> list[tuple[str, ...]]:
    out = set()
    for k in range(1, min(3, len(hand)) + 1):
        for combo in combinations(hand, k):
            if cardlib.payment_ok(combo, colour, pieces):
                out.add(tuple(sorted(combo)))
    return sorted(out)


def draw_options(state: ChinaState, played: tuple[str, ...]) -> list[tuple[str, ...]]:
    assert state.cards is not None
    need = len(played)
    sources = ["pile"] + [f"display:{i}" for i in range(len(state.cards.display))]
    out = []
    for k in range(need, -1, -1):
        for combo in product(sources, repeat=k):
            if len(set(c for c in combo if c != "pile")) != sum(1 for c in combo if c != "pile"):
                continue
            _, why = cardlib.play_and_draw(state.cards, state.active, played, combo)
            if not why:
                out.append(combo)
        if out:
            break
    return out
