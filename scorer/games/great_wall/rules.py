"""Legality of Great Wall moves: every rule a move breaks, as bilingual ``Violation`` values.

Checked in a fixed order (boardgame.io style): game over, awaited input (a token reveal or a
claim choice), whose turn, the shape of the move, then the rules. Rule ids are stable: the
dashboard and docs/great-wall.md refer to them.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from scorer.core.types import Colour, Message, SpaceId, Violation
from scorer.games.great_wall.data import CAVALRY, DRAGON, KIND_INDEX, KIND_ZH, KINDS
from scorer.games.great_wall.moves import CardRef, Claim, Draw, GreatWallMove, Pass, Play, Reveal, section_index, section_space
from scorer.games.great_wall.state import GreatWallState, Section
from scorer.games.great_wall.values import BASE_VALUE, Card, covered_set


def _v(rule: str, en: str, zh: str, spaces: Sequence[str] = (), fix: tuple[str, str] | None = None) -> Violation:
    return Violation(rule, Message(en, zh), tuple(SpaceId(s) for s in spaces), Message(*fix) if fix else None)


def player_label(player: str) -> tuple[str, str]:
    try:
        c = Colour(player)
        return c.value, c.zh + "方"
    except ValueError:
        return player, player


def kind_zh(kind: str) -> str:
    return KIND_ZH.get(kind, kind)


def cards_label(kinds: Sequence[str]) -> tuple[str, str]:
    counts = Counter(kinds)
    en = ", ".join(f"{n} {k}" for k, n in counts.items())
    zh = "、".join(f"{n} 张{kind_zh(k)}" for k, n in counts.items())
    return en, zh


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
            return out, _v("dragon.target_missing", f"Dragon {k + 1}: there is no {what[0]} in this section to lay it on.",
                           f"第 {k + 1} 张龙：这一段城墙里没有{what[1]}可以覆盖。",
                           fix=("Lay the dragon on a card that is in the section, or take it back.", "把龙放在这一段已有的牌上，或收回。"))
        legal = [i for i in candidates if not dragon_target_ok(state, sec, player, i, covered | set(out))]
        if not legal:
            i = candidates[-1]
            rule = dragon_target_ok(state, sec, player, i, covered | set(out))
            return out, _dragon_violation(rule, k, sec.cards[i], i, state)
        out.append(legal[-1])
    return out, None


def ref_label(ref: CardRef) -> tuple[str, str]:
    """A card reference in words (EN, ZH), e.g. "blue wall at position 2"."""
    en, zh = [], []
    if ref.owner is not None:
        pen, pzh = player_label(ref.owner)
        en.append(pen)
        zh.append(pzh + "的")
    en.append(ref.kind or "card")
    zh.append(kind_zh(ref.kind) if ref.kind else "牌")
    if ref.position is not None:
        en.append(f"at position {ref.position}")
        zh.insert(0, f"第 {ref.position} 张位置上的")
    return " ".join(en), "".join(zh)


def _dragon_violation(rule: str, k: int, card: Card, index: int, state: GreatWallState) -> Violation:
    owner_en, owner_zh = player_label(state.players[card.owner])
    what_en, what_zh = f"{owner_en}'s {card.kind} (position {index + 1})", f"{owner_zh}的{kind_zh(card.kind)}（第 {index + 1} 张）"
    fix = ("Lay the dragon on an uncovered card of another player that holds no token.", "把龙放在其他玩家一张未被覆盖、上面没有标记的牌上。")
    texts = {
        "dragon.target_covered": (f"Dragon {k + 1}: {what_en} is already covered by a dragon.", f"第 {k + 1} 张龙：{what_zh}已经被龙覆盖了。"),
        "dragon.target_own": (f"Dragon {k + 1}: a dragon covers another player's card, not your own {card.kind}.",
                              f"第 {k + 1} 张龙：龙只能覆盖其他玩家的牌，不能覆盖自己的{kind_zh(card.kind)}。"),
        "dragon.target_token": (f"Dragon {k + 1}: {what_en} holds a claimed token and cannot be covered.",
                                f"第 {k + 1} 张龙：{what_zh}上放着已宣占的标记，不能被覆盖。"),
    }
    en, zh = texts[rule]
    return _v(rule, en, zh, fix=fix)


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
        return (_v("game.over", "The game is over.", "游戏已经结束。"),)
    if isinstance(move, Reveal):
        return tuple(_reveal(state, move))
    waiting = state.awaiting_reveal
    if waiting >= 0:
        sp = section_space(waiting)
        return (_v("input.awaiting_reveal", f"Reveal 2 new tokens at {sp} first and enter their values.",
                   f"请先在 {sp} 翻开 2 个新标记并输入它们的分值。", (sp,),
                   ("Reveal the tokens, then continue.", "翻开标记后再继续。")),)
    if isinstance(move, Claim):
        return tuple(_claim(state, move))
    if isinstance(move, (Play, Draw, Pass)):
        out = _turn(state, move.player)
        if out:
            return tuple(out)
        if state.in_final_checks:
            return (_v("last_round.no_actions", "The last round is over: nobody may play or draw cards any more, only the final progress checks remain.",
                       "最后一轮已经结束：任何人都不能再出牌或抓牌，只剩最后的进度检查。",
                       fix=("Take the cards back.", "把牌收回。")),)
        if state.pending_claim >= 0:
            sp = section_space(state.pending_claim)
            return (_v("input.awaiting_claim", f"First choose which token of {sp} to claim (the progress check comes before the actions).",
                       f"请先选择要宣占 {sp} 的哪个标记（进度检查在行动之前）。", (sp,)),)
        if isinstance(move, Play):
            return tuple(_play(state, move))
        if isinstance(move, Draw):
            return tuple(_draw(state, move))
        return tuple(_pass(state, move))
    return (_v("move.unknown", f"Unknown move {move!r}.", f"未知的行动 {move!r}。"),)


def _turn(state: GreatWallState, player: str) -> list[Violation]:
    p = state.player_index(player)
    if p == state.active:
        return []
    en, zh = player_label(player)
    if p < 0:
        return [_v("turn.unknown_player", f"{en} is not playing at this table.", f"{zh}不在本局游戏中。")]
    if p != state.active:
        aen, azh = player_label(state.players[state.active])
        return [_v("turn.not_your_turn", f"It is {aen}'s turn, not {en}'s.", f"现在轮到{azh}，不是{zh}。",
                   fix=(f"{en}: a turn is the progress check and two actions (plus one free cavalry play); take back what you did and wait for your turn.",
                        f"{zh}：一个回合是进度检查加两个行动（外加一次免费的骑兵出牌）；请收回刚才的牌，等待你的回合。"))]
    return []


def _play(state: GreatWallState, move: Play) -> list[Violation]:
    p = state.active
    s = section_index(move.section)
    if s is None or s >= len(state.sections):
        n = len(state.sections)
        return [_v("play.unknown_section", f"{move.section} is not a wall section of this game (section-1 to section-{n}).",
                   f"{move.section} 不是本局的城墙段（section-1 到 section-{n}）。")]
    sp = section_space(s)
    if not move.cards:
        return [_v("play.no_cards", "A play puts down at least one card.", "出牌至少要放一张牌。", (sp,))]
    unknown = [c for c in move.cards if c not in KIND_INDEX]
    if unknown:
        return [_v("play.unknown_card", f"Unknown card {unknown[0]!r} (known: {', '.join(KINDS)}).",
                   f"未知的牌 {unknown[0]!r}（已知：{'、'.join(kind_zh(k) for k in KINDS)}）。", (sp,))]
    if len(set(move.cards)) > 1:
        en, zh = cards_label(move.cards)
        return [_v("play.identical_cards", f"One play is one card or a set of identical cards; {en} are different cards.",
                   f"一次出牌只能是一张牌或一组相同的牌；{zh}是不同的牌。", (sp,),
                   ("Take back the cards of all but one kind; the others may be a later action.", "只留下一种牌，其余的收回（可在之后的行动中打出）。"))]
    kind, k = move.cards[0], len(move.cards)
    sec = state.sections[s]
    if not sec.live:
        return [_v("play.dead_section", f"{sp} has no tokens left to win: cards go to a section with tokens.",
                   f"{sp} 已经没有可以赢取的标记：牌只能放在有标记的城墙段。", (sp,),
                   (f"Take the cards off {sp}.", f"把牌从 {sp} 拿走。"))]
    out: list[Violation] = []
    if move.free:
        if kind != CAVALRY:
            out.append(_v("cavalry.free_only_cavalry", f"Only cavalry can be played as the free action, not {kind}.",
                          f"只有骑兵可以作为免费行动打出，{kind_zh(kind)}不行。", (sp,)))
        elif state.free_used:
            out.append(_v("cavalry.free_used", "The free cavalry play was already used this turn.", "本回合已经用过免费的骑兵出牌。", (sp,),
                          ("Count this play as an action, or take the cavalry back.", "把这次出牌算作一个行动，或收回骑兵。")))
        elif state.rules.cavalry_single_card and k > 1:
            out.append(_v("cavalry.free_single", "The free cavalry play is a single card (referee option cavalry_single_card).",
                          "免费的骑兵出牌只能是一张牌（裁判选项 cavalry_single_card）。", (sp,)))
    if k > state.hand_sizes[p]:
        out.append(_v("hand.too_few", f"{k} cards played, but the hand holds only {state.hand_sizes[p]}.",
                      f"打出了 {k} 张牌，但手里只有 {state.hand_sizes[p]} 张。", (sp,),
                      (f"Take back {k - state.hand_sizes[p]} card(s).", f"收回 {k - state.hand_sizes[p]} 张牌。")))
    elif state.hands is not None:
        have = state.hands[p][KIND_INDEX[kind]]
        if have < k:
            out.append(_v("hand.not_in_hand", f"The hand holds {have} {kind} card(s), not {k}.", f"手里只有 {have} 张{kind_zh(kind)}，不是 {k} 张。", (sp,),
                          ("Take back the cards that are not in your hand.", "收回不在手里的牌。")))
    else:
        limit = state.deck.count(kind)
        done = state.played[p][KIND_INDEX[kind]]
        if done + k > limit:
            note_en = " (the deck list is provisional: if your deck really holds more, correct it)" if kind in state.deck.guessed else ""
            note_zh = "（牌组清单是临时数据：如果你的牌组确实更多，请更正）" if kind in state.deck.guessed else ""
            out.append(_v("deck.mix", f"A deck holds {limit} {kind} card(s) and {done} were already played; {k} more is too many{note_en}.",
                          f"一副牌只有 {limit} 张{kind_zh(kind)}，已经打出了 {done} 张；再打 {k} 张太多了{note_zh}。", (sp,),
                          ("Take back the cards that cannot be in your deck.", "收回不可能在你牌组中的牌。")))
    if kind == DRAGON:
        if len(move.targets) != k:
            out.append(_v("dragon.targets", f"Each dragon is laid on a card: {k} dragon(s) need {k} target(s), {len(move.targets)} given.",
                          f"每张龙都要放在一张牌上：{k} 张龙需要 {k} 个目标，给出了 {len(move.targets)} 个。", (sp,)))
        else:
            _, bad = resolve_targets(state, sec, p, move.targets)
            if bad is not None:
                out.append(Violation(bad.rule, bad.message, (SpaceId(sp),), bad.fix))
    elif move.targets:
        out.append(_v("play.targets_not_dragon", "Only a dragon is laid on another card.", "只有龙才放在其他牌上。", (sp,)))
    return out


def _draw(state: GreatWallState, move: Draw) -> list[Violation]:
    p = state.active
    if state.deck_sizes[p] == 0:
        return [_v("draw.deck_empty", "Your deck is empty: you cannot draw.", "你的牌堆已经空了，不能抓牌。",
                   fix=("Play a card instead.", "改为出牌。"))]
    if move.card is not None and move.card not in KIND_INDEX:
        return [_v("draw.unknown_card", f"Unknown card {move.card!r}.", f"未知的牌 {move.card!r}。")]
    if state.decks is not None and move.card is not None and state.decks[p][0] != move.card:
        top = state.decks[p][0]
        return [_v("draw.wrong_card", f"The top card of the deck is a {top}, not a {move.card}.",
                   f"牌堆顶上的牌是{kind_zh(top)}，不是{kind_zh(move.card)}。")]
    return []


def _pass(state: GreatWallState, move: Pass) -> list[Violation]:
    p = state.active
    if state.rules.voluntary_pass:
        return []
    if state.deck_sizes[p] > 0:
        return [_v("pass.can_draw", "An action may be passed only when neither playing nor drawing is possible; your deck still has cards.",
                   "只有既不能出牌也不能抓牌时才可以放弃行动；你的牌堆里还有牌。", fix=("Draw a card.", "抓一张牌。"))]
    if state.hands is not None and playable_kinds(state, p):
        kinds = playable_kinds(state, p)
        return [_v("pass.can_play", f"An action may be passed only when nothing can be played; you can play {', '.join(kinds)}.",
                   f"只有无牌可出时才可以放弃行动；你可以打出{'、'.join(kind_zh(k) for k in kinds)}。")]
    return []


def _claim(state: GreatWallState, move: Claim) -> list[Violation]:
    named = section_index(move.section)
    if state.pending_claim < 0 and named is not None and named < len(state.sections) and state.sections[named].unnamed_claim >= 0:
        return _name_card(state, move, named)
    if state.pending_claim < 0:
        return [_v("claim.not_awaited", "No token choice is pending and no first token laid this turn waits for its card: "
                   "tokens are claimed by the progress check at the start of a turn.",
                   "现在不需要选择标记，本回合放下的第一个标记也不需要指明所在的牌：标记是在回合开始的进度检查中宣占的。")]
    s = state.pending_claim
    sp = section_space(s)
    p = state.player_index(move.player)
    if p != state.active:
        en, zh = player_label(move.player)
        aen, azh = player_label(state.players[state.active])
        return [_v("turn.not_your_turn", f"{aen} chooses the token at {sp}, not {en}.", f"由{azh}选择 {sp} 的标记，不是{zh}。", (sp,))]
    if section_index(move.section) != s:
        return [_v("claim.wrong_section", f"The pending choice is at {sp}, not {move.section}.", f"需要选择的是 {sp}，不是 {move.section}。", (sp,),
                   ("Choose the token there first; the card of a token laid earlier in this check can be named afterwards.",
                    "请先在那里选择标记；本次检查中先前放下的标记所在的牌可以之后再指明。"))]
    sec = state.sections[s]
    if move.token not in sec.tokens:
        have = " or ".join(str(t) for t in sec.tokens)
        return [_v("claim.token_not_there", f"There is no {move.token} at {sp}; choose {have}.",
                   f"{sp} 没有分值为 {move.token} 的标记；请选择 {have.replace(' or ', '或')}。", (sp,))]
    if move.on is not None and claim_card(state, sec, p, move.on) < 0:
        what = ref_label(move.on)
        return [_v("claim.on_card", f"The token goes on one of your own cards in {sp}; there is no {what[0]} of yours there.",
                   f"标记要放在你自己在 {sp} 的一张牌上；那里没有你的{what[1]}。", (sp,))]
    return []


def _name_card(state: GreatWallState, move: Claim, s: int) -> list[Violation]:
    """A claim naming the card a first token lies on, after the engine laid it by default (equal
    tokens, or a choice without ``on``): the player lays it "on one of your cards" (3.1)."""
    sp = section_space(s)
    sec = state.sections[s]
    p = state.player_index(move.player)
    if p != sec.claimed_owner:
        en, zh = player_label(move.player)
        oen, ozh = player_label(state.players[sec.claimed_owner])
        return [_v("turn.not_your_turn", f"{oen} laid the first token at {sp}, not {en}: only {oen} names the card it lies on.",
                   f"{sp} 的第一个标记是{ozh}放的，不是{zh}：只有{ozh}可以指明它放在哪张牌上。", (sp,))]
    if move.token != sec.claimed_value:
        return [_v("claim.token_not_there", f"The first token at {sp} is the {sec.claimed_value}, not a {move.token}.",
                   f"{sp} 的第一个标记是 {sec.claimed_value} 分，不是 {move.token} 分。", (sp,))]
    if move.on is None:
        return [_v("claim.name_card", f"The {sec.claimed_value} at {sp} is already yours; a claim now only says which of your cards it lies on.",
                   f"{sp} 的 {sec.claimed_value} 分标记已经是你的了；现在的宣占只需指明它放在你的哪张牌上。", (sp,),
                   ("Name the card (owner, kind and/or position).", "请指明那张牌（所有者、种类和/或位置）。"))]
    if claim_card(state, sec, p, move.on, sec.unnamed_claim) < 0:
        what = ref_label(move.on)
        return [_v("claim.on_card", f"The token lies on one of your own cards that were in {sp} when you claimed it; there is no {what[0]} of yours there.",
                   f"标记要放在宣占时你在 {sp} 已有的一张牌上；那里没有你的{what[1]}。", (sp,))]
    return []


def _reveal(state: GreatWallState, move: Reveal) -> list[Violation]:
    s = section_index(move.section)
    waiting = state.awaiting_reveal
    if state.rules.track_cards:
        return [_v("reveal.tracked", "The token supply is simulated in this game: new tokens are revealed by the referee.",
                   "本局的标记堆由裁判模拟：新标记会自动翻开。")]
    if waiting < 0:
        return [_v("reveal.not_awaited", "No section is waiting for new tokens.", "没有城墙段在等待新标记。")]
    if s is None or s >= len(state.sections) or not state.sections[s].awaiting_reveal:
        want = [section_space(i) for i, x in enumerate(state.sections) if x.awaiting_reveal]
        return [_v("reveal.wrong_section", f"{move.section} is not waiting for tokens; waiting: {', '.join(want)}.",
                   f"{move.section} 不需要新标记；需要新标记的是 {', '.join(want)}。", tuple(want))]
    sp = section_space(s)
    need = min(2, len(state.supply))
    if len(move.tokens) != need:
        return [_v("reveal.count", f"Reveal {need} token(s) at {sp}, not {len(move.tokens)}.",
                   f"在 {sp} 翻开 {need} 个标记，不是 {len(move.tokens)} 个。", (sp,))]
    supply = Counter(state.supply)
    want = Counter(move.tokens)
    missing = [v for v, n in want.items() if supply[v] < n]
    if missing:
        left = ", ".join(f"{n}x{v}" for v, n in sorted(supply.items())) or "none"
        return [_v("reveal.not_in_supply", f"No token worth {missing[0]} is left face down (left: {left}).",
                   f"面朝下的标记堆里已经没有分值为 {missing[0]} 的标记了（剩余：{left}）。", (sp,),
                   ("Check the values of the revealed tokens.", "请核对翻开标记的分值。"))]
    return []
