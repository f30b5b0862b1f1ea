"""The scripted Great Wall game ``tableref demo --game great_wall`` plays on the emulated table.

Three players (blue, red, green), cards untracked (a real table). An antenna lies under each of
the three wall sections; every card and token carries a tag, so the sensor board reads plays,
revealed tokens (face up beside the row) and claimed tokens (laid on a card). What no sensor sees
-- a card drawn from one's own deck -- is declared through the runtime's ``declare``, as the
dashboard would.

A short game, not a complete one: the three sections' tokens revealed, two rounds of plays and
draws, an illegal play (two towers: a deck holds only one) flagged with rule ``deck.mix`` and put
right, and two automatic progress checks won by claiming a token. Then the scoreboard.
"""

from __future__ import annotations

from scorer.core.types import Message
from tableref.demo_script import Step

T = "neutral"

SCRIPT: tuple[Step, ...] = (
    Step("Set-up: two tokens are turned face up beside section 1 (5 and 3). / 布置：在第 1 段旁翻开两个标记（5 和 3）。",
         put=(("section-1", T, "token-5"), ("section-1", T, "token-3")), expect_moves=1),
    Step("...beside section 2 (4 and 2). / ……第 2 段旁（4 和 2）。",
         put=(("section-2", T, "token-4"), ("section-2", T, "token-2")), expect_moves=2),
    Step("...and beside section 3 (7 and 1). / ……以及第 3 段旁（7 和 1）。",
         put=(("section-3", T, "token-7"), ("section-3", T, "token-1")), expect_moves=3),
    Step("Blue plays a wall card at section 1 (a set could still grow: accepted once the table stays still). / "
         "蓝方在第 1 段打出一张城墙（同类牌还可以再加：桌面静止片刻后接受）。",
         put=(("section-1", "blue", "wall"),), expect_moves=4),
    Step("Blue draws a card (no sensor sees it: declared on the dashboard). / 蓝方抽一张牌（传感器看不到：在仪表板上声明）。",
         declare={"type": "draw", "player": "blue"}, expect_moves=5),
    Step("Red plays a gate and a tower at section 2: two actions, the turn ends by itself. / 红方在第 2 段打出城门和塔楼：两个行动，回合自动结束。",
         put=(("section-2", "red", "gate"), ("section-2", "red", "tower")), expect_moves=7),
    Step("Green puts TWO towers at section 1 -- illegal: a deck holds only one tower. / 绿方在第 1 段放了两张塔楼——违规：一副牌只有一张塔楼。",
         put=(("section-1", "green", "tower"), ("section-1", "green", "tower")), expect_flag="deck.mix", expect_moves=7),
    Step("Green takes the second tower back, as the flag says. / 绿方按提示收回第二张塔楼。",
         take=(("section-1", "green", "tower"),), expect_clear=True, expect_moves=8, pause=2.5),
    Step("Green draws a card (declared). / 绿方抽一张牌（声明）。", declare={"type": "draw", "player": "green"}, expect_moves=9),
    Step("Blue plays a second wall at section 1. / 蓝方在第 1 段再打出一张城墙。", put=(("section-1", "blue", "wall"),), expect_moves=10),
    Step("Blue draws a card (declared). Red's progress check: red leads at section 2. / 蓝方抽一张牌（声明）。红方进度检查：红方在第 2 段领先。",
         declare={"type": "draw", "player": "blue"}, expect_moves=11),
    Step("Red chooses token 4 and lays it on their tower. / 红方选择标记 4，放在自己的塔楼上。",
         take=(("section-2", T, "token-4"),), put=(("section-2", "red", "token-4"),), expect_moves=12),
    Step("Red draws twice (declared). / 红方抽两张牌（声明）。", declare={"type": "draw", "player": "red"}, expect_moves=13),
    Step("(second draw) Green's progress check: green leads at section 1 (3 against 2). / （第二张）绿方进度检查：绿方在第 1 段领先（3 比 2）。",
         declare={"type": "draw", "player": "red"}, expect_moves=14),
    Step("Green chooses token 5 and lays it on their tower. The demo stops here. / 绿方选择标记 5，放在自己的塔楼上。演示到此结束。",
         take=(("section-1", T, "token-5"),), put=(("section-1", "green", "token-5"),), expect_moves=15),
)

DEMO_SETUP = {"players": ["blue", "red", "green"]}


def _demo():  # built lazily by tableref.demo.game_demo
    from tableref.demo import GameDemo

    return GameDemo(
        game_id="great_wall",
        setup=DEMO_SETUP,
        spaces=("section-1", "section-2", "section-3"),
        script=SCRIPT,
        intro=Message.t('tableref.demo_great_wall.tableref_demo_a_short_scripted'),
        player_names=(("blue", "Zhang San"), ("red", "Li Si"), ("green", "Wang Wu")),
    )


DEMO = _demo()
