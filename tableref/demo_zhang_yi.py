"""The scripted Zhang Yi game ``tableref demo --game zhang_yi`` plays on the emulated table.

Two players (red moves first, blue) on the SAMPLE map (invented; the printed map is not public --
see docs/zhang-yi.md), chance declared (a real table). An antenna lies under every area of the map;
every army counter (strength 1 each in the demo) and every talent carries a tag, so the sensor
board reads talents placed, recruits and marches. What no sensor sees -- the talent drawn, the
action chit drawn from the cup -- is declared through the runtime's ``declare``, as the dashboard
would.

A short game, not a complete one: the talent phase and the first strategic actions, including an
illegal march (Yan's whole army leaves Shanggu) flagged with rule ``march.leave_one`` and put
right. Then the scoreboard.
"""

from __future__ import annotations

from scorer.core.types import Message
from tableref.demo_script import Step

A = "army"

SCRIPT: tuple[Step, ...] = (
    Step("Talent phase: red draws Tian Dan from the pool (declared on the dashboard). / 人才阶段：红方从人才池抽到田单（在仪表板上声明）。",
         declare={"type": "draw_talent", "player": "red", "talent": "tian_dan", "source": "dashboard"}, expect_moves=1),
    Step("Red places Tian Dan in Linzi (Qi). / 红方把田单放在临淄（齐）。",
         put=(("linzi", "qi", "talent-tian_dan"),), expect_moves=2),
    Step("Blue draws Lord Chunshen (declared). / 蓝方抽到春申君（声明）。",
         declare={"type": "draw_talent", "player": "blue", "talent": "chunshen_jun", "source": "dashboard"}, expect_moves=3),
    Step("Blue places Lord Chunshen in Ying (Chu). / 蓝方把春申君放在郢（楚）。",
         put=(("ying", "chu", "talent-chunshen_jun"),), expect_moves=4),
    Step("Red draws the Yan chit from the cup (declared): red acts for Yan. / 红方从杯中抽出燕的令牌（声明）：红方为燕行动。",
         declare={"type": "draw_chit", "player": "red", "state": "yan", "source": "dashboard"}, expect_moves=5),
    Step("Yan recruits 1 strength in Ji. / 燕在蓟招募 1 点兵力。", put=(("ji", "yan", A),), expect_moves=6),
    Step("Yan marches its WHOLE army from Shanggu to Ji -- illegal: one strength must stay behind. / "
         "燕把上谷的全部军队开往蓟——违规：必须留下 1 点兵力。",
         take=(("shanggu", "yan", A), ("shanggu", "yan", A)), put=(("ji", "yan", A), ("ji", "yan", A)),
         expect_flag="march.leave_one", expect_moves=6),
    Step("Red puts one counter back in Shanggu, as the flag says: a march of 1. / 红方按提示把一个兵力放回上谷：行军 1 点。",
         take=(("ji", "yan", A),), put=(("shanggu", "yan", A),), expect_clear=True, expect_moves=7, pause=2.5),
    Step("Blue draws the Chu chit (declared): blue acts for Chu. / 蓝方抽出楚的令牌（声明）：蓝方为楚行动。",
         declare={"type": "draw_chit", "player": "blue", "state": "chu", "source": "dashboard"}, expect_moves=8),
    Step("Chu recruits 1 in Chen and 1 in Shouchun. / 楚在陈和寿春各招募 1 点兵力。",
         put=(("chen", "chu", A), ("shouchun", "chu", A)), expect_moves=9),
    Step("Chu marches 2 from Ying into empty Jingshan: it becomes Chu territory. The demo stops here. / "
         "楚从郢向无人的荆山行军 2 点：荆山成为楚的领土。演示到此结束。",
         take=(("ying", "chu", A), ("ying", "chu", A)), put=(("jingshan", "chu", A), ("jingshan", "chu", A)), expect_moves=10),
)

DEMO_SETUP = {"players": ["red", "blue"], "board": "sample", "sample_map_confirmed": True, "chance": "declared",
              "first_player": "red"}


def _spaces() -> tuple[str, ...]:
    from scorer.core.game import SetupOptions
    from scorer.core.registry import get_game

    game = get_game("zhang_yi")
    state = game.setup(SetupOptions.from_json(DEMO_SETUP))
    return tuple(str(a["space"]) for a in game.state_to_json(state)["areas"])


def _demo():  # built lazily by tableref.demo.game_demo
    from tableref.demo import GameDemo

    return GameDemo(
        game_id="zhang_yi",
        setup=DEMO_SETUP,
        spaces=_spaces(),
        script=SCRIPT,
        intro=Message.t('tableref.demo_zhang_yi.tableref_demo_a_short_scripted'),
        player_names=(("red", "Zhang San"), ("blue", "Li Si")),
        notes=("map: the SAMPLE map (invented areas and adjacencies; enter your printed map as docs/zhang-yi.md says)",),
    )


DEMO = _demo()
