"""The Great Wall rules engine: ``scorer.core.Game`` for The Great Wall of China
(rules/great-wall.md), all but ``explain`` (the reading of sensed boards, added in ``game.py``).

Moves are single actions; everything else happens by itself inside ``apply_unchecked`` (the
working copy in ``flow.py``): the mandatory progress check at the start of every turn (claims,
section clearing and refill), the end of a turn after two actions, the last round and its final
checks, and the immediate end when the last token is taken.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any, Iterator, Mapping

from scorer.core.game import Game, SetupOptions, TurnInfo
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Unchecked, winners_from
from scorer.core.types import Board, Message, Piece, or_list, player_label
from scorer.games.great_wall import moves as mv
from scorer.games.great_wall import rules
from scorer.games.great_wall.data import DRAGON, KIND_INDEX, KINDS
from scorer.games.great_wall.flow import _Work
from scorer.games.great_wall.moves import CardRef, Claim, Draw, GreatWallMove, Pass, Play, Reveal, section_space
from scorer.games.great_wall.setup import initial_state, setup_schema
from scorer.games.great_wall.state import CAT_FIRST, CAT_SECOND, CATEGORIES, GreatWallState, Section
from scorer.games.great_wall.values import progress


def token_kind(value: int) -> str:
    return f"token-{value}"


class GreatWallEngine(Game[GreatWallState, GreatWallMove]):
    """The Great Wall's rules; ``explain`` stays abstract here (``GreatWallGame`` in game.py adds it)."""

    id = "great_wall"
    name = Message.t('great_wall.engine.the_great_wall_of_china')
    min_players = 2
    max_players = 5

    # -- set-up -----------------------------------------------------------------------------
    def setup(self, options: SetupOptions) -> GreatWallState:
        return initial_state(options, self.min_players, self.max_players)

    def turn(self, state: GreatWallState) -> TurnInfo:
        if state.finished is not None:
            return TurnInfo((), phase="over", round=None, awaiting="none")
        rnd = state.turn_number // state.n + 1
        player = state.players[state.active]
        waiting = state.awaiting_reveal
        if waiting >= 0:
            sp = section_space(waiting)
            return TurnInfo((player,), phase="setup" if state.turn_number == 0 and state.checking and not any(s.cards for s in state.sections) else "check",
                            round=rnd, awaiting="token_reveal",
                            prompt=Message.t('great_wall.engine.reveal_2_tokens_from_the', sp=sp))
        phase = "final_checks" if state.in_final_checks else ("last_round" if state.last_round_by >= 0 else "play")
        if state.pending_claim >= 0:
            sp = section_space(state.pending_claim)
            values = or_list(str(v) for v in state.sections[state.pending_claim].tokens)
            return TurnInfo((player,), phase=phase, round=rnd, awaiting="claim_choice",
                            prompt=Message.t("great_wall.engine.leads_choose_a_token", p=player_label(player), sp=sp, values=values))
        return TurnInfo((player,), phase=phase, round=rnd, awaiting="move")

    # -- legality and effects ---------------------------------------------------------------
    def violations(self, state: GreatWallState, move: GreatWallMove) -> tuple:
        return rules.violations(state, move)

    def apply_unchecked(self, state: GreatWallState, move: GreatWallMove) -> GreatWallState:
        work = _Work(state)
        if isinstance(move, Play):
            work.play(move)
        elif isinstance(move, Draw):
            work.draw(move)
        elif isinstance(move, Pass):
            work.pass_()
        elif isinstance(move, Claim):
            work.claim(move)
        elif isinstance(move, Reveal):
            work.reveal(move)
        else:
            raise TypeError(f"not a Great Wall move: {move!r}")
        work.run()
        return work.freeze()

    # -- enumerating moves ------------------------------------------------------------------
    def legal_moves(self, state: GreatWallState) -> Iterator[GreatWallMove]:
        if state.finished is not None:
            return
        if state.awaiting_reveal >= 0:
            if state.rules.track_cards:
                return
            values = sorted(set(state.supply))
            need = min(2, len(state.supply))
            # every section waiting for tokens, in any order (set-up: all of them; a check may clear two)
            for s, sec in enumerate(state.sections):
                if not sec.awaiting_reveal:
                    continue
                for pair in combinations_with_replacement(values, need):
                    move = Reveal(section_space(s), pair)
                    if not rules.violations(state, move):
                        yield move
            return
        player = state.players[state.active]
        p = state.active
        if state.pending_claim >= 0:
            sec = state.sections[state.pending_claim]
            sp = section_space(state.pending_claim)
            for v in sorted(set(sec.tokens)):
                yield Claim(player, sp, v)
                for ref in own_card_refs(state, sec, p):
                    yield Claim(player, sp, v, ref)
            return
        if state.deck_sizes[p] > 0:
            yield Draw(player)
        for move in play_options(state):
            yield move
        passing = Pass(player)
        if not rules.violations(state, passing):
            yield passing
        yield from naming_claims(state)

    # -- results -------------------------------------------------------------------------------
    def score(self, state: GreatWallState) -> Scoreboard:
        final = final_scoring(state)
        players = tuple(
            PlayerScore(
                player=pl,
                total=final["total"][i],
                breakdown=((CAT_FIRST, final[CAT_FIRST][i]), (CAT_SECOND, final[CAT_SECOND][i])),
                tiebreak=(),
            )
            for i, pl in enumerate(state.players)
        )
        declared = []
        if not state.rules.track_cards:
            declared.append("draws: hand and deck sizes (and so the last-round trigger) follow the declared draw moves")
        if state.declared_passes:
            declared.append(f"passes: {state.declared_passes} action(s) passed on the player's declaration that nothing could be played")
        return Scoreboard(
            game=self.id,
            players=players,
            final=state.finished is not None,
            not_checked=unchecked(state),
            declared=tuple(declared),
            provisional_data=state.deck.provisional,
            categories=CATEGORIES,
        )

    def outcome(self, state: GreatWallState) -> Outcome | None:
        if state.finished is None:
            return None
        winners, _ = winners_from(self.score(state))
        if len(winners) > 1:
            reason = Message.t('great_wall.engine.shared_victory_equal_token_totals')
        else:
            reason = Message.t('great_wall.engine.highest_token_total')
        return Outcome(state.finished, winners, reason, False)

    # -- sensors ---------------------------------------------------------------------------
    def visible_board(self, state: GreatWallState) -> Board:
        """Cards and tokens per section. A covered card stays on the board under its dragon;
        a claimed token lies in its section as ``Piece(<player>, "token-<v>")``."""
        cells: dict[str, dict[Piece, int]] = {}
        for s, sec in enumerate(state.sections):
            c: dict[Piece, int] = {}
            for card in sec.cards:
                piece = Piece(state.players[card.owner], card.kind)
                c[piece] = c.get(piece, 0) + 1
            for v in sec.tokens:
                piece = Piece("neutral", token_kind(v))
                c[piece] = c.get(piece, 0) + 1
            if sec.claimed_owner >= 0:
                piece = Piece(state.players[sec.claimed_owner], token_kind(sec.claimed_value))
                c[piece] = c.get(piece, 0) + 1
            if c:
                cells[section_space(s)] = c
        return Board.from_counts(cells)

    # -- records ---------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> GreatWallMove:
        return mv.move_from_json(data)

    def move_to_json(self, move: GreatWallMove) -> dict[str, Any]:
        return mv.move_to_json(move)

    def move_schema(self) -> Mapping[str, Any]:
        return mv.MOVE_SCHEMA

    def setup_schema(self) -> Mapping[str, Any]:
        return setup_schema()

    def describe_move(self, move: GreatWallMove) -> Message:
        if isinstance(move, Play):
            extra = Message.t("great_wall.engine.free_cavalry_play") if move.free else ""
            return Message.t('great_wall.engine.plays_at', p=player_label(move.player), text=rules.cards_label(move.cards), section=move.section, extra_=extra)
        if isinstance(move, Draw):
            return Message.t('great_wall.engine.draws_a_card', p=player_label(move.player))
        if isinstance(move, Pass):
            return Message.t('great_wall.engine.passes_an_action_nothing_possible', p=player_label(move.player))
        if isinstance(move, Claim):
            p = player_label(move.player)
            if move.on is not None:
                return Message.t('great_wall.engine.claims_the_at_and_lays', p=p, token=move.token, section=move.section, w=rules.ref_label(move.on))
            return Message.t('great_wall.engine.claims_the_at', p=p, token=move.token, section=move.section)
        if isinstance(move, Reveal):
            return Message.t("great_wall.engine.tokens_revealed_at", tokens=tuple(str(v) for v in move.tokens), section=move.section)
        return Message.t("name.as_given", name=repr(move))

    def state_to_json(self, state: GreatWallState) -> dict[str, Any]:
        how = state.rules.valuation
        out_sections = []
        for s, sec in enumerate(state.sections):
            prog = progress(sec.cards, state.n, sec.claimed_owner, sec.claimed_value, how)
            out_sections.append({
                "id": section_space(s),
                "tokens": list(sec.tokens),
                "claimed": ({"player": state.players[sec.claimed_owner], "token": sec.claimed_value, "card": sec.claimed_card + 1}
                            if sec.claimed_owner >= 0 else None),
                "cards": [{"player": state.players[c.owner], "kind": c.kind, "covers": c.covers + 1 if c.covers >= 0 else None}
                          for c in sec.cards],
                "progress": dict(zip(state.players, prog)),
                "dead": sec.dead,
                "awaiting_reveal": sec.awaiting_reveal,
            })
        return {
            "players": list(state.players),
            "active": state.players[state.active] if state.finished is None else None,
            "turn_number": state.turn_number,
            "actions_done": state.actions_done,
            "free_cavalry_used": state.free_used,
            "last_round_by": state.players[state.last_round_by] if state.last_round_by >= 0 else None,
            "sections": out_sections,
            "supply_left": len(state.supply),
            "boxed": list(state.boxed),
            "hand_sizes": dict(zip(state.players, state.hand_sizes)),
            "deck_sizes": dict(zip(state.players, state.deck_sizes)),
            "tokens_on_cards_at_end": stranded_tokens(state) if state.finished is not None else None,
            "provisional_deck": state.deck.provisional,
            "effects": [{"kind": e.kind, "message": e.message.to_json(), "player": e.player,
                         "section": section_space(e.section) if e.section is not None else None, "tokens": list(e.tokens)}
                        for e in state.effects],
        }


# -- helpers shared with explain/simulate/tests ---------------------------------------------------

def final_scoring(state: GreatWallState) -> dict[str, list[int]]:
    """Per-player token totals (4 'Scoring'): face-down tokens only; tokens on cards count for nobody."""
    first = [sum(t) for t in state.first_tokens]
    second = [sum(t) for t in state.second_tokens]
    return {CAT_FIRST: first, CAT_SECOND: second, "total": [a + b for a, b in zip(first, second)]}


def stranded_tokens(state: GreatWallState) -> dict[str, int]:
    """First tokens still lying on cards (at the end they count for nobody)."""
    out: dict[str, int] = {}
    for sec in state.sections:
        if sec.claimed_owner >= 0:
            pl = state.players[sec.claimed_owner]
            out[pl] = out.get(pl, 0) + sec.claimed_value
    return out


def unchecked(state: GreatWallState) -> tuple[Unchecked, ...]:
    out = []
    if not state.rules.track_cards:
        out.append(Unchecked("cards.hands", Message.t('great_wall.engine.hands_are_not_tracked_only')))
    if state.declared_passes and not state.rules.track_cards and not state.rules.voluntary_pass:
        out.append(Unchecked("pass.unplayable", Message.t('great_wall.engine.passed_action_s_were_accepted', declared_passes=state.declared_passes)))
    if state.draw_cards_unchecked:
        out.append(Unchecked("draw.card", Message.t('great_wall.engine.draw_s_named_the_card', draw_cards_unchecked=state.draw_cards_unchecked)))
    if state.deck.provisional:
        out.append(Unchecked("deck.provisional", Message.t('great_wall.engine.the_special_card_split_noble')))
    return tuple(out)


def play_options(state: GreatWallState) -> Iterator[Play]:
    """Every legal play of the active player (tracked hands: exact; untracked: by the deck mix)."""
    p = state.active
    player = state.players[p]
    if state.hand_sizes[p] == 0:
        return
    for kind in KINDS:
        ki = KIND_INDEX[kind]
        if state.hands is not None:
            most = state.hands[p][ki]
        else:
            most = min(state.hand_sizes[p], state.deck.count(kind) - state.played[p][ki])
        for k in range(1, most + 1):
            for s, sec in enumerate(state.sections):
                if not sec.live:
                    continue
                sp = section_space(s)
                frees: tuple[bool | None, ...] = (None,)
                if kind == "cavalry" and not state.free_used and not (state.rules.cavalry_single_card and k > 1):
                    frees = (True, False)
                if kind == DRAGON:
                    for targets in _target_sets(state, sec, p, k):
                        move = Play(player, sp, (kind,) * k, targets)
                        if not rules.violations(state, move):
                            yield move
                    continue
                for free in frees:
                    move = Play(player, sp, (kind,) * k, (), free)
                    if not rules.violations(state, move):
                        yield move


def own_card_refs(state: GreatWallState, sec: Section, p: int, within: int | None = None) -> Iterator[CardRef]:
    """Each of player ``p``'s cards in the row (the first ``within`` only), named in full."""
    for i, card in enumerate(sec.cards[:within]):
        if card.owner == p:
            yield CardRef(state.players[p], card.kind, i + 1)


def naming_claims(state: GreatWallState) -> Iterator[Claim]:
    """Claims that name the card of a first token the engine laid by default this turn (after the
    check: not while a token choice is pending)."""
    if state.pending_claim >= 0:
        return
    for s, sec in enumerate(state.sections):
        if sec.unnamed_claim >= 0:
            for ref in own_card_refs(state, sec, sec.claimed_owner, sec.unnamed_claim):
                move = Claim(state.players[sec.claimed_owner], section_space(s), sec.claimed_value, ref)
                if not rules.violations(state, move):
                    yield move


def _target_sets(state: GreatWallState, sec: Section, p: int, k: int) -> Iterator[tuple[CardRef, ...]]:
    from itertools import combinations

    from scorer.games.great_wall.values import covered_set

    covered = covered_set(sec.cards)
    ok = [i for i in range(len(sec.cards)) if not rules.dragon_target_ok(state, sec, p, i, covered)]
    for combo in combinations(ok, k):
        yield tuple(CardRef(state.players[sec.cards[i].owner], sec.cards[i].kind, i + 1) for i in combo)
