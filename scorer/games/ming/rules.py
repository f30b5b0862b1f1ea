"""Legality of Ming moves: every rule a move breaks, as bilingual ``Violation`` values.

Checked in a fixed order (boardgame.io style): game over, phase (is this kind of move expected
now), whose turn, shape of the move, then the rules in the order the table plays them. Rule ids are
stable: the dashboard and docs/ming.md refer to them.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from scorer.core.types import Colour, Message, SpaceId, Violation
from scorer.games.ming import scoring
from scorer.games.ming.board import cloister_space, city_space, province_space
from scorer.games.ming.moves import (
    NEUTRAL,
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
    HAND_LIMIT,
    MAX_DEPLOY,
    NEUTRAL_MAX_PER_DISTRICT,
    PH_CARDS,
    PH_MOVE,
    PH_NEUTRAL,
    PH_OVER,
    PH_PRINCES,
    PH_ROUND_END,
    PH_SCORING,
    PH_SPACES,
    ST_COMMIT,
    ST_NEUTRAL,
    ST_NEUTRAL_FIRST,
    UNKNOWN,
    Hand,
    MingState,
)


def _v(rule: str, en: str, zh: str, spaces: tuple[str, ...] = (), fix: tuple[str, str] | None = None) -> Violation:
    return Violation(rule, Message(en, zh), tuple(SpaceId(s) for s in spaces), Message(*fix) if fix else None)


@lru_cache(maxsize=64)
def player_label(player: str) -> tuple[str, str]:
    try:
        c = Colour(player)
        return c.value, c.zh + "方"
    except ValueError:
        return player, player


PHASE_LABEL = {
    PH_PRINCES: ("placing the princes", "放置太子"),
    PH_NEUTRAL: ("placing neutral family members", "放置中立皇亲"),
    PH_SPACES: ("phase 1, placing family members on province spaces", "阶段1：在省份区域放置皇亲"),
    PH_CARDS: ("phase 2, taking movement cards", "阶段2：选择移动牌"),
    PH_MOVE: ("phase 3, moving princes and deploying", "阶段3：移动太子并部署皇亲"),
    PH_SCORING: ("phase 4, scoring", "阶段4：计分"),
    PH_ROUND_END: ("phase 5, choosing the start player", "阶段5：选择起始游戏者"),
    PH_OVER: ("the end of the game", "游戏结束"),
}

MOVE_LABEL = {
    PlacePrince: ("placing a prince", "放置太子"),
    PlaceNeutral: ("placing a neutral family member", "放置中立皇亲"),
    PlaceFamily: ("placing a family member on a province space", "在省份区域放置皇亲"),
    TakeCard: ("taking a display card", "拿取牌列中的移动牌"),
    TakeDragon: ("taking a dragon card", "拿取龙牌"),
    MovePrince: ("moving a prince", "移动太子"),
    Stay: ("keeping the prince in place", "太子留在原地"),
    Pass: ("passing", "放弃行动"),
    ReturnCards: ("return cards", "返回牌"),
    SendBack: ("sending family members back from the city", "从城市遣返皇亲"),
    ChooseStartPlayer: ("choosing the start player", "选择起始游戏者"),
}


def expected_moves(state: MingState) -> tuple[type, ...]:
    phase = state.phase
    if phase == PH_PRINCES:
        return (PlacePrince,)
    if phase == PH_NEUTRAL:
        return (PlaceNeutral,)
    if phase == PH_SPACES:
        return (PlaceFamily,)
    if phase == PH_CARDS:
        return (TakeCard, TakeDragon)
    if phase == PH_MOVE:
        return (MovePrince, Stay, Pass)
    if phase == PH_SCORING and state.scoring is not None:
        return (ReturnCards,) if state.scoring.stage == ST_COMMIT else (SendBack,)
    if phase == PH_ROUND_END:
        return (ChooseStartPlayer,)
    return ()


def violations(state: MingState, move: MingMove) -> tuple[Violation, ...]:
    if state.finished or state.phase == PH_OVER:
        return (_v("game.over", "The game is over.", "游戏已经结束。"),)
    handler = _HANDLERS.get(type(move))
    if handler is None:
        return (_v("move.unknown", f"Unknown move {move!r}.", f"未知的行动 {move!r}。"),)
    allowed = expected_moves(state)
    if type(move) not in allowed:
        men, mzh = MOVE_LABEL[type(move)]
        pen, pzh = PHASE_LABEL.get(state.phase, (state.phase, state.phase))
        wanted_en = " or ".join(MOVE_LABEL[t][0] for t in allowed) or "nothing"
        wanted_zh = "或".join(MOVE_LABEL[t][1] for t in allowed) or "无"
        return (_v("phase.wrong_move", f"{men.capitalize()} is not possible during {pen}; expected {wanted_en}.",
                   f"在{pzh}期间不能{mzh}；现在应该{wanted_zh}。",
                   fix=("Undo it and follow the current phase.", "请撤回，按当前阶段进行。")),)
    p = state.player_index(move.player)
    if p < 0:
        en, zh = player_label(move.player)
        return (_v("turn.unknown_player", f"{en} is not playing at this table.", f"{zh}不在本局游戏中。"),)
    turn = _turn(state, p, move)
    if turn:
        return tuple(turn)
    return tuple(handler(state, p, move))


# -- whose turn ---------------------------------------------------------------------------------

def _turn(state: MingState, p: int, move: MingMove) -> list[Violation]:
    en, zh = player_label(state.players[p])
    if state.phase == PH_SCORING and state.scoring is not None and state.scoring.stage == ST_COMMIT:
        sc = state.scoring
        if p not in sc.committers:
            return [_v("returns.not_in_city", f"{en} has no family members in this city and plays no return cards.",
                       f"{zh}在这个城市里没有皇亲，不用出返回牌。", fix=(f"{en}: take your return cards back.", f"{zh}：请收回返回牌。"))]
        if sc.commits[p] >= 0:
            return [_v("returns.already_committed", f"{en} has already put down return cards for this city.",
                       f"{zh}已经为这个城市放下了返回牌。")]
        return []
    if state.phase == PH_SCORING and state.scoring is not None:
        want = state.scoring.chooser
    elif state.phase == PH_ROUND_END:
        want = state.chooser
    else:
        want = state.active
    if p == want:
        return []
    if state.phase == PH_CARDS and state.hands[p].total >= HAND_LIMIT:
        return [_v("cards.hand_limit", f"{en} already holds {HAND_LIMIT} cards: the hand limit is {HAND_LIMIT}.",
                   f"{zh}手里已经有 {HAND_LIMIT} 张牌：手牌上限是 {HAND_LIMIT} 张。",
                   fix=(f"{en}: put the card back.", f"{zh}：请把牌放回去。"))]
    if state.phase == PH_MOVE and state.passed and state.passed[p]:
        return [_v("turn.passed", f"{en} has passed and takes no further part in this phase.",
                   f"{zh}已经放弃行动，不再参与本阶段。", fix=(f"{en}: undo the change.", f"{zh}：请撤回刚才的改动。"))]
    aen, azh = player_label(state.players[want]) if want >= 0 else ("nobody", "无人")
    return [_v("turn.not_your_turn", f"It is {aen}'s turn, not {en}'s.", f"现在轮到{azh}，不是{zh}。",
               fix=(f"{en}: undo the change and wait for your turn.", f"{zh}：请撤回改动，等待你的回合。"))]


# -- set-up and phase 1 -------------------------------------------------------------------------

def _district(state: MingState, name: str) -> tuple[int | None, list[Violation]]:
    d = state.board.district_index.get(name)
    if d is None:
        return None, [_v("board.unknown_district", f"{name} is not a district of board {state.board.id}.",
                         f"{name} 不是版图 {state.board.id} 上的地区。", (name,))]
    return d, []


def _province(state: MingState, name: str) -> tuple[int | None, list[Violation]]:
    i = state.board.province_index.get(name)
    if i is None:
        return None, [_v("board.unknown_province", f"{name} is not a province of board {state.board.id}.",
                         f"{name} 不是版图 {state.board.id} 上的省份。")]
    return i, []


def _place_prince(state: MingState, p: int, move: PlacePrince) -> list[Violation]:
    d, out = _district(state, move.district)
    if d is None:
        return out
    for q, at in enumerate(state.princes):
        if at == d and q != p:
            qen, qzh = player_label(state.players[q])
            return [_v("prince.occupied", f"{move.district} already holds {qen}'s prince; each prince starts in a district no other prince occupies.",
                       f"{move.district} 已经有{qzh}的太子；每个太子必须放在没有其他太子的地区。", (move.district,),
                       ("Put your prince into another district.", "请把太子放到另一个地区。"))]
    return []


def _place_neutral(state: MingState, p: int, move: PlaceNeutral) -> list[Violation]:
    d, out = _district(state, move.district)
    if d is None:
        return out
    if state.open[d][state.neutral] >= NEUTRAL_MAX_PER_DISTRICT:
        return [_v("neutral.max_three", f"{move.district} already holds {NEUTRAL_MAX_PER_DISTRICT} neutral family members, the most a district may hold.",
                   f"{move.district} 已经有 {NEUTRAL_MAX_PER_DISTRICT} 个中立皇亲，这是一个地区的上限。", (move.district,),
                   ("Put the neutral family member into another district.", "请把中立皇亲放到另一个地区。"))]
    return []


def _place_family(state: MingState, p: int, move: PlaceFamily) -> list[Violation]:
    i, out = _province(state, move.province)
    if i is None:
        return out
    if state.in_hand[p] <= 0:
        return [_v("spaces.none_in_hand", "All 5 family members of this round are already placed.", "本轮的 5 个皇亲已经全部放好了。")]
    return []


# -- phase 2 ------------------------------------------------------------------------------------

def _known_out(state: MingState, kind: int) -> int:
    """Cards of a symbol certainly outside the supply and discard pile: in hands or on display."""
    return sum(h.lb[kind] for h in state.hands) + sum(1 for s in state.display if s == kind)


def _take_card(state: MingState, p: int, move: TakeCard) -> list[Violation]:
    board = state.board
    i, out = _province(state, move.province)
    if i is None:
        return out
    space = province_space(move.province)
    en, zh = player_label(state.players[p])
    if state.hands[p].total >= HAND_LIMIT:
        return [_v("cards.hand_limit", f"{en} already holds {HAND_LIMIT} cards.", f"{zh}手里已经有 {HAND_LIMIT} 张牌。")]
    if state.spaces[i][p] <= 0:
        return [_v("cards.no_family_member", f"{en} has no family member on {space}, so may not take the card next to it.",
                   f"{zh}在 {space} 上没有皇亲，所以不能拿它旁边的牌。", (space,),
                   ("Take a card next to a province space where you have a family member, or a dragon card.",
                    "请拿你有皇亲的省份区域旁边的牌，或者拿一张龙牌。"))]
    for field_name, value in (("symbol", move.symbol), ("refill", move.refill)):
        if value is not None and value not in board.symbol_index:
            return [_v("cards.unknown_symbol", f"{value!r} ({field_name}) is not a transport symbol of this game ({', '.join(board.symbols)}).",
                       f"{value!r}（{field_name}）不是本游戏的交通图案（{', '.join(board.symbols)}）。")]
    shown = state.display[i]
    taken = board.symbol_index[move.symbol] if move.symbol is not None else shown
    if move.symbol is not None and shown != UNKNOWN and taken != shown:
        return [_v("cards.display_mismatch",
                   f"The card next to {space} shows {board.symbol_label(shown).en}, not {move.symbol}.",
                   f"{space} 旁边的牌是{board.symbol_label(shown).zh}，不是{board.symbol_label(taken).zh}。", (space,),
                   ("Declare the card you really took.", "请声明你实际拿到的牌。"))]
    if state.rules.cards_required:
        if taken == UNKNOWN:
            out.append(_v("cards.required", "This game tracks every card: say which card was taken.", "本局记录所有卡牌：请说明拿的是哪张牌。"))
        if move.refill is None:
            out.append(_v("cards.required", "This game tracks every card: say which card was turned up to refill the display.",
                          "本局记录所有卡牌：请说明翻开补充牌列的是哪张牌。"))
        if out:
            return out
    # declared symbols may not exceed the deck
    after: Counter[int] = Counter()
    if taken != UNKNOWN and shown == UNKNOWN:
        after[taken] += 1
    if move.refill is not None:
        after[board.symbol_index[move.refill]] += 1
    for kind, extra in after.items():
        if _known_out(state, kind) + extra > board.deck[kind]:
            label = board.symbol_label(kind)
            out.append(_v("cards.too_many", f"There are only {board.deck[kind]} {label.en} cards, and all are already in hands or on display.",
                          f"{label.zh}牌一共只有 {board.deck[kind]} 张，已经全部在手牌或牌列中。", (space,),
                          ("Check the card and declare it again.", "请检查这张牌并重新声明。")))
    return out


def _take_dragon(state: MingState, p: int, move: TakeDragon) -> list[Violation]:
    i, out = _province(state, move.province)
    if i is None:
        return out
    space = province_space(move.province)
    en, zh = player_label(state.players[p])
    if state.hands[p].total >= HAND_LIMIT:
        return [_v("cards.hand_limit", f"{en} already holds {HAND_LIMIT} cards.", f"{zh}手里已经有 {HAND_LIMIT} 张牌。")]
    owner = p if move.owner is None else state.player_index(move.owner)
    if owner < 0:
        return [_v("dragon.unknown_owner", f"{move.owner!r} is not a player at this table.", f"{move.owner!r} 不是本局的玩家。")]
    if owner != p and not state.rules.dragon_any_member:
        oen, ozh = player_label(state.players[owner])
        return [_v("dragon.own_member_only", f"A dragon card costs one of {en}'s own family members, not {oen}'s.",
                   f"龙牌的代价是{zh}自己的一个皇亲，不是{ozh}的。", (space,),
                   (f"Put {oen}'s family member back and remove one of your own.", f"请放回{ozh}的皇亲，移走你自己的一个。"))]
    if state.spaces[i][owner] <= 0:
        oen, ozh = player_label(state.players[owner])
        return [_v("dragon.no_family_member", f"{oen} has no family member on {space} to pay for the dragon card.",
                   f"{ozh}在 {space} 上没有皇亲来支付龙牌。", (space,),
                   ("Remove a family member from a province space where you have one.", "请从你有皇亲的省份区域移走一个皇亲。"))]
    if state.dragon_supply()[1] <= 0:
        return [_v("dragon.supply_empty", "The dragon supply is empty.", "龙牌堆已经没有牌了。",
                   fix=("Take a display card instead.", "请改拿牌列中的移动牌。"))]
    return []


# -- phase 3 ------------------------------------------------------------------------------------

def _deploy_shape(deploy: int, cloister: bool) -> list[Violation]:
    if not 0 <= deploy <= MAX_DEPLOY:
        return [_v("deploy.max_three", f"At most {MAX_DEPLOY} family members are deployed per turn, not {deploy}.",
                   f"每回合最多部署 {MAX_DEPLOY} 个皇亲，不能部署 {deploy} 个。",
                   fix=(f"Take {deploy - MAX_DEPLOY} back to the province space.", f"请把 {deploy - MAX_DEPLOY} 个放回省份区域。") if deploy > MAX_DEPLOY else None)]
    if cloister and deploy < 1:
        return [_v("deploy.cloister_needs_member", "Only one of the family members deployed this turn can go into the cloister.",
                   "只有本回合部署的皇亲才能放进庙宇。")]
    return []


def _deploy(state: MingState, p: int, district: int, deploy: int, cloister: bool) -> list[Violation]:
    board = state.board
    name = board.districts[district]
    prov = board.district_province[district]
    space = province_space(board.provinces[prov].id)
    en, zh = player_label(state.players[p])
    out: list[Violation] = []
    if deploy == 0:
        return out
    if state.cloister[district] == p:
        return [_v("deploy.cloister_lock", f"{en} has a family member in the cloister of {name}, so may deploy no more family members there.",
                   f"{zh}在 {name} 的庙宇里有皇亲，所以不能再向这个地区部署皇亲。", (name, cloister_space(name)),
                   (f"Take the family members back to {space}.", f"请把皇亲放回 {space}。"))]
    have = state.spaces[prov][p]
    if have < deploy:
        return [_v("deploy.not_on_space", f"{en} has {have} family member(s) on {space}, the space of the province the prince stands in, and deployed {deploy}.",
                   f"{zh}在太子所在省份的 {space} 上只有 {have} 个皇亲，却部署了 {deploy} 个。", (name, space),
                   (f"Take {deploy - have} family member(s) back off {name}.", f"请从 {name} 拿回 {deploy - have} 个皇亲。"))]
    return out


def _pay(state: MingState, p: int, cards: tuple[str, ...]) -> tuple[Hand | None, list[Violation], int]:
    """Remove declared cards from the known hand; (hand after, violations, cards not verifiable)."""
    board = state.board
    hand = state.hands[p]
    lb = list(hand.lb)
    total = hand.total
    unverified = 0
    en, zh = player_label(state.players[p])
    for c in cards:
        k = board.kind_index(c)
        if k is None:
            return None, [_v("cards.unknown_symbol", f"{c!r} is not a card of this game ({', '.join(board.kinds)}).",
                             f"{c!r} 不是本游戏的牌（{', '.join(board.kinds)}）。")], 0
        free = total - sum(lb)
        if lb[k] > 0:
            lb[k] -= 1
        elif free > 0 and (k != board.dragon_kind or hand.may_dragon):
            unverified += 1
        else:
            label = board.symbol_label(k)
            return None, [_v("cards.not_in_hand", f"{en}'s hand does not hold a {label.en} card to play.",
                             f"{zh}手里没有可以打出的{label.zh}牌。", fix=("Play cards you hold.", "请打出你手里有的牌。"))], 0
        total -= 1
    return Hand(total, tuple(lb), hand.may_dragon), [], unverified


def _move_prince(state: MingState, p: int, move: MovePrince) -> list[Violation]:
    board = state.board
    en, zh = player_label(state.players[p])
    shape = _deploy_shape(move.deploy, move.cloister)
    if shape:
        return shape
    if not move.path:
        return [_v("move.no_steps", "A move takes at least one step; to keep the prince in place, stay instead.",
                   "移动至少要走一步；如果太子不动，请选择留在原地。")]
    if move.cards is not None and len(move.cards) != len(move.path):
        return [_v("cards.count", f"A move of {len(move.path)} step(s) is paid with exactly {len(move.path)} card(s), not {len(move.cards)}.",
                   f"走 {len(move.path)} 步必须正好打出 {len(move.path)} 张牌，而不是 {len(move.cards)} 张。",
                   fix=("Play one card per border crossed.", "每越过一道边界打出一张牌。"))]
    steps: list[int] = []
    for name in move.path:
        d, out = _district(state, name)
        if d is None:
            return out
        steps.append(d)
    here = state.princes[p]
    start = here
    for i, d in enumerate(steps):
        if d not in board.neighbours[here]:
            a, b = board.districts[here], board.districts[d]
            return [_v("move.not_adjacent", f"Step {i + 1}: {a} and {b} do not share a border.",
                       f"第 {i + 1} 步：{a} 和 {b} 没有共同边界。", (a, b),
                       (f"Move the prince back to {board.districts[start]} and move it across borders one district at a time.",
                        f"请把太子放回 {board.districts[start]}，一次跨过一道边界移动。"))]
        here = d
    if state.rules.no_revisit:
        visited = [start] + steps
        if len(set(visited)) != len(visited):
            return [_v("move.revisit", "With the no_revisit option a prince may not enter a district twice or come back to where it started.",
                       "在 no_revisit 选项下，太子不能两次进入同一地区，也不能回到出发地。", tuple(board.districts[d] for d in steps),
                       ("Choose a path without repeats, or stay.", "请选择不重复的路线，或留在原地。"))]
    end = steps[-1]
    for q, at in enumerate(state.princes):
        if q != p and at == end:
            qen, qzh = player_label(state.players[q])
            return [_v("move.ends_on_prince", f"{board.districts[end]} holds {qen}'s prince: a prince may pass through it but not end its move there.",
                       f"{board.districts[end]} 有{qzh}的太子：可以经过，但不能在那里结束移动。", (board.districts[end],),
                       ("Move on to another district (one more card) or stop before it.", "请继续移动到另一个地区（再打一张牌），或在它之前停下。"))]
    out: list[Violation] = []
    if move.cards is None:
        if state.rules.cards_required:
            return [_v("cards.required", "This game tracks every card: say which cards paid for the move.", "本局记录所有卡牌：请说明用哪些牌支付了移动。")]
        if state.hands[p].total < len(steps):
            return [_v("cards.not_enough", f"{en} holds {state.hands[p].total} card(s) and cannot pay for {len(steps)} step(s).",
                       f"{zh}手里只有 {state.hands[p].total} 张牌，付不起 {len(steps)} 步。", (board.districts[end],),
                       (f"Move the prince back to {board.districts[start]}.", f"请把太子放回 {board.districts[start]}。"))]
    else:
        prev = start
        for i, (d, c) in enumerate(zip(steps, move.cards)):
            k = board.kind_index(c)
            if k is None:
                return [_v("cards.unknown_symbol", f"{c!r} is not a card of this game ({', '.join(board.kinds)}).",
                           f"{c!r} 不是本游戏的牌（{', '.join(board.kinds)}）。")]
            allowed = board.border_symbols[(prev, d)]
            if k != board.dragon_kind and k not in allowed:
                a, b = board.districts[prev], board.districts[d]
                shown = " / ".join(board.symbols[s] for s in sorted(allowed))
                shown_zh = "／".join(board.symbol_names[s].zh for s in sorted(allowed))
                out.append(_v("cards.wrong_symbol", f"Step {i + 1} ({a} to {b}) crosses a {shown} border; a {c} card does not pay for it (a matching card or a dragon does).",
                              f"第 {i + 1} 步（{a} 到 {b}）跨越的边界是{shown_zh}；{board.symbol_label(k).zh}牌不能支付（需要相同图案的牌或龙牌）。",
                              (a, b), ("Play a card with the border's symbol or a dragon.", "请打出与边界图案相同的牌或龙牌。")))
            prev = d
        if out:
            return out
        _, why, _ = _pay(state, p, move.cards)
        if why:
            return why
    return _deploy(state, p, end, move.deploy, move.cloister)


def _stay(state: MingState, p: int, move: Stay) -> list[Violation]:
    en, zh = player_label(state.players[p])
    shape = _deploy_shape(move.deploy, move.cloister)
    if shape:
        return shape
    if move.card is None:
        if state.rules.cards_required:
            return [_v("cards.required", "This game tracks every card: say which card was discarded.", "本局记录所有卡牌：请说明弃掉了哪张牌。")]
        if state.hands[p].total < 1:
            return [_v("cards.not_enough", f"{en} has no card to discard; staying costs one card.", f"{zh}没有牌可弃；留在原地需要弃一张牌。",
                       fix=("Pass instead.", "请改为放弃行动。"))]
    else:
        _, why, _ = _pay(state, p, (move.card,))
        if why:
            return why
    return _deploy(state, p, state.princes[p], move.deploy, move.cloister)


def _pass(state: MingState, p: int, move: Pass) -> list[Violation]:
    return []


# -- phase 4 ------------------------------------------------------------------------------------

def _return_cards(state: MingState, p: int, move: ReturnCards) -> list[Violation]:
    en, zh = player_label(state.players[p])
    values = state.rules.return_values
    if (move.cards is None) == (move.total is None):
        return [_v("returns.shape", "Give either the return cards played or their total, not both and not neither.",
                   "请给出打出的返回牌或其总数，二者选一。")]
    if move.cards is not None:
        if not move.cards:
            return [_v("returns.at_least_one", "Put down at least one return card.", "至少要放下一张返回牌。")]
        missing = Counter(move.cards) - Counter(values)
        if missing:
            return [_v("returns.not_your_cards", f"{en}'s return cards are {', '.join(map(str, values))}; {', '.join(map(str, sorted(missing.elements())))} is not among them (each card once).",
                       f"{zh}的返回牌是 {', '.join(map(str, values))}；其中没有 {', '.join(map(str, sorted(missing.elements())))}（每张只能用一次）。",
                       fix=("Put down cards you have.", "请放下你拥有的返回牌。"))]
        total = sum(move.cards)
    else:
        total = int(move.total)  # type: ignore[arg-type]
        if total not in scoring.achievable_totals(values):
            return [_v("returns.impossible_total", f"No set of 1 or more return cards ({', '.join(map(str, values))}) adds up to {total}.",
                       f"用 1 张或更多返回牌（{', '.join(map(str, values))}）凑不出 {total}。",
                       fix=("Declare the total of the cards really put down.", "请声明实际放下的牌的总数。"))]
    if state.rules.strict_return_total and state.scoring is not None:
        have = state.city_in_province(state.scoring.province)[p]
        if total > have:
            return [_v("returns.more_than_in_city", f"{en} returns {total} but has only {have} family member(s) in this city (strict_return_total).",
                       f"{zh}要遣返 {total} 个，但在这个城市里只有 {have} 个皇亲（strict_return_total）。")]
    return []


def _send_back(state: MingState, p: int, move: SendBack) -> list[Violation]:
    board = state.board
    sc = state.scoring
    assert sc is not None
    en, zh = player_label(state.players[p])
    if move.owner is None or move.owner == state.players[p]:
        owner = p
    elif move.owner == NEUTRAL and state.two_player:
        owner = state.neutral
    else:
        return [_v("sendback.wrong_owner", f"{en} may only send back his own family members here.", f"{zh}在这里只能遣返自己的皇亲。")]
    if sc.stage in (ST_NEUTRAL, ST_NEUTRAL_FIRST) and owner != state.neutral:
        return [_v("sendback.wrong_owner", "Now the start player trims the neutral colour: send back neutral family members.",
                   "现在由起始游戏者削减中立方：请遣返中立皇亲。")]
    if sc.stage not in (ST_NEUTRAL, ST_NEUTRAL_FIRST) and owner == state.neutral:
        return [_v("sendback.wrong_owner", "The neutral colour is dealt with after the players' returns.", "中立方在玩家遣返之后处理。")]
    want = sc.to_send[owner]
    if len(move.districts) != want:
        return [_v("sendback.count", f"{want} family member(s) go back from this city, not {len(move.districts)}.",
                   f"应从这个城市遣返 {want} 个皇亲，而不是 {len(move.districts)} 个。")]
    prov_districts = board.province_districts[sc.province]
    need: Counter[int] = Counter()
    for name in move.districts:
        d, out = _district(state, name)
        if d is None:
            return out
        if d not in prov_districts:
            return [_v("sendback.wrong_province", f"{name} is not a district of the province being scored.",
                       f"{name} 不是正在计分的省份的地区。", (city_space(name),))]
        need[d] += 1
    for d, k in need.items():
        if state.city[d][owner] < k:
            return [_v("sendback.not_there", f"Only {state.city[d][owner]} of those family members sit in the city area of {board.districts[d]}.",
                       f"{board.districts[d]} 的城市部分只有 {state.city[d][owner]} 个这样的皇亲。", (city_space(board.districts[d]),))]
    return []


# -- phase 5 ------------------------------------------------------------------------------------

def _choose_start(state: MingState, p: int, move: ChooseStartPlayer) -> list[Violation]:
    if state.player_index(move.start) < 0:
        return [_v("start.unknown_player", f"{move.start!r} is not a player at this table.", f"{move.start!r} 不是本局的玩家。")]
    return []


_HANDLERS = {
    PlacePrince: _place_prince,
    PlaceNeutral: _place_neutral,
    PlaceFamily: _place_family,
    TakeCard: _take_card,
    TakeDragon: _take_dragon,
    MovePrince: _move_prince,
    Stay: _stay,
    Pass: _pass,
    ReturnCards: _return_cards,
    SendBack: _send_back,
    ChooseStartPlayer: _choose_start,
}

__all__ = ["violations", "expected_moves", "player_label", "PHASE_LABEL", "MOVE_LABEL"]
