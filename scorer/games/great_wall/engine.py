"""The Great Wall engine: ``scorer.core.Game`` for The Great Wall of China (rules/great-wall.md).

Moves are single actions; everything else happens by itself inside ``apply_unchecked``: the
mandatory progress check at the start of every turn (claims, section clearing and refill), the end
of a turn after two actions, the last round and its final checks, and the immediate end when the
last token is taken.
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any, Iterator, Mapping, Sequence

from scorer.core.game import Explanation, Game, SetupOptions, TurnInfo, check_players_and_variants
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Termination, Unchecked, winners_from
from scorer.core.types import Board, InvalidRecord, Message, Piece, or_list, player_label
from scorer.games.great_wall import moves as mv
from scorer.games.great_wall import rules
from scorer.games.great_wall.data import DRAGON, KIND_INDEX, KINDS, SPECIAL_KINDS, DeckSpec, kind_label, load_deck
from scorer.games.great_wall.moves import CardRef, Claim, Draw, GreatWallMove, Pass, Play, Reveal, section_index, section_space
from scorer.games.great_wall.state import CAT_FIRST, CAT_SECOND, CATEGORIES, Effect, GreatWallRules, GreatWallState, Section
from scorer.games.great_wall.values import Card, Valuation, progress

PLAYER_COLOURS = mv.PLAYER_COLOURS
NONE, FIRST_CHOICE, FIRST_AUTO, SECOND = 0, 1, 2, 3


@lru_cache(maxsize=64)
def valuation_of(rules_: GreatWallRules) -> Valuation:
    return rules_.valuation


def token_kind(value: int) -> str:
    return f"token-{value}"


class GreatWallGame(Game[GreatWallState, GreatWallMove]):
    id = "great_wall"
    name = Message.t('great_wall.engine.the_great_wall_of_china')
    min_players = 2
    max_players = 5

    # -- set-up -----------------------------------------------------------------------------
    def setup(self, options: SetupOptions) -> GreatWallState:
        players = check_players_and_variants(
            options, label="The Great Wall", min_players=self.min_players, max_players=self.max_players,
            colours=tuple(PLAYER_COLOURS), colour_noun="Great Wall colour", variants=tuple(GreatWallRules.VARIANTS),
        )
        mode = options.get("cards", "untracked")
        if mode not in ("tracked", "untracked"):
            raise InvalidRecord("cards must be 'tracked' or 'untracked'", where="setup.cards")
        track = mode == "tracked"
        deck = load_deck(options.get("deck"))
        special = options.get("special_counts")
        if special is not None:
            deck = deck.with_special_counts(dict(special))
        flags = {v: (v in options.variants) for v in GreatWallRules.VARIANTS}
        rules_ = GreatWallRules(track_cards=track, **flags)
        n = len(players)
        token_order = options.get("token_order")
        deck_orders = options.get("deck_orders")
        if not track and (token_order is not None or deck_orders is not None):
            raise InvalidRecord("token_order and deck_orders need cards: tracked", where="setup.cards")
        if track and options.seed is None and (token_order is None or deck_orders is None):
            raise InvalidRecord("tracked cards need a seed, or both token_order and deck_orders", where="setup.seed")
        seed = options.seed if options.seed is not None else 0
        if track:
            supply = _token_order(deck, seed, token_order)
            decks = _deck_orders(deck, seed, players, deck_orders)
            hands = []
            for d in decks:
                counts = [0] * len(KINDS)
                for c in d[: deck.hand_size]:
                    counts[KIND_INDEX[c]] += 1
                hands.append(tuple(counts))
            decks_t: tuple[tuple[str, ...], ...] | None = tuple(tuple(d[deck.hand_size:]) for d in decks)
            hands_t: tuple[tuple[int, ...], ...] | None = tuple(hands)
        else:
            supply = tuple(sorted(deck.token_list()))
            decks_t = hands_t = None
        sections = tuple(Section(awaiting_reveal=not track) for _ in range(deck.sections_for(n)))
        state = GreatWallState(
            players=players,
            rules=rules_,
            deck=deck,
            sections=sections,
            supply=supply,
            boxed=(),
            first_tokens=((),) * n,
            second_tokens=((),) * n,
            hand_sizes=(deck.hand_size,) * n,
            deck_sizes=(sum(deck.counts) - deck.hand_size,) * n,
            played=((0,) * len(KINDS),) * n,
            hands=hands_t,
            decks=decks_t,
        )
        work = _Work(state)
        if track:
            for s in range(len(sections)):
                work.refill(s)
        work.run()
        return work.freeze()

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

    def explain(self, state: GreatWallState, sensed: Board) -> tuple[Explanation[GreatWallMove], ...]:
        from scorer.games.great_wall.explain import explain

        return explain(self, state, sensed)

    # -- records ---------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> GreatWallMove:
        return mv.move_from_json(data)

    def move_to_json(self, move: GreatWallMove) -> dict[str, Any]:
        return mv.move_to_json(move)

    def move_schema(self) -> Mapping[str, Any]:
        return mv.MOVE_SCHEMA

    def setup_schema(self) -> Mapping[str, Any]:
        return {
            "type": "object",
            "required": ["players"],
            "additionalProperties": False,
            "properties": {
                "players": {"type": "array", "minItems": 2, "maxItems": 5, "uniqueItems": True,
                            "items": {"enum": list(PLAYER_COLOURS)},
                            "description": "seating (clockwise) order; the first player starts"},
                "variants": {"type": "array", "items": {"enum": list(GreatWallRules.VARIANTS)}, "uniqueItems": True},
                "seed": {"type": "integer"},
                "cards": {"enum": ["tracked", "untracked"],
                          "description": "tracked: decks, hands and token supply simulated from the seed; untracked (default): a real table"},
                "deck": {"type": "string", "description": "shipped deck id (great-wall-provisional) or a deck file path"},
                "special_counts": {
                    "type": "object",
                    "required": list(SPECIAL_KINDS),
                    "additionalProperties": False,
                    "properties": {k: {"type": "integer", "minimum": 1, "maximum": 9} for k in SPECIAL_KINDS},
                    "description": "the special-card split of your own deck (adds up to 9)",
                },
                "token_order": {"type": "array", "minItems": 36, "maxItems": 36, "items": {"type": "integer", "minimum": 1, "maximum": 9},
                                "description": "tracked: the face-down supply in reveal order"},
                "deck_orders": {"type": "object", "additionalProperties": {"type": "array", "items": {"enum": list(KINDS)}},
                                "description": "tracked: each colour's deck, top first (the first 5 are the starting hand)"},
            },
        }

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


# -- the automatic flow --------------------------------------------------------------------------

class _Work:
    """Mutable working copy of a state while one move and its automatic effects are resolved."""

    def __init__(self, st: GreatWallState):
        self.st = st
        self.rules = st.rules
        self.how = valuation_of(st.rules)
        self.n = st.n
        self.sections = list(st.sections)
        self.supply = list(st.supply)
        self.boxed = list(st.boxed)
        self.first = list(st.first_tokens)
        self.second = list(st.second_tokens)
        self.hand_sizes = list(st.hand_sizes)
        self.deck_sizes = list(st.deck_sizes)
        self.played = list(st.played)
        self.hands = list(st.hands) if st.hands is not None else None
        self.decks = list(st.decks) if st.decks is not None else None
        self.active = st.active
        self.turn_number = st.turn_number
        self.actions_done = st.actions_done
        self.free_used = st.free_used
        self.checking = st.checking
        self.check_cursor = st.check_cursor
        self.pending_claim = st.pending_claim
        self.last_round_by = st.last_round_by
        self.final_checks_done = st.final_checks_done
        self.finished = st.finished
        self.declared_passes = st.declared_passes
        self.idle_turns = st.idle_turns
        self.turn_busy = st.turn_busy
        self.draw_cards_unchecked = st.draw_cards_unchecked
        self.effects: list[Effect] = []

    def freeze(self) -> GreatWallState:
        st = self.st
        return GreatWallState(
            st.players, st.rules, st.deck, tuple(self.sections), tuple(self.supply), tuple(self.boxed),
            tuple(self.first), tuple(self.second), tuple(self.hand_sizes), tuple(self.deck_sizes), tuple(self.played),
            tuple(self.hands) if self.hands is not None else None,
            tuple(self.decks) if self.decks is not None else None,
            self.active, self.turn_number, self.actions_done, self.free_used, self.checking, self.check_cursor,
            self.pending_claim, self.last_round_by, self.final_checks_done, self.finished, self.declared_passes,
            self.idle_turns, self.turn_busy, self.draw_cards_unchecked, tuple(self.effects),
        )

    def snapshot(self) -> GreatWallState:
        """The current working state (for helpers written against ``GreatWallState``)."""
        return self.freeze()

    def label(self, player: int) -> Message:
        return player_label(self.st.players[player])

    # -- moves ---------------------------------------------------------------------------------
    def play(self, move: Play) -> None:
        p = self.active
        s = section_index(move.section)
        assert s is not None
        sec = self.sections[s]
        kind, k = move.cards[0], len(move.cards)
        free = rules.is_free_play(self.st, move)
        targets: list[int] = []
        if kind == DRAGON:
            targets, _ = rules.resolve_targets(self.st, sec, p, move.targets)
        cards = list(sec.cards)
        for i in range(k):
            cards.append(Card(p, kind, targets[i] if kind == DRAGON and i < len(targets) else -1))
        self.sections[s] = replace(sec, cards=tuple(cards))
        self.hand_sizes[p] -= k
        played = list(self.played[p])
        played[KIND_INDEX[kind]] += k
        self.played[p] = tuple(played)
        if self.hands is not None:
            hand = list(self.hands[p])
            hand[KIND_INDEX[kind]] -= k
            self.hands[p] = tuple(hand)
        if free:
            self.free_used = True
        else:
            self.actions_done += 1
        self.turn_busy = True
        if self.hand_sizes[p] == 0 and self.deck_sizes[p] == 0 and self.last_round_by < 0:
            self.last_round_by = p
            self.effects.append(Effect("last_round", Message.t('great_wall.engine.has_no_cards_left_in', text=self.label(p)), self.st.players[p]))

    def draw(self, move: Draw) -> None:
        p = self.active
        self.deck_sizes[p] -= 1
        self.hand_sizes[p] += 1
        if self.decks is not None and self.hands is not None:
            card = self.decks[p][0]
            self.decks[p] = self.decks[p][1:]
            hand = list(self.hands[p])
            hand[KIND_INDEX[card]] += 1
            self.hands[p] = tuple(hand)
        elif move.card is not None:
            self.draw_cards_unchecked += 1
        self.actions_done += 1
        self.turn_busy = True

    def pass_(self) -> None:
        self.actions_done += 1
        self.declared_passes += 1

    def claim(self, move: Claim) -> None:
        s = section_index(move.section)
        assert s is not None
        if self.pending_claim < 0:  # names the card of a first token laid by default this turn
            sec = self.sections[s]
            card = rules.claim_card(self.st, sec, self.active, move.on, sec.unnamed_claim)
            self.sections[s] = replace(sec, claimed_card=card, unnamed_claim=-1)
            return
        self.pending_claim = -1
        sec = self.sections[s]
        self.claim_first(s, self.active, move.token, rules.claim_card(self.st, sec, self.active, move.on), named=move.on is not None)

    def reveal(self, move: Reveal) -> None:
        s = section_index(move.section)
        assert s is not None
        for v in move.tokens:
            self.supply.remove(v)
        self.place_pair(s, tuple(move.tokens))

    # -- tokens --------------------------------------------------------------------------------
    def refill(self, s: int) -> None:
        """Reveal a new pair for a cleared section (simulated supply), or ask for it (real table)."""
        if not self.rules.track_cards:
            self.sections[s] = replace(self.sections[s], awaiting_reveal=bool(self.supply))
            return
        self.sections[s] = replace(self.sections[s], awaiting_reveal=False)
        while self.supply and not self.sections[s].tokens:
            pair = tuple(self.supply[:2])
            del self.supply[:2]
            self.place_pair(s, pair)

    def place_pair(self, s: int, pair: tuple[int, ...]) -> None:
        """Lay a revealed pair at a section; in a 2-player game an equal pair goes into the box."""
        sp = section_space(s)
        if self.n == 2 and len(pair) == 2 and pair[0] == pair[1]:
            self.boxed.extend(pair)
            self.effects.append(Effect("pair_boxed", Message.t('great_wall.engine.equal_pair_at_goes_back', pair=pair[0], pair2=pair[1], sp=sp), section=s, tokens=pair))
            self.sections[s] = replace(self.sections[s], tokens=(), awaiting_reveal=bool(self.supply) and not self.rules.track_cards)
            if not self.supply:
                self.check_last_token()
            return
        self.sections[s] = replace(self.sections[s], tokens=tuple(sorted(pair, reverse=True)), awaiting_reveal=False)
        self.effects.append(Effect("tokens_revealed", Message.t("great_wall.engine.new_tokens_at", sp=sp, tokens=tuple(map(str, pair))),
                                   section=s, tokens=pair))

    # -- the progress check --------------------------------------------------------------------
    def decide(self, s: int, c: int) -> int:
        """What checker ``c`` must do at section ``s`` (3, 3.1, ambiguities 1, 11, 12)."""
        sec = self.sections[s]
        exception = sec.exception == c
        if exception:
            self.sections[s] = sec = replace(sec, exception=-1)
        if not sec.tokens:
            return NONE
        if exception and sec.claimed_owner == c and len(sec.tokens) == 1:
            alone = not any(sec.has_cards(j) for j in range(self.n) if j != c)
            if alone or self.rules.first_token_exception_literal:
                return SECOND
        eligible = sec.has_cards(c) or (self.rules.claim_without_cards and len(sec.tokens) == 1 and sec.claimed_owner >= 0)
        if not eligible:
            return NONE
        prog = progress(sec.cards, self.n, sec.claimed_owner, sec.claimed_value, self.how)
        mine = prog[c]
        if self.rules.claim_on_tie:
            leads = all(mine >= prog[j] for j in range(self.n) if j != c)
        else:
            leads = all(mine > prog[j] for j in range(self.n) if j != c)
        if not leads:
            return NONE
        if len(sec.tokens) == 2:
            return FIRST_AUTO if sec.tokens[0] == sec.tokens[1] else FIRST_CHOICE
        return SECOND

    def claim_first(self, s: int, c: int, value: int, card: int, named: bool) -> None:
        """Lay the first token on ``card``; if nobody named it, the claimant may still do so this turn."""
        sec = self.sections[s]
        tokens = list(sec.tokens)
        tokens.remove(value)
        alone = not any(sec.has_cards(j) for j in range(self.n) if j != c)
        self.sections[s] = replace(sec, tokens=tuple(tokens), claimed_owner=c, claimed_value=value, claimed_card=card,
                                   exception=c if alone else -1, unnamed_claim=-1 if named else len(sec.cards))
        self.turn_busy = True
        sp = section_space(s)
        extra: Message | str = Message.t("great_wall.engine.nobody_else_has_cards_here") if alone else ""
        if not named and 0 <= card < len(sec.cards) and self.final_checks_done < 0:
            extra = Message.t("great_wall.engine.taken_as_lying_on", kind=kind_label(sec.cards[card].kind), position=card + 1, extra=extra)
        self.effects.append(Effect("first_token", Message.t('great_wall.engine.leads_at_and_lays_the', text=self.label(c), sp=sp, value=value, extra_=extra),
                                   self.st.players[c], s, (value,)))

    def claim_second(self, s: int, c: int) -> None:
        sec = self.sections[s]
        won = tuple(sec.tokens)
        self.second[c] = self.second[c] + won
        got = [(c, won)]
        if sec.claimed_owner >= 0:
            o = sec.claimed_owner
            self.first[o] = self.first[o] + (sec.claimed_value,)
            got.append((o, (sec.claimed_value,)))
        self.sections[s] = Section()
        self.turn_busy = True
        sp = section_space(s)
        parts = Message.t("great_wall.engine.takes", p=self.label(got[0][0]), tokens="+".join(map(str, got[0][1])))
        for p, t in got[1:]:
            parts = Message.t("list.semicolon", a=parts, b=Message.t("great_wall.engine.takes", p=self.label(p), tokens="+".join(map(str, t))))
        self.effects.append(Effect("section_cleared", Message.t('great_wall.engine.is_won_all_cards_there', sp=sp, parts_=parts),
                                   self.st.players[c], s, tuple(v for _, t in got for v in t)))
        if self.final_checks_done < 0:
            self.refill(s)
        self.check_last_token()

    def check_last_token(self) -> None:
        """Immediate end (4b): the supply is empty and no section holds a token any more."""
        if self.finished is None and not self.supply and all(sec.dead for sec in self.sections):
            self.finish(Termination.LAST_TOKEN)

    def finish(self, why: Termination) -> None:
        self.settle_claims()
        self.finished = why
        self.checking = False
        self.pending_claim = -1
        text = {
            Termination.LAST_TOKEN: Message.t('great_wall.engine.the_last_token_has_been'),
            Termination.LAST_ROUND: Message.t('great_wall.engine.the_last_round_and_its'),
            Termination.BLOCKED: Message.t('great_wall.engine.nobody_can_do_anything_any'),
        }[why]
        self.effects.append(Effect("game_over", text))

    # -- the turn loop ---------------------------------------------------------------------------
    def run(self) -> None:
        """Resolve automatic effects until a player's input is needed or the game is over."""
        while self.finished is None:
            if any(sec.awaiting_reveal for sec in self.sections) or self.pending_claim >= 0:
                return
            if self.checking:
                if self.check_cursor >= len(self.sections):
                    self.checking = False
                    continue
                s = self.check_cursor
                self.check_cursor += 1
                what = self.decide(s, self.active)
                if what == FIRST_CHOICE:
                    self.pending_claim = s
                    return
                if what == FIRST_AUTO:
                    sec = self.sections[s]
                    self.claim_first(s, self.active, sec.tokens[0], rules.claim_card(self.st, sec, self.active, None), named=False)
                elif what == SECOND:
                    self.claim_second(s, self.active)
                continue
            if self.final_checks_done >= 0:
                self.final_checks_done += 1
                total = 1 if self.rules.final_check_announcer_only else self.n
                if self.final_checks_done >= total:
                    self.finish(Termination.LAST_ROUND)
                    return
                self.settle_claims()
                self.active = (self.last_round_by + self.final_checks_done) % self.n
                self.checking, self.check_cursor = True, 0
                continue
            if self.actions_done >= 2 or (self.deck_sizes[self.active] == 0 and not rules.can_act(self.snapshot(), self.active)):
                self.end_turn()
                continue
            return

    def settle_claims(self) -> None:
        """The claimant's turn is over: a first token's card can no longer be named."""
        for s, sec in enumerate(self.sections):
            if sec.unnamed_claim >= 0:
                self.sections[s] = replace(sec, unnamed_claim=-1)

    def end_turn(self) -> None:
        self.settle_claims()
        self.idle_turns = 0 if self.turn_busy else self.idle_turns + 1
        nxt = (self.active + 1) % self.n
        self.turn_number += 1
        self.active = nxt
        self.actions_done, self.free_used, self.turn_busy = 0, False, False
        self.checking, self.check_cursor = True, 0
        if self.last_round_by >= 0 and nxt == self.last_round_by:
            self.final_checks_done = 0
            return
        if self.idle_turns >= self.n:
            self.finish(Termination.BLOCKED)


def _token_order(deck: DeckSpec, seed: int, order: Sequence[int] | None) -> tuple[int, ...]:
    tokens = deck.token_list()
    if order is None:
        random.Random(f"{seed}:tokens").shuffle(tokens)
        return tuple(tokens)
    if sorted(order) != sorted(tokens):
        raise InvalidRecord("token_order must list the 36 tokens (2x1, 6x2, 7x3, 7x4, 8x5, 4x7, 2x8) once each", where="setup.token_order")
    return tuple(int(v) for v in order)


def _deck_orders(deck: DeckSpec, seed: int, players: Sequence[str], orders: Mapping[str, Sequence[str]] | None) -> list[list[str]]:
    want = sorted(deck.card_list())
    out = []
    given = dict(orders) if orders is not None else None
    if given is not None and set(given) != set(players):
        raise InvalidRecord(f"deck_orders needs exactly one deck per player ({', '.join(players)})", where="setup.deck_orders")
    for p in players:
        if given is None:
            cards = deck.card_list()
            random.Random(f"{seed}:deck:{p}").shuffle(cards)
        else:
            cards = [str(c) for c in given[p]]
            if sorted(cards) != want:
                raise InvalidRecord(f"the deck of {p} does not match the deck list ({len(cards)} cards given)", where=f"setup.deck_orders.{p}")
        out.append(cards)
    return out


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


GAME = GreatWallGame()
