"""The scripted Ming Dynasty game ``tableref demo --game ming`` plays on the emulated table.

Three players (red, blue, yellow; red starts) on the shipped provisional board (invented values;
see docs/ming.md). An antenna lies under every district's open area, cloister and city, and
under each province space at the board edge; every prince and family member carries a tag, so the
sensor board reads the princes placed, the family members put on province spaces and a family
member taken back off a province space to pay for a dragon. What no sensor sees -- which display
card a player takes -- is declared through the runtime's ``declare``, as the dashboard (or a card
reader) would.

A short game, not a complete one: the set-up (with an illegal prince placement on a district that
already has a prince, flagged with rule ``prince.occupied`` and put right), phase 1 (the province
spaces) and the start of phase 2 (cards and a dragon). Then the scoreboard.
"""

from __future__ import annotations

from scorer.core.types import Message
from tableref.demo_script import Step

F, P = "family", "prince"


NAMES = {"red": ("Red", "红方"), "blue": ("Blue", "蓝方"), "yellow": ("Yellow", "黄方")}


def _round(say: str, spaces: tuple[tuple[str, str], ...], moves: int) -> tuple[Step, ...]:
    """One placement per player in turn (one step each: pieces put down together would settle in
    any order, and a piece settling before the previous player's is out of turn)."""
    out = []
    for i, (owner, prov) in enumerate(spaces):
        en, zh = NAMES[owner]
        text = say if i == 0 else f"{en}: a family member on province space {prov}. / {zh}：一个家族成员放在 {prov} 省份格。"
        out.append(Step(text, put=((f"province-space-{prov}", owner, F),), expect_moves=moves - len(spaces) + i + 1, pause=0.6))
    return tuple(out)


SCRIPT: tuple[Step, ...] = (
    Step("Set-up: red places its prince in district p1d1. / 布置：红方把王子放在 p1d1 区。", put=(("p1d1", "red", P),), expect_moves=1),
    Step("Blue places its prince in p3d2. / 蓝方把王子放在 p3d2。", put=(("p3d2", "blue", P),), expect_moves=2),
    Step("Yellow puts its prince into p3d2 too -- illegal: blue's prince is already there. / 黄方也把王子放进 p3d2——违规：蓝方王子已在那里。",
         put=(("p3d2", "yellow", P),), expect_flag="prince.occupied", expect_moves=2),
    Step("Yellow moves its prince to p5d1, as the flag says. / 黄方按提示把王子移到 p5d1。",
         take=(("p3d2", "yellow", P),), put=(("p5d1", "yellow", P),), expect_clear=True, expect_moves=3, pause=2.5),
    *_round("Phase 1: each player in turn puts a family member on a province space (red p1, blue p3, yellow p5). / "
           "第 1 阶段：每位玩家轮流把一个家族成员放在省份格上（红 p1，蓝 p3，黄 p5）。",
           (("red", "p1"), ("blue", "p3"), ("yellow", "p5")), 6),
    *_round("Second round of phase 1 (red p2, blue p3, yellow p6). / 第 1 阶段第二轮（红 p2，蓝 p3，黄 p6）。",
           (("red", "p2"), ("blue", "p3"), ("yellow", "p6")), 9),
    *_round("Third round (red p1, blue p4, yellow p5). / 第三轮（红 p1，蓝 p4，黄 p5）。",
           (("red", "p1"), ("blue", "p4"), ("yellow", "p5")), 12),
    *_round("Fourth round (red p6, blue p2, yellow p4). / 第四轮（红 p6，蓝 p2，黄 p4）。",
           (("red", "p6"), ("blue", "p2"), ("yellow", "p4")), 15),
    *_round("Fifth round (red p1, blue p3, yellow p6). / 第五轮（红 p1，蓝 p3，黄 p6）。",
           (("red", "p1"), ("blue", "p3"), ("yellow", "p6")), 18),
    Step("Phase 2: red takes the display card of province p1 (no sensor sees it: declared on the dashboard). / "
         "第 2 阶段：红方拿取 p1 省的展示牌（传感器看不到：在仪表板上声明）。",
         declare={"type": "take_card", "player": "red", "province": "p1"}, expect_moves=19),
    Step("Blue takes a family member back off province space p3 to take a dragon. / 蓝方从 p3 省份格收回一个家族成员，换取一条龙。",
         take=(("province-space-p3", "blue", F),), expect_moves=20),
    Step("Yellow takes the display card of province p5 (declared). The demo stops here. / 黄方拿取 p5 省的展示牌（声明）。演示到此结束。",
         declare={"type": "take_card", "player": "yellow", "province": "p5"}, expect_moves=21),
)

DEMO_SETUP = {"players": ["red", "blue", "yellow"]}


def _spaces() -> tuple[str, ...]:
    from scorer.core.game import SetupOptions
    from scorer.core.registry import get_game

    game = get_game("ming")
    j = game.state_to_json(game.setup(SetupOptions.from_json(DEMO_SETUP)))
    out: list[str] = []
    for d in j["districts"]:
        out += [d, f"{d}-cloister", f"{d}-city"]
    out += [f"province-space-{p}" for p in j["province_spaces"]]
    return tuple(out)


def _demo():  # built lazily by tableref.demo.game_demo
    from tableref.demo import GameDemo

    return GameDemo(
        game_id="ming",
        setup=DEMO_SETUP,
        spaces=_spaces(),
        script=SCRIPT,
        intro=Message.t('tableref.demo_ming.tableref_demo_a_short_scripted'),
        player_names=(("red", "Zhang San"), ("blue", "Li Si"), ("yellow", "Wang Wu")),
    )


DEMO = _demo()
