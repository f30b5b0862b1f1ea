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
# before declaring a sale: the scarab on the price table is seen by the camera only (4 frames/s), after
# the antennas under the pyramid have seen the tile; the declaration must find the whole move shown
SOLD_PAUSE = 6.0
COLOURS = ("red", "blue", "green", "yellow", "white", "black")

SCRIPT: tuple[Step, ...] = (
    Step(Message.t("tableref.demo_cheops.blue_lays_family_tile_r11c1"),
         put=(("r11c1", N, "family-A"), ("price-black", N, "treasure-black")), take=(("r11c1", N, "treasure-black"),),
         expect_pending=True),
    Step(Message.t("tableref.demo_cheops.blue_declares_turn_dashboard_tile"),
         declare={"type": "turn", "player": "blue", "steps": [{"do": "place", "tile": "A", "space": "r11c1", "sell": True}],
                  "draws": [{"stack": 0}]}, expect_moves=1,
         pause=SOLD_PAUSE),
    Step(Message.t("tableref.demo_cheops.red_puts_tile_b_r10c1"),
         put=(("r10c1", N, "family-B"),), expect_flag="place.support", expect_moves=1),
    Step(Message.t("tableref.demo_cheops.red_moves_tile_down_r11c2"),
         take=(("r10c1", N, "family-B"), ("r11c2", N, "treasure-red")), put=(("r11c2", N, "family-B"),),
         expect_clear=True, expect_pending=True, pause=2.5),
    Step(Message.t("tableref.demo_cheops.red_declares_turn_tile_b"),
         declare={"type": "turn", "player": "red", "steps": [{"do": "place", "tile": "B", "space": "r11c2", "sell": False}],
                  "draws": [{"stack": 1}]}, expect_moves=2),
    Step(Message.t("tableref.demo_cheops.green_lays_tile_c_r11c3"),
         put=(("r11c3", N, "family-C"), ("price-black", N, "treasure-black")), take=(("r11c3", N, "treasure-black"),),
         expect_pending=True),
    Step(Message.t("tableref.demo_cheops.green_declares_turn_tile_c"),
         declare={"type": "turn", "player": "green", "steps": [{"do": "place", "tile": "C", "space": "r11c3", "sell": True}],
                  "draws": [{"stack": 2}]}, expect_moves=3,
         pause=SOLD_PAUSE),
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
        camera=True,  # the synthetic camera over vision/layouts/cheops.json: tiles by their faces, scarabs by colour
        rfid_regions=("pyramid",),  # with the camera: antennas under the pyramid only (the camera alone sees the columns)
        enrol=True,  # the camera learns the table's faces and scarab colours first (it has no nominal look for them)
    )


DEMO = _demo()
