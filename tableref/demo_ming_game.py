"""The Ming demo's game from phase 2 of round 1 to the start of round 3, built from the engine.

``PLAN`` is the game as a list of moves (record JSON) with a line of story where one helps; ``steps``
plays them through the rules engine and turns each into what the players do at the table:

* a move the sensors see (a prince moved or staying with family members deployed, a member taken
  off for a dragon, a city piece sent back) -> the pieces put down and taken off, from
  ``visible_board(before).diff(shown_board(before, move))``;
* a move no sensor sees (a display card taken, a pass, secret return cards) -> a declaration;
* what the rules then move by themselves (the scoring: majorities into the city, pieces sent back,
  the city emptied into the box) -> one more step where the players carry it out on the table,
  narrated with the engine's own effect lines; the referee follows them without a flag
  (``scorer.referee.reconciler.Follow``);
* ``UNDO`` after a move -> the undo and confirm buttons, and the player taking the pieces back.

Each step waits for the number of accepted moves the plan gives, so the script checks the referee
move by move. ``FINAL_SCORES`` are the engine's scores after the round-2 scoring.
"""

from __future__ import annotations

from typing import Any

from scorer.core.types import Message, player_label
from tableref import demo_plan
from tableref.demo_plan import UNDO, replay
from tableref.demo_plan import table_changes as _pieces
from tableref.demo_script import Step

R, B, Y = "red", "blue", "yellow"


def _take(p: str, prov: str) -> dict[str, Any]:
    return {"type": "take_card", "player": p, "province": prov}


def _move(p: str, path: list[str], deploy: int, cloister: bool = False) -> dict[str, Any]:
    return {"type": "move_prince", "player": p, "path": path, "deploy": deploy, "cloister": cloister}


def _stay(p: str, deploy: int, cloister: bool = False) -> dict[str, Any]:
    return {"type": "stay", "player": p, "deploy": deploy, "cloister": cloister}


def _pass(p: str) -> dict[str, Any]:
    return {"type": "pass", "player": p}


def _place(p: str, prov: str) -> dict[str, Any]:
    return {"type": "place_family", "player": p, "province": prov}


def _returns(p: str, total: int) -> dict[str, Any]:
    return {"type": "return_cards", "player": p, "total": total}


def _send_back(p: str, districts: list[str]) -> dict[str, Any]:
    return {"type": "send_back", "player": p, "districts": districts}


# the moves of the opening (tableref.demo_ming.SCRIPT plays them by hand: the flag, the hand over p3)
OPENING: tuple[dict[str, Any], ...] = (
    {"type": "place_prince", "player": R, "district": "p1d1"},
    {"type": "place_prince", "player": B, "district": "p3d2"},
    {"type": "place_prince", "player": Y, "district": "p5d1"},
    *(_place(p, prov) for p, prov in (
        (R, "p1"), (B, "p3"), (Y, "p5"), (R, "p2"), (B, "p3"), (Y, "p6"), (R, "p1"), (B, "p4"), (Y, "p5"),
        (R, "p6"), (B, "p2"), (Y, "p4"), (R, "p1"), (B, "p3"), (Y, "p6"))),
    _take(R, "p1"),
    {"type": "take_dragon", "player": B, "province": "p3"},
    _take(Y, "p5"),
)

# (move or UNDO, a line of story before the move's own narration, or None)
PLAN: tuple[tuple[Any, Message | None], ...] = (
    (_take(R, "p1"), Message.t("tableref.demo_ming.lead.cards_to_five")),
    (_take(B, "p2"), None), (_take(Y, "p4"), None), (_take(R, "p6"), None), (_take(B, "p4"), None),
    (_take(Y, "p5"), None), (_take(R, "p1"), None), (_take(B, "p3"), None),
    (_take(Y, "p6"), Message.t("tableref.demo_ming.lead.last_card")),
    # phase 3: red moves, thinks better of it, and undoes it with the buttons
    (_move(R, ["p1d3"], 3), Message.t("tableref.demo_ming.lead.phase_3")),
    (UNDO, None),
    (_stay(R, 2, cloister=True), Message.t("tableref.demo_ming.lead.instead")),
    (_move(B, ["p3d1"], 2, cloister=True), None),
    (_stay(Y, 2), None),
    (_pass(R), None),
    (_pass(B), None),
    (_move(Y, ["p6d1"], 2), None),
    (_pass(Y), Message.t("tableref.demo_ming.lead.round_1_ends")),
    # round 2: blue starts
    (_place(B, "p1"), Message.t("tableref.demo_ming.lead.round_2")), (_place(Y, "p5"), None), (_place(R, "p2"), None),
    (_place(B, "p1"), None), (_place(Y, "p5"), None), (_place(R, "p2"), None),
    (_place(B, "p3"), None), (_place(Y, "p6"), None), (_place(R, "p1"), None),
    (_place(B, "p3"), None), (_place(Y, "p5"), None), (_place(R, "p6"), None),
    (_place(B, "p4"), None), (_place(Y, "p6"), None), (_place(R, "p4"), None),
    (_take(B, "p3"), Message.t("tableref.demo_ming.lead.round_2_cards")),
    (_take(Y, "p5"), None), (_take(R, "p2"), None), (_take(Y, "p6"), None),
    (_move(B, ["p3d3"], 2), Message.t("tableref.demo_ming.lead.round_2_moves")),
    (_move(Y, ["p5d1"], 3), None),
    (_move(R, ["p2d1"], 3, cloister=True), None),
    # the path the referee reads (sensors see only where the prince ends: the first shortest path, docs/ming.md)
    (_move(B, ["p2d2", "p2d1", "p1d1"], 2, cloister=True), Message.t("tableref.demo_ming.lead.ousting")),
    (_pass(Y), None), (_pass(R), None),
    (_pass(B), Message.t("tableref.demo_ming.lead.scoring")),
    # the round-2 scoring, province by province
    (_returns(R, 0), Message.t("tableref.demo_ming.lead.returns_p1")), (_returns(B, 1), None),
    (_returns(R, 1), None),
    (_returns(B, 1), Message.t("tableref.demo_ming.lead.returns_choice")),
    (_send_back(B, ["p3d3"]), None),
    (_returns(Y, 0), None),
    (_returns(Y, 1), Message.t("tableref.demo_ming.lead.last_returns")),
)

FINAL_SCORES = {"red": 24, "blue": 20, "yellow": 20}  # the engine's scores after the round-2 scoring


def played(opening: tuple[dict[str, Any], ...] = OPENING,
           plan: tuple[tuple[Any, Message | None], ...] = PLAN) -> list[dict[str, Any]]:
    """The moves the demo's game record holds: the opening and the plan, less the undone move."""
    return demo_plan.played(opening, plan)


def _say(game: Any, state: Any, move: Any, data: dict[str, Any]) -> Message:
    """The narration of one move, from the move and the state it is played in."""
    board = state.board
    who = player_label(data["player"])
    kind = data["type"]
    if kind == "take_card":
        return Message.t("tableref.demo_ming.say.take_card", player=who, province=data["province"])
    if kind == "place_family":
        return Message.t("tableref.demo_ming.family_member_on", player=who, space=data["province"])
    if kind == "pass":
        return Message.t("tableref.demo_ming.say.pass", player=who)
    if kind == "return_cards":
        prov = board.provinces[state.scoring.province]
        return Message.t("tableref.demo_ming.say.return_cards", player=who, n=data["total"], province=prov.name)
    if kind == "send_back":
        return Message.t("tableref.demo_ming.say.send_back", player=who, district=data["districts"][0])
    p = state.player_index(data["player"])
    here = board.districts[state.princes[p]]
    end = data["path"][-1] if kind == "move_prince" else here
    prov = board.province_of(board.district_index[end]).id
    deployed = (Message.t("tableref.demo_ming.say.cloister", n=data["deploy"], district=end, province=prov) if data.get("cloister")
                else Message.t("tableref.demo_ming.say.open", n=data["deploy"], district=end, province=prov))
    occupant = state.cloister[board.district_index[end]]
    if data.get("cloister") and occupant >= 0 and occupant != p:
        deployed = Message.t("tableref.demo_ming.say.ousting", deployed=deployed, other=player_label(state.players[occupant]))
    if kind == "stay":
        return Message.t("tableref.demo_ming.say.stay", player=who, district=here, deployed=deployed)
    return Message.t("tableref.demo_ming.say.move", player=who, start=here, end=end, steps=len(data["path"]), deployed=deployed)


def _lead(lead: Message | None, say: Message) -> Message:
    return say if lead is None else Message.t("tableref.demo_ming.say.lead", lead=lead, text=say)


def steps(setup: dict[str, Any], opening: tuple[dict[str, Any], ...] = OPENING,
          plan: tuple[tuple[Any, Message | None], ...] = PLAN) -> tuple[Step, ...]:
    """The plan's steps, after the opening's moves; each checks the number of accepted moves."""
    game, state = replay("ming", setup, opening)
    n = len(opening)
    out: list[Step] = []
    last: tuple[Any, Any] | None = None  # (state before, the move) of the last move, for an undo
    for entry, lead in plan:
        if entry == UNDO:
            assert last is not None, "an undo needs a move before it"
            before, move = last
            put, take = _pieces(game.shown_board(before, move).diff(game.visible_board(before)))
            player = player_label(move.player)
            out.append(Step(_lead(lead, Message.t("tableref.demo_ming.say.undo", player=player)), press=("undo", "confirm"),
                            expect_moves=n - 1, expect_undo_wait=True))
            out.append(Step(Message.t("tableref.demo_ming.say.take_back", player=player), put=put, take=take,
                            expect_undo_wait=False, expect_moves=n - 1))
            state, n, last = before, n - 1, None
            continue
        move = game.move_from_json(entry)
        say = _lead(lead, _say(game, state, move, entry))
        before = state
        shown = game.shown_board(state, move)
        state = game.apply(state, move)
        n += 1
        after = game.visible_board(state)
        automatic = shown != after
        extra: dict[str, Any] = {"expect_follow": True} if automatic else {}
        if move.declared:
            out.append(Step(say, declare=game.move_to_json(move), expect_moves=n, extra=extra, pause=0.6))
        else:
            put, take = _pieces(game.visible_board(before).diff(shown))
            out.append(Step(say, put=put, take=take, expect_moves=n, extra=extra, pause=0.8))
        if automatic:
            put, take = _pieces(shown.diff(after))
            effects = state.effects[0].message
            for e in state.effects[1:]:  # the engine's lines one after the other, as sentences
                effects = Message.t("tableref.demo_ming.say.lead", lead=effects, text=e.message)
            out.append(Step(Message.t("tableref.demo_ming.say.follow", effects=effects), put=put, take=take, expect_moves=n,
                            extra={"expect_follow": False}, pause=1.0))
        last = (before, move)
    return tuple(out)


__all__ = ["FINAL_SCORES", "OPENING", "PLAN", "UNDO", "played", "steps"]
