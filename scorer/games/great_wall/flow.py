"""The automatic flow of The Great Wall (rules/great-wall.md): a mutable working copy of a state
that resolves one move and everything that follows by itself -- the progress check at the start of
every turn (claims, section clearing and refill), the end of a turn after two actions, the last
round and its final checks, and the immediate end when the last token is taken."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from scorer.core.results import Termination
from scorer.core.types import Message, player_label
from scorer.games.great_wall import rules
from scorer.games.great_wall.data import DRAGON, KIND_INDEX, kind_label
from scorer.games.great_wall.moves import Claim, Draw, Play, Reveal, section_index, section_space
from scorer.games.great_wall.state import Effect, GreatWallRules, GreatWallState, Section
from scorer.games.great_wall.values import Card, Valuation, progress

NONE, FIRST_CHOICE, FIRST_AUTO, SECOND = 0, 1, 2, 3


@lru_cache(maxsize=64)
def valuation_of(rules_: GreatWallRules) -> Valuation:
    return rules_.valuation


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
