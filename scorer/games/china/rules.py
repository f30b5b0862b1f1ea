"""Legality of China moves: every rule a move breaks, as bilingual ``Violation`` values.

Checked in a fixed order (boardgame.io style): game over, turn, shape of the move, placement
rules piece by piece (in the order given), then cards. Rule ids are stable: the dashboard and
the docs refer to them.
"""

from __future__ import annotations

from scorer.core.types import Colour, Message, SpaceId, Violation
from scorer.games.china import cards as cardlib
from scorer.games.china.board import CARD_COLOUR_ZH
from scorer.games.china.moves import EMISSARY, FORTRESS, HOUSE, ChinaMove, DeclarePileExhausted, Exchange, Pass, Place
from scorer.games.china.state import ChinaState


def _v(rule: str, en: str, zh: str, spaces: tuple[str, ...] = (), fix: tuple[str, str] | None = None) -> Violation:
    return Violation(rule, Message(en, zh), tuple(SpaceId(s) for s in spaces), Message(*fix) if fix else None)


def player_label(player: str) -> tuple[str, str]:
    try:
        c = Colour(player)
        return c.value, c.zh + "方"
    except ValueError:
        return player, player


def _kind_zh(kind: str) -> str:
    return {HOUSE: "房屋", EMISSARY: "使臣", FORTRESS: "堡垒"}.get(kind, kind)


def violations(state: ChinaState, move: ChinaMove) -> tuple[Violation, ...]:
    if state.finished is not None:
        return (_v("game.over", "The game is over.", "游戏已经结束。"),)
    if isinstance(move, Place):
        return tuple(_place(state, move))
    if isinstance(move, Exchange):
        return tuple(_exchange(state, move))
    if isinstance(move, DeclarePileExhausted):
        return tuple(_declare(state))
    if isinstance(move, Pass):
        return tuple(_pass(state, move))
    return (_v("move.unknown", f"Unknown move {move!r}.", f"未知的行动 {move!r}。"),)


def _turn(state: ChinaState, player: str) -> list[Violation]:
    p = state.player_index(player)
    active = state.players[state.active]
    if p < 0:
        en, zh = player_label(player)
        return [_v("turn.unknown_player", f"{en} is not playing at this table.", f"{zh}不在本局游戏中。")]
    if p != state.active:
        en, zh = player_label(player)
        aen, azh = player_label(active)
        return [
            _v(
                "turn.not_your_turn",
                f"It is {aen}'s turn, not {en}'s.",
                f"现在轮到{azh}，不是{zh}。",
                fix=(f"{en}: take back what you placed and wait for your turn.", f"{zh}：请收回刚放的棋子，等待你的回合。"),
            )
        ]
    return []


def placement_violations(state: ChinaState, move: Place) -> tuple[Violation, ...]:
    """The rules of the pieces alone (turn, shape, province, sites, supply, cap), cards aside: what
    ``legal_moves`` and the pass check enumerate before they pair placements with payments."""
    return tuple(_place(state, move, cards=False))


def _place(state: ChinaState, move: Place, cards: bool = True) -> list[Violation]:
    out = _turn(state, move.player)
    if out:
        return out
    board = state.board
    p = state.active
    n = len(move.placements)
    if n == 0:
        return [_v("place.none", "A placement turn places at least one piece.", "放置回合至少要放一个棋子。")]
    if n > 2:
        extra = tuple(pl.space for pl in move.placements[2:])
        return [
            _v(
                "place.max_two_pieces",
                f"At most 2 pieces per turn (3-2-1 rule); {n} were placed.",
                f"每回合最多放 2 个棋子（3-2-1 规则），这次放了 {n} 个。",
                extra,
                (f"Take {n - 2} piece(s) off {', '.join(extra)}.", f"从 {', '.join(extra)} 拿走 {n - 2} 个棋子。"),
            )
        ]
    provinces: list[int] = []
    for pl in move.placements:
        if pl.kind in (HOUSE, FORTRESS):
            s = board.site_index.get(pl.space)
            if s is None:
                return [_v("place.wrong_space", f"{pl.space} is not a house site; a {pl.kind} goes on a house site.",
                           f"{pl.space} 不是房屋位置；{_kind_zh(pl.kind)}只能放在房屋位置上。", (pl.space,))]
            provinces.append(board.site_province[s])
        elif pl.kind == EMISSARY:
            pi = board.dragon_index.get(pl.space)
            if pi is None:
                return [_v("place.wrong_space", f"{pl.space} is not a dragon space; emissaries go on a province's dragon space.",
                           f"{pl.space} 不是龙位；使臣只能放在各国的龙位上。", (pl.space,))]
            provinces.append(pi)
        else:
            return [_v("place.unknown_piece", f"Unknown piece kind {pl.kind!r}.", f"未知的棋子种类 {pl.kind!r}。", (pl.space,))]
    if len(set(provinces)) > 1:
        names = [board.provinces[i].label for i in dict.fromkeys(provinces)]
        return [
            _v(
                "place.one_province",
                f"All pieces of a turn go into one province; these went into {' and '.join(m.en for m in names)}.",
                f"一回合的棋子必须放在同一个国；这次放在了{'和'.join(m.zh for m in names)}。",
                tuple(pl.space for pl in move.placements[1:]),
                (f"Take the piece off {move.placements[1].space}.", f"从 {move.placements[1].space} 拿走那个棋子。"),
            )
        ]
    prov = provinces[0]
    pname = board.provinces[prov].label
    if n == 2 and state.province_empty(prov):
        kinds = {pl.kind for pl in move.placements}
        same_site = move.placements[0].space == move.placements[1].space
        allowed = state.rules.fortress_house_in_empty and kinds == {FORTRESS, HOUSE} and same_site
        if not allowed:
            second = move.placements[1]
            out.append(
                _v(
                    "place.empty_province_one_piece",
                    f"{pname.en} was empty at the start of the turn, so only 1 piece may go there this turn.",
                    f"{pname.zh}在本回合开始时是空的，所以本回合只能放 1 个棋子。",
                    (second.space,),
                    (f"Take the second {second.kind} off {second.space}.", f"从 {second.space} 拿走第二个{_kind_zh(second.kind)}。"),
                )
            )
    out.extend(_pieces(state, move, prov))
    if cards:
        out.extend(_payment(state, move, prov))
    return out


def _pieces(state: ChinaState, move: Place, prov: int) -> list[Violation]:
    """Supply, free sites and the emissary cap, checked piece by piece in the order given."""
    out: list[Violation] = []
    board = state.board
    p = state.active
    houses = state.houses_in(prov)
    emissaries = sum(state.emissaries[prov])
    used = {HOUSE: 0, EMISSARY: 0, FORTRESS: 0}
    new_houses: set[int] = set()
    new_forts: set[int] = set()
    left = {HOUSE: state.houses_left[p], EMISSARY: state.emissaries_left[p], FORTRESS: state.fortresses_left[p]}
    pname = board.provinces[prov].label
    for pl in move.placements:
        if pl.kind == FORTRESS and not state.rules.fortress:
            out.append(_v("fortress.not_in_play", "Fortresses are only used in the fortress variant.", "只有堡垒变体规则才使用堡垒。",
                          (pl.space,), ("Take the fortress off the board.", "把堡垒从版图上拿走。")))
            continue
        if used[pl.kind] + 1 > left[pl.kind]:
            out.append(_v("supply.empty", f"No {pl.kind} left in the supply.", f"库存中已经没有{_kind_zh(pl.kind)}了。",
                          (pl.space,), (f"Take the {pl.kind} off {pl.space}.", f"从 {pl.space} 拿走这个{_kind_zh(pl.kind)}。")))
            continue
        used[pl.kind] += 1
        if pl.kind == HOUSE:
            s = board.site_index[pl.space]
            if state.site_owner[s] >= 0 or s in new_houses:
                out.append(_v("house.site_taken", f"{pl.space} already holds a house; one house per site.",
                              f"{pl.space} 已经有房屋了；每个位置只能有一座房屋。", (pl.space,),
                              (f"Move the new house off {pl.space} to a free site.", f"把新房屋从 {pl.space} 移到空的位置。")))
                continue
            new_houses.add(s)
            houses[p] += 1
        elif pl.kind == FORTRESS:
            s = board.site_index[pl.space]
            if state.site_owner[s] >= 0 or state.site_fortress[s] or s in new_houses or s in new_forts:
                out.append(_v("fortress.site_taken", f"A fortress goes on an empty house site; {pl.space} is not empty.",
                              f"堡垒只能放在空的房屋位置上；{pl.space} 不是空的。", (pl.space,),
                              (f"Move the fortress off {pl.space} to an empty site.", f"把堡垒从 {pl.space} 移到空的位置。")))
                continue
            new_forts.add(s)
        else:
            cap = max(houses)
            if emissaries + 1 > cap:
                out.append(
                    _v(
                        "emissary.cap",
                        f"{pname.en} may hold at most {cap} emissaries (the most houses any one player has there); this would be {emissaries + 1}.",
                        f"{pname.zh}最多只能有 {cap} 个使臣（等于单个玩家在该国拥有的最多房屋数）；这将是第 {emissaries + 1} 个。",
                        (pl.space,),
                        (f"Take the emissary off {pl.space}.", f"从 {pl.space} 拿走这个使臣。"),
                    )
                )
                continue
            emissaries += 1
    return out


def _payment(state: ChinaState, move: Place, prov: int) -> list[Violation]:
    colour = state.board.provinces[prov].colour
    out: list[Violation] = []
    if move.cards is None:
        if state.rules.track_cards:
            out.append(_v("cards.required", "This game tracks cards: the move must say which cards were played.",
                          "本局记录了卡牌：行动必须说明打出了哪些牌。"))
        return out
    if not cardlib.payment_ok(move.cards, colour, len(move.placements)):
        played = ", ".join(move.cards) or "none"
        played_zh = "、".join(CARD_COLOUR_ZH.get(c, c) for c in move.cards) or "无"
        out.append(
            _v(
                "cards.payment",
                f"Cards {played} do not pay for {len(move.placements)} piece(s) in a {colour} province: each piece needs one {colour} card or a pair of equal cards of another colour.",
                f"牌 {played_zh} 不能支付{CARD_COLOUR_ZH[colour]}色国的 {len(move.placements)} 个棋子：每个棋子需要一张{CARD_COLOUR_ZH[colour]}色牌，或两张相同的其他颜色牌。",
                tuple(pl.space for pl in move.placements),
                ("Take back the pieces the cards do not pay for, or play the right cards.", "收回牌不足以支付的棋子，或打出正确的牌。"),
            )
        )
        return out
    if state.rules.track_cards and state.cards is not None:
        hand = state.cards.hands[state.active]
        if not cardlib.hand_has(hand, move.cards):
            out.append(_v("cards.not_in_hand", f"The hand ({', '.join(hand)}) does not hold {', '.join(move.cards)}.",
                          f"手牌（{'、'.join(hand)}）中没有 {'、'.join(move.cards)}。"))
            return out
        if move.draws is None:
            out.append(_v("cards.draws_required", "This game tracks cards: the move must say where the refill came from.",
                          "本局记录了卡牌：行动必须说明补牌来自哪里。"))
            return out
        _, why = cardlib.play_and_draw(state.cards, state.active, move.cards, move.draws)
        if why:
            out.append(_v("cards.draws", f"Refilling the hand: {why}.", f"补牌错误：{why}。"))
    return out


def _exchange(state: ChinaState, move: Exchange) -> list[Violation]:
    out = _turn(state, move.player)
    if out:
        return out
    if state.rules.track_cards and state.cards is not None:
        if move.discard is None or move.take is None:
            return [_v("cards.required", "This game tracks cards: an exchange must name the card discarded and where the new one came from.",
                       "本局记录了卡牌：换牌必须说明弃掉的牌和新牌的来源。")]
        _, why = cardlib.exchange(state.cards, state.active, move.discard, move.take)
        if why:
            out.append(_v("exchange.invalid", f"Exchange not possible: {why}.", f"不能换牌：{why}。"))
    return out


def _declare(state: ChinaState) -> list[Violation]:
    if state.rules.track_cards:
        return [_v("declare.tracked", "Cards are tracked in this game: the referee sees the pile run out by itself.",
                   "本局记录了卡牌：裁判会自动发现牌堆用完。")]
    if state.end_triggered:
        return [_v("declare.twice", "The end of the game was already triggered.", "游戏结束已经被触发过了。")]
    return []


def _pass(state: ChinaState, move: Pass) -> list[Violation]:
    out = _turn(state, move.player)
    if out or not (state.rules.track_cards and state.cards is not None):
        return out  # untracked: a declared pass cannot be checked
    cs = state.cards
    if cs.hands[state.active] and (cs.pile or any(c is not None for c in cs.display)):
        return [_v("pass.not_allowed", "You can still exchange a card, so you cannot pass.", "你还可以换牌，所以不能跳过。")]
    from scorer.games.china.engine import payment_options, placement_options

    hand = cs.hands[state.active]
    for placements, colour in placement_options(state):
        if payment_options(hand, colour, len(placements)):
            return [_v("pass.not_allowed", "You can still place a piece with your cards, so you cannot pass.",
                       "你的手牌还可以放置棋子，所以不能跳过。")]
    return []
