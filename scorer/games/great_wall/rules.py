"""Legality of Great Wall moves: every rule a move breaks, as bilingual ``Violation`` values.

Checked in a fixed order (boardgame.io style): game over, awaited input (a token reveal or a
claim choice), whose turn, the shape of the move, then the rules. Rule ids are stable: the
dashboard and docs/great-wall.md refer to them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from scorer.core.types import Message, SpaceId, Violation, or_list, player_label, violation
from scorer.games.great_wall.data import CAVALRY, DRAGON, KIND_INDEX, KINDS, kind_label
from scorer.games.great_wall.moves import CardRef, Claim, Draw, GreatWallMove, Pass, Play, Reveal, section_index, section_space
from scorer.games.great_wall.state import GreatWallState, Section
from scorer.games.great_wall.values import BASE_VALUE, Card, covered_set


def _v(rule: str, message: Message | str, *rest: Any, fix: Message | tuple[str, str] | None = None) -> Violation:
    """``_v(rule, Message.t(key, ...), spaces, fix=Message.t(...))``; see scorer.core.types.violation."""
    return violation(rule, message, *rest, fix=fix)


def cards_label(kinds: Sequence[str]) -> tuple[Message, ...]:
    """Cards counted per kind; as a field it is the language's list ("2 wall and 1 gate" / "2 张城墙和1 张城门")."""
    counts = Counter(kinds)
    return tuple(Message.t("great_wall.cards.count", n=n, kind=kind_label(k)) for k, n in counts.items())


# -- helpers shared with the engine, explain and simulate -------------------------------------

def is_free_play(state: GreatWallState, move: Play) -> bool:
    """Whether a play uses the free cavalry play: as the record says, else while it is unused."""
    if move.free is not None:
        return move.free
    if state.free_used or not move.cards or any(c != CAVALRY for c in move.cards):
        return False
    return not (state.rules.cavalry_single_card and len(move.cards) > 1)


def ref_matches(card: Card, index: int, ref: CardRef, players: Sequence[str]) -> bool:
    if ref.position is not None and ref.position != index + 1:
        return False
    if ref.kind is not None and ref.kind != card.kind:
        return False
    if ref.owner is not None and ref.owner != players[card.owner]:
        return False
    return True


def dragon_target_ok(state: GreatWallState, sec: Section, player: int, index: int, covered: set[int]) -> str:
    """'' if a dragon of ``player`` may lie on card ``index``; else the rule id it would break."""
    card = sec.cards[index]
    if index in covered:
        return "dragon.target_covered"
    if state.rules.dragon_any_target:
        return ""
    if card.owner == player:
        return "dragon.target_own"
    if index == sec.claimed_card and sec.claimed_owner >= 0:
        return "dragon.target_token"
    return ""


def resolve_targets(state: GreatWallState, sec: Section, player: int, refs: Sequence[CardRef]) -> tuple[list[int], Violation | None]:
    """Row indices of the cards the dragons are laid on, one after another (a covered card cannot be
    covered again). Without a position the most recently played fitting card is taken."""
    covered = covered_set(sec.cards)
    out: list[int] = []
    for k, ref in enumerate(refs):
        candidates = [i for i in range(len(sec.cards)) if ref_matches(sec.cards[i], i, ref, state.players) and i not in out]
        if not candidates:
            what = ref_label(ref)
            return out, _v("dragon.target_missing", Message.t('great_wall.dragon.target_missing', k=k + 1, what=what),
                           fix=Message.t('great_wall.dragon.target_missing.fix'))
        legal = [i for i in candidates if not dragon_target_ok(state, sec, player, i, covered | set(out))]
        if not legal:
            i = candidates[-1]
            rule = dragon_target_ok(state, sec, player, i, covered | set(out))
            return out, _dragon_violation(rule, k, sec.cards[i], i, state)
        out.append(legal[-1])
    return out, None


def ref_label(ref: CardRef) -> Message:
    """A card reference in words, e.g. "blue wall at position 2" / "第 2 张位置上的蓝方的城墙"."""
    what = kind_label(ref.kind) if ref.kind else Message.t("great_wall.ref.card")
    if ref.owner is not None:
        what = Message.t("great_wall.ref.owned", owner=player_label(ref.owner), what=what)
    if ref.position is not None:
        what = Message.t("great_wall.ref.at_position", what=what, position=ref.position)
    return what


def _dragon_violation(rule: str, k: int, card: Card, index: int, state: GreatWallState) -> Violation:
    kind = kind_label(card.kind)
    what = Message.t("great_wall.dragon.card_at", owner=player_label(state.players[card.owner]), kind=kind, position=index + 1)
    fix = Message.t("great_wall.dragon.target.fix")
    if rule == "dragon.target_own":
        return _v(rule, Message.t("great_wall.dragon.target_own", k=k + 1, kind=kind), fix=fix)
    return _v(rule, Message.t(f"great_wall.{rule}", k=k + 1, what=what), fix=fix)


def claim_card(state: GreatWallState, sec: Section, player: int, ref: CardRef | None, within: int | None = None) -> int:
    """The card a first token is laid on: the one named (the latest fitting card, an uncovered one
    first), else the player's most valuable uncovered card (the latest of equals), so that a dragon
    cannot cancel it. ``within``: only the first cards of the row count (those there when the token
    was laid). -1 if none fits."""
    covered = covered_set(sec.cards)
    mine = [i for i, c in enumerate(sec.cards[:within]) if c.owner == player]
    if ref is not None:
        fits = [i for i in mine if ref_matches(sec.cards[i], i, ref, state.players)]
        fits = [i for i in fits if i not in covered] or fits
        return fits[-1] if fits else -1
    if not mine:
        return -1
    open_ = [i for i in mine if i not in covered] or mine
    return max(open_, key=lambda i: (BASE_VALUE.get(sec.cards[i].kind, 1), i))


def playable_kinds(state: GreatWallState, player: int) -> list[str]:
    """Kinds the player could play now (tracked hands only): any card while a live section exists;
    a dragon only where it has a target."""
    assert state.hands is not None
    live = [s for s in state.sections if s.live]
    if not live:
        return []
    hand = state.hands[player]
    out = [k for k in KINDS if k != DRAGON and hand[KIND_INDEX[k]] > 0]
    if hand[KIND_INDEX[DRAGON]] > 0 and any(has_dragon_target(state, s, player) for s in live):
        out.append(DRAGON)
    return out


def has_dragon_target(state: GreatWallState, sec: Section, player: int) -> bool:
    covered = covered_set(sec.cards)
    return any(not dragon_target_ok(state, sec, player, i, covered) for i in range(len(sec.cards)))


def can_act(state: GreatWallState, player: int) -> bool:
    """False only when the engine knows that neither drawing nor playing is possible."""
    if state.deck_sizes[player] > 0:
        return True
    if state.hand_sizes[player] == 0 or not any(s.live for s in state.sections):
        return False
    if state.hands is not None:
        return bool(playable_kinds(state, player))
    return True  # hand unknown: the player declares a pass if nothing fits


# -- violations --------------------------------------------------------------------------------

def violations(state: GreatWallState, move: GreatWallMove) -> tuple[Violation, ...]:
    if state.finished is not None:
        return (_v("game.over", Message.t('great_wall.game.over')),)
    if isinstance(move, Reveal):
        return tuple(_reveal(state, move))
    waiting = state.awaiting_reveal
    if waiting >= 0:
        sp = section_space(waiting)
        return (_v("input.awaiting_reveal", Message.t('great_wall.input.awaiting_reveal', sp=sp), (sp,),
                   Message.t('great_wall.input.awaiting_reveal.fix')),)
    if isinstance(move, Claim):
        return tuple(_claim(state, move))
    if isinstance(move, (Play, Draw, Pass)):
        out = _turn(state, move.player)
        if out:
            return tuple(out)
        if state.in_final_checks:
            return (_v("last_round.no_actions", Message.t('great_wall.last_round.no_actions'),
                       fix=Message.t('great_wall.last_round.no_actions.fix')),)
        if state.pending_claim >= 0:
            sp = section_space(state.pending_claim)
            return (_v("input.awaiting_claim", Message.t('great_wall.input.awaiting_claim', sp=sp), (sp,)),)
        if isinstance(move, Play):
            return tuple(_play(state, move))
        if isinstance(move, Draw):
            return tuple(_draw(state, move))
        return tuple(_pass(state, move))
    return (_v("move.unknown", Message.t('great_wall.move.unknown', move=move)),)


def _turn(state: GreatWallState, player: str) -> list[Violation]:
    p = state.player_index(player)
    if p == state.active:
        return []
    who = player_label(player)
    if p < 0:
        return [_v("turn.unknown_player", Message.t('great_wall.turn.unknown_player', text=who))]
    if p != state.active:
        active = player_label(state.players[state.active])
        return [_v("turn.not_your_turn", Message.t('great_wall.turn.not_your_turn', a=active, text=who),
                   fix=Message.t('great_wall.turn.not_your_turn.fix', text=who))]
    return []


def _play(state: GreatWallState, move: Play) -> list[Violation]:
    p = state.active
    s = section_index(move.section)
    if s is None or s >= len(state.sections):
        n = len(state.sections)
        return [_v("play.unknown_section", Message.t('great_wall.play.unknown_section', section=move.section, n=n))]
    sp = section_space(s)
    if not move.cards:
        return [_v("play.no_cards", Message.t('great_wall.play.no_cards'), (sp,))]
    unknown = [c for c in move.cards if c not in KIND_INDEX]
    if unknown:
        return [_v("play.unknown_card", Message.t("great_wall.play.unknown_card", card=unknown[0], known=tuple(kind_label(k) for k in KINDS)), (sp,))]
    if len(set(move.cards)) > 1:
        return [_v("play.identical_cards", Message.t('great_wall.play.identical_cards', text=cards_label(move.cards)), (sp,),
                   Message.t('great_wall.play.identical_cards.fix'))]
    kind, k = move.cards[0], len(move.cards)
    sec = state.sections[s]
    if not sec.live:
        return [_v("play.dead_section", Message.t('great_wall.play.dead_section', sp=sp), (sp,),
                   Message.t('great_wall.play.dead_section.fix', sp=sp))]
    out: list[Violation] = []
    if move.free:
        if kind != CAVALRY:
            out.append(_v("cavalry.free_only_cavalry", Message.t("great_wall.cavalry.free_only_cavalry", kind=kind_label(kind)), (sp,)))
        elif state.free_used:
            out.append(_v("cavalry.free_used", Message.t('great_wall.cavalry.free_used'), (sp,),
                          Message.t('great_wall.cavalry.free_used.fix')))
        elif state.rules.cavalry_single_card and k > 1:
            out.append(_v("cavalry.free_single", Message.t('great_wall.cavalry.free_single'), (sp,)))
    if k > state.hand_sizes[p]:
        out.append(_v("hand.too_few", Message.t('great_wall.hand.too_few', k=k, p=state.hand_sizes[p]), (sp,),
                      Message.t('great_wall.hand.too_few.fix', p=k - state.hand_sizes[p])))
    elif state.hands is not None:
        have = state.hands[p][KIND_INDEX[kind]]
        if have < k:
            out.append(_v("hand.not_in_hand", Message.t("great_wall.hand.not_in_hand", have=have, kind=kind_label(kind), k=k), (sp,),
                          Message.t("great_wall.hand.not_in_hand.fix")))
    else:
        limit = state.deck.count(kind)
        done = state.played[p][KIND_INDEX[kind]]
        if done + k > limit:
            note = Message.t("great_wall.deck.mix.provisional") if kind in state.deck.guessed else ""
            out.append(_v("deck.mix", Message.t("great_wall.deck.mix", limit=limit, kind=kind_label(kind), done=done, k=k, note=note), (sp,),
                          Message.t("great_wall.deck.mix.fix")))
    if kind == DRAGON:
        if len(move.targets) != k:
            out.append(_v("dragon.targets", Message.t('great_wall.dragon.targets', k=k, targets=len(move.targets)), (sp,)))
        else:
            _, bad = resolve_targets(state, sec, p, move.targets)
            if bad is not None:
                out.append(Violation(bad.rule, bad.message, (SpaceId(sp),), bad.fix))
    elif move.targets:
        out.append(_v("play.targets_not_dragon", Message.t('great_wall.play.targets_not_dragon'), (sp,)))
    return out


def _draw(state: GreatWallState, move: Draw) -> list[Violation]:
    p = state.active
    if state.deck_sizes[p] == 0:
        return [_v("draw.deck_empty", Message.t('great_wall.draw.deck_empty'),
                   fix=Message.t('great_wall.draw.deck_empty.fix'))]
    if move.card is not None and move.card not in KIND_INDEX:
        return [_v("draw.unknown_card", Message.t('great_wall.draw.unknown_card', card=move.card))]
    if state.decks is not None and move.card is not None and state.decks[p][0] != move.card:
        top = state.decks[p][0]
        return [_v("draw.wrong_card", Message.t("great_wall.draw.wrong_card", top=kind_label(top), card=kind_label(move.card)))]
    return []


def _pass(state: GreatWallState, move: Pass) -> list[Violation]:
    p = state.active
    if state.rules.voluntary_pass:
        return []
    if state.deck_sizes[p] > 0:
        return [_v("pass.can_draw", Message.t('great_wall.pass.can_draw'), fix=Message.t('great_wall.pass.can_draw.fix'))]
    if state.hands is not None and playable_kinds(state, p):
        kinds = playable_kinds(state, p)
        return [_v("pass.can_play", Message.t("great_wall.pass.can_play", kinds=tuple(kind_label(k) for k in kinds)))]
    return []


def _claim(state: GreatWallState, move: Claim) -> list[Violation]:
    named = section_index(move.section)
    if state.pending_claim < 0 and named is not None and named < len(state.sections) and state.sections[named].unnamed_claim >= 0:
        return _name_card(state, move, named)
    if state.pending_claim < 0:
        return [_v("claim.not_awaited", Message.t('great_wall.claim.not_awaited'))]
    s = state.pending_claim
    sp = section_space(s)
    p = state.player_index(move.player)
    if p != state.active:
        return [_v("turn.not_your_turn", Message.t('great_wall.turn.not_your_turn.2', a=player_label(state.players[state.active]), sp=sp,
                                                   text=player_label(move.player)), (sp,))]
    if section_index(move.section) != s:
        return [_v("claim.wrong_section", Message.t('great_wall.claim.wrong_section', sp=sp, section=move.section), (sp,),
                   Message.t('great_wall.claim.wrong_section.fix'))]
    sec = state.sections[s]
    if move.token not in sec.tokens:
        return [_v("claim.token_not_there", Message.t("great_wall.claim.token_not_there.2", token=move.token, sp=sp,
                                                      have=or_list(str(t) for t in sec.tokens)), (sp,))]
    if move.on is not None and claim_card(state, sec, p, move.on) < 0:
        what = ref_label(move.on)
        return [_v("claim.on_card", Message.t('great_wall.claim.on_card', sp=sp, what=what), (sp,))]
    return []


def _name_card(state: GreatWallState, move: Claim, s: int) -> list[Violation]:
    """A claim naming the card a first token lies on, after the engine laid it by default (equal
    tokens, or a choice without ``on``): the player lays it "on one of your cards" (3.1)."""
    sp = section_space(s)
    sec = state.sections[s]
    p = state.player_index(move.player)
    if p != sec.claimed_owner:
        return [_v("turn.not_your_turn", Message.t('great_wall.turn.not_your_turn.3', o=player_label(state.players[sec.claimed_owner]), sp=sp,
                                                   text=player_label(move.player)), (sp,))]
    if move.token != sec.claimed_value:
        return [_v("claim.token_not_there", Message.t('great_wall.claim.token_not_there', sp=sp, claimed_value=sec.claimed_value, token=move.token), (sp,))]
    if move.on is None:
        return [_v("claim.name_card", Message.t('great_wall.claim.name_card', claimed_value=sec.claimed_value, sp=sp), (sp,),
                   Message.t('great_wall.claim.name_card.fix'))]
    if claim_card(state, sec, p, move.on, sec.unnamed_claim) < 0:
        what = ref_label(move.on)
        return [_v("claim.on_card", Message.t('great_wall.claim.on_card.2', sp=sp, what=what), (sp,))]
    return []


def _reveal(state: GreatWallState, move: Reveal) -> list[Violation]:
    s = section_index(move.section)
    waiting = state.awaiting_reveal
    if state.rules.track_cards:
        return [_v("reveal.tracked", Message.t('great_wall.reveal.tracked'))]
    if waiting < 0:
        return [_v("reveal.not_awaited", Message.t('great_wall.reveal.not_awaited'))]
    if s is None or s >= len(state.sections) or not state.sections[s].awaiting_reveal:
        want = [section_space(i) for i, x in enumerate(state.sections) if x.awaiting_reveal]
        return [_v("reveal.wrong_section", Message.t('great_wall.reveal.wrong_section', section=move.section, want=', '.join(want)), tuple(want))]
    sp = section_space(s)
    need = min(2, len(state.supply))
    if len(move.tokens) != need:
        return [_v("reveal.count", Message.t('great_wall.reveal.count', need=need, sp=sp, tokens=len(move.tokens)), (sp,))]
    supply = Counter(state.supply)
    want = Counter(move.tokens)
    missing = [v for v, n in want.items() if supply[v] < n]
    if missing:
        left = ", ".join(f"{n}x{v}" for v, n in sorted(supply.items())) or "none"
        return [_v("reveal.not_in_supply", Message.t('great_wall.reveal.not_in_supply', missing=missing[0], left=left), (sp,),
                   Message.t('great_wall.reveal.not_in_supply.fix'))]
    return []
