"""What the camera can declare for Zhang Yi by itself: the battle die, read in the dice tray.

A battle waits for its die (``awaiting == A_DIE``), thrown by the attacker (the acting player).
When the camera saw exactly one die land and read it, that roll is entered as
``RollDie(player, value, source="camera")``, as if declared; in a seeded game the engine rolls
itself, and with no battle waiting or not exactly one die read nothing is entered (the players
declare the roll on the dashboard, as before).
"""

from __future__ import annotations

from scorer.core.observation import ChanceSeen
from scorer.games.zhang_yi.moves import RollDie
from scorer.games.zhang_yi.state import A_DIE, ZhangYiState


def camera_declarations(state: ZhangYiState, seen: ChanceSeen) -> tuple[RollDie, ...]:
    if seen.kind != "dice" or len(seen.values) != 1 or not 1 <= seen.values[0] <= 6:
        return ()
    if state.finished is not None or state.awaiting != A_DIE or state.rules.seeded or not state.actors:
        return ()
    return (RollDie(state.players[state.actors[0]], int(seen.values[0]), seen.source),)
