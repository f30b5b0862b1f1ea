"""The Zhang Yi demo's game from the end of the first battle to hegemony and the final scoring, built from the engine.

``PLAN`` is the rest of the game as a list of moves (record JSON) with a line of story where one
helps; ``steps`` replays the demo's opening (``OPENING``, the moves ``tableref.demo_zhang_yi.SCRIPT``
plays by hand) through the rules engine, then plays the plan and turns each move into what the
players do at the table:

* a move the sensors or the camera see (a recruit, a march, a retreat, a talent placed, the
  assassin's victim taken off) -> the counters put down and taken off, from
  ``visible_board(before).diff(shown_board(before, move))``;
* ``hold`` (nothing moves) -> the turn-done button;
* a die -> thrown into the dice tray (``Step.roll``: read by the camera; declared without it);
* what no sensor sees (talent and chit draws, the destiny chits revealed) -> a declaration.

Each step waits for the number of accepted moves, so the script checks the referee move by move;
the engine's own lines (battle results, hegemony, the winner) follow the narration of the move that
caused them. ``FINAL_SCORES`` are the engine's scores once both destiny chits are revealed.

The game (rules: /work/shared/rules/zhang-yi.md; hegemony is 6 areas or 4 cities,
``reckoning.hegemony_reached``, checked at the end of the active state's action): Han, which blue's
retreat put in the city of Luoyang, holds 2 cities. Still in turn 1 (chits: Wei, Qi, Han, Zhao),
blue acts for Wei and moves 3 of Daliang's 4 counters into the neutral city of Taoyi; red's Qi
recruits and holds (the turn-done button); blue's Han takes the weakened Daliang (a battle, die 5),
Wei's last counter retreating into Taoyi (the only area it may go to); red's Zhao recruits and
holds. Turn 2 (blue first): the talent phase (blue draws the assassin Jing Ke, red places Sun Bin in
Linzi, Jing Ke kills Tian Dan), then blue acts for Wei again and sends Taoyi's army on into Lu, red's
Qin occupies Shangjun, and blue's Han takes Taoyi (a battle, die 4): its fourth city, hegemony. Both
players reveal their destiny chits (red Qin, blue Han): blue backed the hegemon and wins.

What the synthetic camera can read shaped the plan (docs/zhang-yi.md, "The demo"): Daliang is a small
area (the renderer fits 5 counters in it: Han 5 against Wei 4 there did not fit), so Wei leaves it
before Han attacks; in Taoyi, 3 or 4 Han counters beside Wei's 1 were misread, 2 are not; and no die
of 1, 2 or 6 (they change a strength: the referee follows the players taking counters off, but the builder
has no step for it).
"""

from __future__ import annotations

from typing import Any

from scorer.core.types import Message, player_label
from tableref import demo_plan
from tableref.demo_plan import replay
from tableref.demo_plan import table_changes as _pieces
from tableref.demo_script import Step

R, B = "red", "blue"


def _chit(p: str, state: str) -> dict[str, Any]:
    return {"type": "draw_chit", "player": p, "state": state, "source": "dashboard"}


def _recruit(p: str, *placements: tuple[str, int]) -> dict[str, Any]:
    return {"type": "recruit", "player": p, "placements": [{"area": a, "strength": n} for a, n in placements]}


def _march(p: str, origin: str, dest: str, n: int) -> dict[str, Any]:
    return {"type": "march", "player": p, "from": origin, "to": dest, "strength": n}


def _roll(p: str, value: int) -> dict[str, Any]:
    return {"type": "roll_die", "player": p, "value": value, "source": "dashboard"}


def _draw(p: str, talent: str) -> dict[str, Any]:
    return {"type": "draw_talent", "player": p, "talent": talent, "source": "dashboard"}


# the moves of the opening (tableref.demo_zhang_yi.SCRIPT plays them by hand: the flag, the hand, the undo)
OPENING: tuple[dict[str, Any], ...] = (
    _draw(R, "tian_dan"),
    {"type": "place_talent", "player": R, "talent": "tian_dan", "area": "linzi"},
    _draw(B, "chunshen_jun"),
    {"type": "place_talent", "player": B, "talent": "chunshen_jun", "area": "ying"},
    _chit(R, "yan"),
    _recruit(R, ("ji", 1)),
    _march(R, "shanggu", "ji", 1),
    _chit(B, "chu"),
    _recruit(B, ("chen", 1), ("shouchun", 1)),
    _march(B, "ying", "jingshan", 2),
    _chit(R, "qin"),
    _recruit(R, ("longxi", 1), ("xianyang", 1)),
    _march(R, "xianyang", "yiyang", 4),
    _roll(R, 4),
    {"type": "retreat", "player": B, "to": "luoyang"},
)

L = "tableref.demo_zhang_yi.lead."

# (move, a line of story before the move's own narration, or None)
PLAN: tuple[tuple[dict[str, Any], Message | None], ...] = (
    # turn 1 goes on. Daliang, Wei's city next to Han, is a small area: its army first leaves for Taoyi
    (_chit(B, "wei"), Message.t(L + "han_two_cities")),
    (_recruit(B, ("anyi", 1)), None),
    (_march(B, "daliang", "taoyi", 3), Message.t(L + "wei_to_taoyi")),
    (_chit(R, "qi"), None),
    (_recruit(R, ("jimo", 1)), None),
    ({"type": "hold", "player": R}, None),
    # Han strikes at the weakened Daliang
    (_chit(B, "han"), Message.t(L + "han_strikes")),
    (_recruit(B, ("xinzheng", 2)), None),
    (_march(B, "xinzheng", "daliang", 3), None),
    (_roll(B, 5), None),
    ({"type": "retreat", "player": R, "to": "taoyi"}, Message.t(L + "only_taoyi")),
    (_chit(R, "zhao"), Message.t(L + "last_chit")),
    (_recruit(R, ("jinyang", 1)), None),
    ({"type": "hold", "player": R}, None),
    # turn 2: blue is first player; the talent phase, then the strategic phase
    (_draw(B, "jing_ke"), Message.t(L + "turn_2")),
    (_draw(R, "sun_bin"), None),
    ({"type": "place_talent", "player": R, "talent": "sun_bin", "area": "linzi"}, None),
    ({"type": "assassinate", "player": B, "target": "tian_dan"}, Message.t(L + "assassin_strikes")),
    (_chit(B, "wei"), Message.t(L + "blue_helps_han")),
    (_recruit(B, ("anyi", 1)), None),
    (_march(B, "taoyi", "lu", 3), None),
    (_chit(R, "qin"), None),
    (_recruit(R, ("xianyang", 2)), None),
    (_march(R, "longxi", "shangjun", 2), None),
    (_chit(B, "han"), None),
    (_recruit(B, ("daliang", 1), ("luoyang", 1)), None),
    # 2 of Daliang's 3 (with 3 or 4 Han counters beside Wei's in Taoyi the camera misread the area: docs/zhang-yi.md)
    (_march(B, "daliang", "taoyi", 2), Message.t(L + "fourth_city")),
    (_roll(B, 4), None),
    ({"type": "retreat", "player": R, "to": "lu"}, None),
    # hegemony: the game ends and each player reveals the destiny chit kept secret since the set-up
    ({"type": "reveal_destiny", "player": R, "state": "qin"}, None),
    ({"type": "reveal_destiny", "player": B, "state": "han"}, None),
)

FINAL_SCORES = {"blue": 1, "red": 0}  # the engine's scores: blue backed Han, the hegemon


def played(opening: tuple[dict[str, Any], ...] = OPENING,
           plan: tuple[tuple[dict[str, Any], Message | None], ...] = PLAN) -> list[dict[str, Any]]:
    """The moves the demo's game record holds: the opening and the plan."""
    return demo_plan.played(opening, plan)


def _say(state: Any, data: dict[str, Any]) -> Message:
    """The narration of one move, from the move and the state it is played in."""
    from scorer.games.zhang_yi.data import STATES, TALENT_INDEX, state_label, talent_label
    from scorer.games.zhang_yi.reckoning import attrition
    from scorer.games.zhang_yi.state import NEUTRAL

    m = state.map
    idx = {a.id: i for i, a in enumerate(m.areas)}

    def area(a: str) -> Message:
        return m.areas[idx[a]].label

    who = player_label(data["player"]) if "player" in data else None
    kind = data["type"]
    k = "tableref.demo_zhang_yi.say."
    if kind == "draw_talent":
        return Message.t(k + "draw_talent", player=who, talent=talent_label(data["talent"]))
    if kind == "place_talent":
        t = data["talent"]
        return Message.t(k + "place_talent", player=who, talent=talent_label(t), area=area(data["area"]),
                         state=state_label(STATES[m.talent_state[TALENT_INDEX[t]]]))
    if kind == "assassinate":
        t = data["target"]
        where = state.talent_loc[TALENT_INDEX[t]]
        return Message.t(k + "assassinate", player=who, talent=talent_label(t), area=m.areas[where].label)
    if kind == "reveal_destiny":
        return Message.t(k + "reveal", player=who, state=state_label(data["state"]))
    sl = state_label(STATES[state.active_state]) if state.active_state >= 0 else None
    if kind == "draw_chit":
        return Message.t(k + "chit", player=who, state=state_label(data["state"]))
    if kind == "recruit":
        places = tuple(Message.t(k + "n_in", n=p["strength"], area=area(p["area"])) for p in data["placements"])
        return Message.t(k + "recruit", state=sl, places=places)
    if kind == "hold":
        return Message.t(k + "hold", player=who, state=sl)
    if kind == "march":
        o, d, n = idx[data["from"]], idx[data["to"]], data["strength"]
        lost = attrition(state, o, d)
        owner = state.owner[d]
        if owner == NEUTRAL:
            return Message.t(k + "march_neutral", state=sl, n=n, origin=area(data["from"]), dest=area(data["to"]))
        if owner == state.active_state:
            return Message.t(k + "march_own", state=sl, n=n, origin=area(data["from"]), dest=area(data["to"]))
        return Message.t(k + "march_battle", state=sl, n=n, origin=area(data["from"]), dest=area(data["to"]),
                         enemy=state_label(STATES[owner]), arrive=n - lost, defence=state.strength[d])
    if kind == "roll_die":
        return Message.t(k + "roll", player=who, value=data["value"])
    if kind == "retreat":
        r = state.retreat
        return Message.t(k + "retreat", player=who, state=state_label(STATES[r.state]), origin=m.areas[r.area].label,
                         dest=area(data["to"]))
    raise ValueError(f"no narration for {kind}")


def _then(first: Message, then: Message) -> Message:
    return Message.t("tableref.demo_zhang_yi.say.lead", lead=first, text=then)


def steps(setup: dict[str, Any], opening: tuple[dict[str, Any], ...] = OPENING,
          plan: tuple[tuple[dict[str, Any], Message | None], ...] = PLAN) -> tuple[Step, ...]:
    """The plan's steps, after the opening's moves; each checks the number of accepted moves, the
    last one the end of the game and the final scores."""
    game, state = replay("zhang_yi", setup, opening)
    n = len(opening)
    out: list[Step] = []
    for i, (data, lead) in enumerate(plan):
        move = game.move_from_json(data)
        say = _say(state, data)
        if lead is not None:
            say = _then(lead, say)
        before = state
        shown = game.shown_board(state, move)
        state = game.apply(state, move)
        n += 1
        for e in state.effects:  # the engine's lines: battle results, hegemony, the winner
            say = _then(say, e.message)
        assert shown == game.visible_board(state), f"the rules moved counters by themselves after {data}"
        # a declared move is not on the table: one that changes the board (a die of 1, 2 or 6 takes strength off)
        # would need a step taking those counters off, which this builder does not make
        assert not move.declared or shown == game.visible_board(before), f"{data} changes the board"
        last = i == len(plan) - 1
        extra: dict[str, Any] = {"expect_score": FINAL_SCORES} if last else {}
        if data["type"] == "roll_die":
            out.append(Step(say, roll=data["value"], declare=data, expect_moves=n, pause=1.0))
        elif data["type"] == "hold":
            out.append(Step(say, press=("turn_done",), expect_moves=n, pause=1.0))
        elif move.declared:
            out.append(Step(say, declare=data, expect_moves=n, expect_over=last, extra=extra, pause=0.6))
        else:
            put, take = _pieces(game.visible_board(before).diff(shown))
            out.append(Step(say, put=put, take=take, expect_moves=n, pause=1.0))
    assert game.is_over(state), "the plan does not end the game"
    scores = {p.player: p.total for p in game.score(state).players}
    assert scores == FINAL_SCORES, scores
    return tuple(out)


__all__ = ["FINAL_SCORES", "OPENING", "PLAN", "played", "steps"]
