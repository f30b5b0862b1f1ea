"""The scripted Cheops game ``tableref demo --game cheops`` plays on the emulated table.

Three players (blue, red, green); the set-up is dealt from seed 4 with the shipped (provisional)
pyramid, price tables and laws. The players lay the dealt pyramid out before the referee starts:
an antenna lies under every pyramid space, every coloured dot, every price table and every
table's law slot, and every treasure, law and family tile carries a tag.

The sensor board reads where a family tile goes, which treasure left the pyramid and whether it
went onto its price table (sold) or into the player's hand (kept). A Cheops turn also holds what no
sensor sees -- here the tile drawn from a stack -- so each turn is completed by a declaration (as
the dashboard would send it) while the table shows it; the referee accepts the declaration only
if it is exactly the move the table shows.

A short game, not a complete one: three turns, one of them with an illegal placement (a tile on
row 10 before both spaces under it are covered) flagged with rule ``place.support`` and put
right. Then the scoreboard.
"""

from __future__ import annotations

from scorer.core.types import Message
from tableref.demo_script import Step

N = "neutral"
COLOURS = ("red", "blue", "green", "yellow", "white", "black")

SCRIPT: tuple[Step, ...] = (
    Step("Blue lays family tile A on r11c1 (bottom row) and sells the black treasure: onto the black price table. / "
         "蓝方把家族板块 A 放在 r11c1（最底排），卖掉黑色宝物：放到黑色价格表上。",
         put=(("r11c1", N, "family-A"), ("price-black", N, "treasure-black")), take=(("r11c1", N, "treasure-black"),),
         expect_pending=True),
    Step("Blue declares the turn on the dashboard: tile A on r11c1, treasure sold, a tile drawn from stack 0. / "
         "蓝方在仪表板上声明本回合：A 放在 r11c1，宝物卖出，从第 0 堆补一块板块。",
         declare={"type": "turn", "player": "blue", "steps": [{"do": "place", "tile": "A", "space": "r11c1", "sell": True}],
                  "draws": [{"stack": 0}]}, expect_moves=1),
    Step("Red puts tile B on r10c1 -- illegal: r11c2 under it is not covered yet. / 红方把板块 B 放在 r10c1——违规：它下面的 r11c2 还没有被覆盖。",
         put=(("r10c1", N, "family-B"),), expect_flag="place.support", expect_moves=1),
    Step("Red moves the tile down to r11c2, as the flag says, and keeps the red treasure that lay there (into the hand, "
         "off the table). / 红方按提示把板块移到 r11c2，并保留那里的红色宝物（收进手里，离开桌面）。",
         take=(("r10c1", N, "family-B"), ("r11c2", N, "treasure-red")), put=(("r11c2", N, "family-B"),),
         expect_clear=True, expect_pending=True, pause=2.5),
    Step("Red declares the turn: tile B on r11c2, the treasure kept, a tile drawn from stack 1. / "
         "红方声明本回合：B 放在 r11c2，宝物保留，从第 1 堆补一块板块。",
         declare={"type": "turn", "player": "red", "steps": [{"do": "place", "tile": "B", "space": "r11c2", "sell": False}],
                  "draws": [{"stack": 1}]}, expect_moves=2),
    Step("Green lays tile C on r11c3 and sells the black treasure. / 绿方把板块 C 放在 r11c3，卖掉黑色宝物。",
         put=(("r11c3", N, "family-C"), ("price-black", N, "treasure-black")), take=(("r11c3", N, "treasure-black"),),
         expect_pending=True),
    Step("Green declares the turn: tile C on r11c3, treasure sold, a tile drawn from stack 2. The demo stops here. / 绿方声明本回合：C 放在 r11c3，宝物卖出，从第 2 堆补一块板块。演示到此结束。",
         declare={"type": "turn", "player": "green", "steps": [{"do": "place", "tile": "C", "space": "r11c3", "sell": True}],
                  "draws": [{"stack": 2}]}, expect_moves=3),
)

DEMO_SETUP = {"players": ["blue", "red", "green"], "seed": 4}


def _spaces() -> tuple[str, ...]:
    from scorer.games.cheops.data import SPACES

    pyramid = tuple(str(s) for s in SPACES)
    return pyramid + tuple(f"dot-{c}" for c in COLOURS) + tuple(f"price-{c}" for c in COLOURS) + tuple(f"price-{c}-law" for c in COLOURS)


def _demo():  # built lazily by tableref.demo.game_demo
    from tableref.demo import GameDemo

    return GameDemo(
        game_id="cheops",
        setup=DEMO_SETUP,
        spaces=_spaces(),
        script=SCRIPT,
        intro=Message.t('tableref.demo_cheops.tableref_demo_a_short_scripted'),
        player_names=(("blue", "Zhang San"), ("red", "Li Si"), ("green", "Wang Wu")),
        quiet_timeout=12.0,
        close_on_complete=False,
    )


DEMO = _demo()
