"""Legality of Zhang Yi moves: every rule a move breaks, as bilingual ``Violation`` values.

Checked in a fixed order (boardgame.io style): game over; whether this input is the one awaited
and from this player; the shape of the move (known areas, talents, states); then the rules.
Rule ids are stable: the dashboard and docs/zhang-yi.md refer to them.
"""

from __future__ import annotations

from scorer.core.types import Message, SpaceId, Violation
from scorer.games.zhang_yi.counters import representable
from scorer.games.zhang_yi.data import STATE_INDEX, STATES, TALENT_IDS, TALENT_INDEX, state_label, talent_label
from scorer.games.zhang_yi.flow import assassin_targets, attrition
from scorer.games.zhang_yi.moves import (
    SOURCES,
    Assassinate,
    DrawChit,
    DrawTalent,
    Hold,
    KeepDestiny,
    March,
    NotBacked,
    PlaceTalent,
    Recruit,
    Retreat,
    RevealDestiny,
    RollDie,
    ZhangYiMove,
)
from scorer.games.zhang_yi.state import (
    A_ASSASSIN,
    A_CHECK,
    A_CHIT,
    A_DIE,
    A_KEEP,
    A_MOVE,
    A_RECRUIT,
    A_RETREAT,
    A_REVEAL,
    A_TALENT_DRAW,
    A_TALENT_PLACE,
    POOL,
    ZhangYiState,
)

EXPECTED: dict[str, tuple[type, ...]] = {
    A_KEEP: (KeepDestiny,),
    A_TALENT_DRAW: (DrawTalent,),
    A_TALENT_PLACE: (PlaceTalent,),
    A_ASSASSIN: (Assassinate,),
    A_CHIT: (DrawChit,),
    A_RECRUIT: (Recruit,),
    A_MOVE: (March, Hold),
    A_DIE: (RollDie,),
    A_RETREAT: (Retreat,),
    A_CHECK: (RevealDestiny, NotBacked),
    A_REVEAL: (RevealDestiny,),
}

AWAITING_TEXT: dict[str, Message] = {
    A_KEEP: Message("each player to keep one of his two destiny chits", "每位玩家从两个天命条中保留一个"),
    A_TALENT_DRAW: Message("a talent draw", "抽取人才"),
    A_TALENT_PLACE: Message("the drawn talent to be placed", "放置抽到的人才"),
    A_ASSASSIN: Message("Jing Ke's target", "荆轲的刺杀目标"),
    A_CHIT: Message("an action chit draw", "抽取行动条"),
    A_RECRUIT: Message("the recruitment", "征兵"),
    A_MOVE: Message("a move (or hold)", "移动（或不移动）"),
    A_DIE: Message("the battle die", "战斗骰子"),
    A_RETREAT: Message("the retreat area", "撤退目的地"),
    A_CHECK: Message("whether anyone backs the annihilated state", "是否有人支持灭亡的诸侯"),
    A_REVEAL: Message("the destiny chits to be revealed", "公开天命条"),
    "none": Message("nothing (the game is over)", "无（游戏已结束）"),
}


def _v(rule: str, en: str, zh: str, spaces: tuple[str, ...] = (), fix: tuple[str, str] | None = None) -> Violation:
    return Violation(rule, Message(en, zh), tuple(SpaceId(s) for s in spaces), Message(*fix) if fix else None)


def _space(state: ZhangYiState, area: int) -> str:
    return state.map.areas[area].space_id


def violations(state: ZhangYiState, move: ZhangYiMove) -> tuple[Violation, ...]:
    if state.finished is not None:
        return (_v("game.over", "The game is over.", "游戏已经结束。"),)
    expected = EXPECTED.get(state.awaiting, ())
    if not isinstance(move, expected):
        want = AWAITING_TEXT.get(state.awaiting, Message(state.awaiting, state.awaiting))
        seeded = " This game draws chance from its seed; do not declare it." if state.rules.seeded and isinstance(move, (DrawTalent, DrawChit, RollDie)) else ""
        seeded_zh = "本局由种子决定随机结果，无需声明。" if seeded else ""
        return (_v("turn.wrong_input", f"The referee is waiting for {want.en}, not a {type(move).__name__} move.{seeded}",
                   f"裁判正在等待{want.zh}，而不是 {type(move).__name__} 行动。{seeded_zh}",
                   fix=(f"Give {want.en} first.", f"请先完成{want.zh}。")),)
    if not isinstance(move, NotBacked):
        found = _player(state, move.player)
        if found:
            return tuple(found)
    handler = _HANDLERS[type(move)]
    return tuple(handler(state, move))


def _player(state: ZhangYiState, player: str) -> list[Violation]:
    p = state.player_index(player)
    if p < 0:
        return [_v("turn.unknown_player", f"{player} is not playing at this table.", f"{player} 不在本局游戏中。")]
    if p not in state.actors:
        names = ", ".join(state.players[a] for a in state.actors)
        want = AWAITING_TEXT.get(state.awaiting, Message(state.awaiting, state.awaiting))
        return [_v("turn.not_your_turn", f"It is {names}'s input ({want.en}), not {player}'s.",
                   f"现在由 {names} 操作（{want.zh}），不是 {player}。",
                   fix=(f"{player}: wait; {names} gives {want.en}.", f"{player}：请等待，由 {names} 进行{want.zh}。"))]
    return []


def _source(source: str) -> list[Violation]:
    if source not in SOURCES:
        return [_v("input.source", f"Unknown input source {source!r}; known: {', '.join(SOURCES)}.",
                   f"未知的输入来源 {source!r}；可用：{', '.join(SOURCES)}。")]
    return []


def _area(state: ZhangYiState, ident: str, what: str) -> tuple[int, list[Violation]]:
    i = state.map.area_index.get(ident, -1)
    if i < 0:
        return -1, [_v("area.unknown", f"{ident} is not an area of map {state.map.id} ({what}).",
                       f"{ident} 不是地图 {state.map.id} 上的区域（{what}）。")]
    return i, []


def _state(ident: str) -> tuple[int, list[Violation]]:
    s = STATE_INDEX.get(ident, -1)
    if s < 0:
        return -1, [_v("state.unknown", f"{ident} is not one of the seven states ({', '.join(STATES)}).",
                       f"{ident} 不是七国之一（{', '.join(STATES)}）。")]
    return s, []


def _talent(ident: str) -> tuple[int, list[Violation]]:
    t = TALENT_INDEX.get(ident, -1)
    if t < 0:
        return -1, [_v("talent.unknown", f"{ident} is not a Zhang Yi talent.", f"{ident} 不是本游戏的人才。")]
    return t, []


# -- per move type -------------------------------------------------------------------------------

def _keep(state: ZhangYiState, move: KeepDestiny) -> list[Violation]:
    s, bad = _state(move.state)
    if bad:
        return bad
    p = state.player_index(move.player)
    if s not in state.dealt[p]:
        dealt = ", ".join(STATES[x] for x in state.dealt[p])
        return [_v("destiny.not_dealt", f"{move.player} was dealt {dealt}, not {move.state}.", f"{move.player} 抽到的是 {dealt}，不是 {move.state}。",
                   fix=(f"Keep one of {dealt}.", f"请从 {dealt} 中保留一个。"))]
    return []


def _draw_talent(state: ZhangYiState, move: DrawTalent) -> list[Violation]:
    out = _source(move.source)
    t, bad = _talent(move.talent)
    if bad:
        return out + bad
    if state.talent_loc[t] != POOL:
        name = talent_label(move.talent)
        out.append(_v("talent.not_in_pool", f"{name.en} is not in the talent pool (already drawn, on the map or in the graveyard).",
                      f"{name.zh}不在未使用人才堆中（已被抽出、在地图上或在墓地）。",
                      fix=("Check the talent that was drawn and declare it again.", "请核对抽到的人才并重新声明。")))
    return out


def _place_talent(state: ZhangYiState, move: PlaceTalent) -> list[Violation]:
    t, bad = _talent(move.talent)
    if bad:
        return bad
    if t != state.held:
        held = TALENT_IDS[state.held] if state.held >= 0 else "none"
        return [_v("talent.not_drawn", f"The talent waiting to be placed is {held}, not {move.talent}.",
                   f"等待放置的人才是 {held}，不是 {move.talent}。")]
    a, bad = _area(state, move.area, "talent placement")
    if bad:
        return bad
    s = state.map.talent_state[t]
    if state.owner[a] != s:
        name, sl = talent_label(move.talent), state_label(STATES[s])
        own = ", ".join(state.map.areas[i].id for i in state.areas_of(s))
        return [_v("talent.own_territory", f"{name.en} must go into an area of {sl.en} (one of: {own}).",
                   f"{name.zh}必须放在{sl.zh}的领土上（{own} 之一）。", (_space(state, a),),
                   (f"Move {name.en} to one of: {own}.", f"把{name.zh}移到以下区域之一：{own}。"))]
    return []


def _assassinate(state: ZhangYiState, move: Assassinate) -> list[Violation]:
    t, bad = _talent(move.target)
    if bad:
        return bad
    targets = assassin_targets(state)
    if t not in targets:
        names = ", ".join(TALENT_IDS[x] for x in targets)
        why = " (with assassin_spares_new, talents placed this phase are safe)" if state.rules.assassin_spares_new else ""
        why_zh = "（assassin_spares_new 选项下，本阶段放置的人才不能被刺杀）" if why else ""
        return [_v("assassin.target", f"Jing Ke can only kill a talent on the map{why}; {move.target} is not one. Targets: {names}.",
                   f"荆轲只能刺杀地图上的人才{why_zh}；{move.target} 不在其中。可选：{names}。",
                   fix=(f"Choose one of: {names}.", f"请从以下人才中选择：{names}。"))]
    return []


def _draw_chit(state: ZhangYiState, move: DrawChit) -> list[Violation]:
    out = _source(move.source)
    s, bad = _state(move.state)
    if bad:
        return out + bad
    if s not in state.cup:
        sl = state_label(move.state)
        left = ", ".join(STATES[c] for c in state.cup)
        out.append(_v("chit.not_in_cup", f"The chit of {sl.en} is not among the undrawn chits this turn (left: {left}).",
                      f"{sl.zh}的行动条不在本回合未抽的行动条中（剩余：{left}）。",
                      fix=("Check the chit that was drawn and declare it again.", "请核对抽到的行动条并重新声明。")))
    return out


def _recruit(state: ZhangYiState, move: Recruit) -> list[Violation]:
    s = state.active_state
    sl = state_label(STATES[s])
    out: list[Violation] = []
    added: dict[int, int] = {}
    for ident, n in move.placements:
        a, bad = _area(state, ident, "recruitment")
        if bad:
            return bad
        if n < 1:
            return [_v("recruit.shape", f"Each placement adds at least 1 strength ({ident}: {n}).", f"每处至少增加 1 兵力（{ident}：{n}）。")]
        added[a] = added.get(a, 0) + n
    foreign = [a for a in added if state.owner[a] != s]
    if foreign:
        names = ", ".join(state.map.areas[a].id for a in foreign)
        out.append(_v("recruit.own_territory", f"Recruits go only into {sl.en} territory; {names} is not.",
                      f"新兵只能放在{sl.zh}的领土上；{names} 不是。", tuple(_space(state, a) for a in foreign),
                      (f"Take the new strength off {names}.", f"从 {names} 拿走新增的兵力。")))
    total = sum(added.values())
    if total != state.recruit_due:
        power, ministers = state.power(s), state.ministers_on_map(s)
        out.append(_v("recruit.total",
                      f"{sl.en} must recruit exactly {state.recruit_due} (power {power} -> ceil({power}/3) = {(power + 2) // 3}, "
                      f"+{ministers} minister(s)); {total} were placed.",
                      f"{sl.zh}必须正好征兵 {state.recruit_due}（国力 {power} -> {power}/3 进位 = {(power + 2) // 3}，"
                      f"大臣 +{ministers}）；实际放了 {total}。",
                      tuple(_space(state, a) for a in added),
                      (f"Place exactly {state.recruit_due} new strength in {sl.en} territory.", f"请在{sl.zh}领土上正好放置 {state.recruit_due} 新兵力。")))
    if state.rules.recruit_one_area and len(added) > 1:
        out.append(_v("recruit.one_area", "With recruit_one_area, all recruits go into one area.", "在 recruit_one_area 规则下，所有新兵必须放在同一个区域。",
                      tuple(_space(state, a) for a in added)))
    mix = state.map.counters[s]
    if not out and state.rules.counter_limit and mix is not None:
        after = [state.strength[a] + added.get(a, 0) for a in state.areas_of(s)]
        if not representable(after, mix[0], mix[1]):
            out.append(_v("counters.limit", f"{sl.en}'s 8 army counters cannot show this distribution ({after}).",
                          f"{sl.zh}的 8 个军势单位无法表示这样的兵力分布（{after}）。"))
    return out


def _march(state: ZhangYiState, move: March) -> list[Violation]:
    s = state.active_state
    sl = state_label(STATES[s])
    o, bad = _area(state, move.origin, "origin")
    if bad:
        return bad
    d, bad = _area(state, move.dest, "destination")
    if bad:
        return bad
    talents = []
    for ident in move.talents:
        t, bad = _talent(ident)
        if bad:
            return bad
        talents.append(t)
    out: list[Violation] = []
    if state.owner[o] != s:
        return [_v("march.own_area", f"Only an area of the active state {sl.en} can move; {move.origin} is not one.",
                   f"只有行动中诸侯{sl.zh}的区域可以移动；{move.origin} 不是。", (_space(state, o),),
                   (f"Put the army back on {move.origin}.", f"请把军队放回 {move.origin}。"))]
    if o == d or not state.map.adjacent(o, d):
        near = ", ".join(state.map.areas[j].id for j, _ in state.map.neighbours[o])
        return [_v("march.adjacent", f"An army moves to one adjacent area; {move.dest} is not adjacent to {move.origin} (adjacent: {near}).",
                   f"军队只能移动到相邻的一个区域；{move.dest} 与 {move.origin} 不相邻（相邻：{near}）。",
                   (_space(state, o), _space(state, d)),
                   (f"Move the army back to {move.origin}.", f"请把军队放回 {move.origin}。"))]
    have = state.strength[o]
    if move.strength < 1 or move.strength > have - 1:
        if have <= 1:
            en, zh = f"{move.origin} has strength {have}: at least 1 must stay, so it cannot move.", f"{move.origin} 只有 {have} 兵力：至少留下 1，所以不能移动。"
        else:
            en, zh = (f"From {move.origin} (strength {have}) move 1 to {have - 1}: at least 1 must stay; {move.strength} was moved.",
                      f"从 {move.origin}（{have} 兵力）只能移动 1 到 {have - 1}：至少留下 1；实际移动了 {move.strength}。")
        out.append(_v("march.leave_one", en, zh, (_space(state, o), _space(state, d)),
                      (f"Leave at least 1 strength in {move.origin}.", f"请在 {move.origin} 至少留下 1 兵力。")))
    for t, ident in zip(talents, move.talents):
        if state.talent_loc[t] != o:
            name = talent_label(ident)
            out.append(_v("march.talent_not_there", f"{name.en} is not in {move.origin}; talents move only with the army they stand with.",
                          f"{name.zh}不在 {move.origin}；人才只能与所在区域的军队一起移动。", (_space(state, o),)))
    mix = state.map.counters[s]
    if not out and state.rules.counter_limit and mix is not None:
        after = [state.strength[a] - (move.strength if a == o else 0) for a in state.areas_of(s) if a != d]
        arrive = max(0, move.strength - attrition(state, o, d)) + (state.strength[d] if state.owner[d] == s else 0)
        if not representable(after + [arrive], mix[0], mix[1]):
            out.append(_v("counters.limit", f"{sl.en}'s 8 army counters cannot show the armies after this move.",
                          f"{sl.zh}的 8 个军势单位无法表示移动后的军队。", (_space(state, o), _space(state, d))))
    return out


def _hold(state: ZhangYiState, move: Hold) -> list[Violation]:
    return []


def _roll(state: ZhangYiState, move: RollDie) -> list[Violation]:
    out = _source(move.source)
    if not 1 <= move.value <= 6:
        out.append(_v("die.value", f"A die shows 1 to 6, not {move.value}.", f"骰子点数为 1 到 6，不是 {move.value}。"))
    return out


def _retreat(state: ZhangYiState, move: Retreat) -> list[Violation]:
    r = state.retreat
    assert r is not None
    names = ", ".join(state.map.areas[a].id for a in r.options)
    sl = state_label(STATES[r.state])
    if move.to is None:
        return [_v("retreat.required", f"The {sl.en} army has somewhere to retreat ({names}); name one area.",
                   f"{sl.zh}军有可撤退的区域（{names}）；请指定一个。")]
    a, bad = _area(state, move.to, "retreat")
    if bad:
        return bad
    if a not in r.options:
        return [_v("retreat.area", f"The {sl.en} army retreats, all together, to one adjacent area that is its own territory or neutral: {names}; not {move.to}.",
                   f"{sl.zh}军必须全部撤退到一个相邻的本国领土或中立区域：{names}；不能撤到 {move.to}。",
                   (_space(state, a), _space(state, r.area)),
                   (f"Move the army to one of: {names}.", f"请把军队移到以下区域之一：{names}。"))]
    return []


def _reveal(state: ZhangYiState, move: RevealDestiny) -> list[Violation]:
    s, bad = _state(move.state)
    if bad:
        return bad
    sl = state_label(move.state)
    p = state.player_index(move.player)
    if state.rules.seeded and state.kept[p] >= 0 and state.kept[p] != s:
        return [_v("destiny.mismatch", f"{move.player} kept {STATES[state.kept[p]]}, not {move.state}.", f"{move.player} 保留的是 {STATES[state.kept[p]]}，不是 {move.state}。")]
    if state.awaiting == A_CHECK:
        if s != state.check_state:
            cl = state_label(STATES[state.check_state])
            return [_v("destiny.check_state", f"Only the backer of the annihilated {cl.en} reveals now, not a chit of {sl.en}.",
                       f"现在只有灭亡的{cl.zh}的支持者公开天命条，而不是{sl.zh}。",
                       fix=(f"If nobody backs {cl.en}, declare that instead.", f"如果无人支持{cl.zh}，请声明无人支持。"))]
        return []
    for q in range(state.n):
        if q != p and state.revealed[q] == s:
            return [_v("destiny.taken", f"{state.players[q]} already revealed {sl.en}; there is one destiny chit per state.",
                       f"{state.players[q]} 已经公开了{sl.zh}；每个诸侯只有一个天命条。")]
    if s in state.not_backed:
        return [_v("destiny.contradiction", f"When {sl.en} was annihilated it was declared backed by nobody; {move.player} cannot hold its chit.",
                   f"{sl.zh}灭亡时已声明无人支持；{move.player} 不可能持有它的天命条。",
                   fix=("Check the chit and declare it again; the earlier declaration may have been wrong.", "请核对天命条并重新声明；之前的声明可能有误。"))]
    return []


def _not_backed(state: ZhangYiState, move: NotBacked) -> list[Violation]:
    s, bad = _state(move.state)
    if bad:
        return bad
    if s != state.check_state:
        cl = state_label(STATES[state.check_state])
        return [_v("destiny.check_state", f"The question is about the annihilated {cl.en}, not {move.state}.", f"现在询问的是灭亡的{cl.zh}，不是 {move.state}。")]
    if state.rules.seeded and any(state.kept[p] == s and not state.out[p] for p in range(state.n)):
        return [_v("destiny.mismatch", "A player kept this chit; he must reveal it.", "有玩家保留了这个天命条，必须公开。")]
    return []


_HANDLERS = {
    KeepDestiny: _keep,
    DrawTalent: _draw_talent,
    PlaceTalent: _place_talent,
    Assassinate: _assassinate,
    DrawChit: _draw_chit,
    Recruit: _recruit,
    March: _march,
    Hold: _hold,
    RollDie: _roll,
    Retreat: _retreat,
    RevealDestiny: _reveal,
    NotBacked: _not_backed,
}
