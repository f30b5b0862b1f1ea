"""The scripted China game ``tableref demo`` plays on the emulated table.

Three players (blue, green, red) on the provisional side A. The script is data: a list of steps
the runner carries out against the *physical* (emulated) table and the buttons, each followed by
what the referee must do in response. A step that does not get its response in time stops the
demo with a clear error -- the demo is also an end-to-end check of the whole system.

What it shows, in order: moves read from the sensors; an illegal move (two houses into an empty
province) flagged with the rule, the space and the fix, then put right; an undo with the buttons
and the referee waiting for the table; Lu filling up and scoring by itself; a move made in two
steps; a hand over the board; the turn-done button closing a turn with no pieces (a card
exchange); a card tapped on the reader closing a turn; the next player's piece closing a turn;
the pile running out (declared on the dashboard); the last round and the final scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happens at the table, and what the referee must answer."""

    say: str  # narration (English / Chinese)
    put: tuple[tuple[str, str, str], ...] = ()  # (space, owner, kind) pieces put down
    take: tuple[tuple[str, str, str], ...] = ()  # pieces taken off
    press: tuple[str, ...] = ()  # GPIO buttons pressed: turn_done, undo, confirm
    tap: tuple[str, ...] = ()  # cards tapped on the reader (colours)
    declare: dict[str, Any] | None = None  # a declaration from the dashboard
    hand: tuple[str, ...] | None = None  # spaces a hand hovers over (camera only); () = hand gone
    expect_moves: int | None = None  # accepted moves the game must have afterwards
    expect_flag: str | None = None  # a flag naming this rule must be raised
    expect_clear: bool = False  # the flag must be gone
    expect_undo_wait: bool | None = None
    expect_over: bool = False
    expect_pending: bool = False  # a legal move must be read and wait on the table (for a declaration)
    pause: float = 1.0  # seconds to wait before the step (scaled by --speed)
    extra: dict[str, Any] = field(default_factory=dict)


H, E = "house", "emissary"

# the games whose demo works besides China's, in the order of ``tableref demo --game``; each has a
# module ``tableref.demo_<game>`` with ``DEMO`` (a ``tableref.demo.GameDemo``)
GAME_DEMOS: tuple[str, ...] = ("great_wall", "cheops", "zhang_yi", "ming")

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}

SCRIPT: tuple[Step, ...] = (
    Step("Blue puts a house in Wei (Wei was empty: one piece ends the turn). / 蓝方在魏放一座房屋（魏原本为空：放一个棋子回合即结束）。",
         put=(("wei-1", "blue", H),), expect_moves=1),
    Step("Green puts two houses in Wei. / 绿方在魏放两座房屋。",
         put=(("wei-2", "green", H), ("wei-3", "green", H)), expect_moves=2),
    Step("Red puts TWO houses into empty Qi -- illegal. / 红方在空的齐放了两座房屋——违规。",
         put=(("qi-1", "red", H), ("qi-2", "red", H)), expect_flag="place.empty_province_one_piece", expect_moves=2),
    Step("Red takes the second house off qi-2, as the flag says. / 红方按提示从 qi-2 拿走第二座房屋。",
         take=(("qi-2", "red", H),), expect_clear=True, expect_moves=3, pause=2.5),
    Step("Blue puts a house in Chu... / 蓝方在楚放一座房屋……",
         put=(("chu-1", "blue", H),), expect_moves=4),
    Step("...changes their mind: undo, then confirm. The referee waits for the table. / ……改变主意：按撤销再按确认。裁判等待桌面恢复。",
         press=("undo", "confirm"), expect_moves=3, expect_undo_wait=True),
    Step("Blue takes the house back off chu-1. / 蓝方从 chu-1 收回房屋。",
         take=(("chu-1", "blue", H),), expect_undo_wait=False, expect_moves=3),
    Step("Blue puts the house in Lu instead. / 蓝方改为在鲁放房屋。",
         put=(("lu-1", "blue", H),), expect_moves=4),
    Step("Green puts a house in Lu, a hand still over the board... / 绿方在鲁放一座房屋，手还在版图上方……",
         hand=("lu-2", "lu-3", "lu-dragon"), put=(("lu-2", "green", H),), pause=0.5),
    Step("...and a second one; the hand leaves. / ……再放第二座；手离开。",
         hand=(), put=(("lu-3", "green", H),), expect_moves=5),
    Step("Red fills Lu's last site: Lu scores by itself. / 红方占满鲁的最后一个位置：鲁自动计分。",
         put=(("lu-4", "red", H),), expect_moves=6, extra={"expect_score": {"green": 4, "blue": 2, "red": 2}}),
    Step("Blue: a house in Wei, then (second step) an emissary on Wei's dragon. / 蓝方：先在魏放房屋，再把使臣放在魏的龙位。",
         put=(("wei-4", "blue", H),), pause=1.0),
    Step("(second step) / （第二步）", put=(("wei-dragon", "blue", E),), expect_moves=7, pause=0.6),
    Step("Green exchanges a card: nothing on the board, so Green presses TURN DONE. / 绿方换牌：版图无变化，所以按“回合结束”。",
         press=("turn_done",), expect_moves=8),
    Step("Red: a house in Qi, then taps a yellow card on the reader to pay and close the turn. / 红方在齐放房屋，然后在读卡器上刷一张黄牌付款并结束回合。",
         put=(("qi-2", "red", H),), pause=1.0),
    Step("(red taps the yellow card) / （红方刷黄牌）", tap=("yellow",), expect_moves=9, pause=1.2),
    Step("Blue adds an emissary in Wei and stops... / 蓝方在魏再放一个使臣，然后停下……",
         put=(("wei-dragon", "blue", E),), pause=1.0),
    Step("...Green's pieces appear: that closes Blue's turn. Wei fills up and scores. / ……绿方的棋子出现：蓝方回合结束。魏已满，自动计分。",
         put=(("wei-5", "green", H), ("wei-6", "green", H)), expect_moves=11, pause=1.5),
    Step("The draw pile runs out for the second time (declared on the dashboard): last round. / 牌堆第二次用完（在仪表板上声明）：最后一轮。",
         declare={"type": "pile_exhausted"}, expect_moves=12),
    Step("Red, the last player of the round, puts a house in Qi and presses TURN DONE: the game ends. / 本轮最后一位红方在齐放房屋并按“回合结束”：游戏结束。",
         put=(("qi-3", "red", H),), pause=1.0),
    Step("(red presses turn done) / （红方按“回合结束”）", press=("turn_done",), expect_moves=13, expect_over=True, pause=1.0),
)
