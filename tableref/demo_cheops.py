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

A whole game, to its end: thirteen turns. One of them is an illegal placement (a tile on row
10 before both spaces under it are covered), flagged with rule ``place.support`` and put right;
one turn is taken back and played differently: the buttons are refused (every Cheops turn is
declared, and the undo policy leaves a declared move to the admin), the admin undoes it on the
dashboard with the PIN, and the referee waits until the tile is lifted and the treasure put back.
The game ends as the rules say (rules/cheops.md section 7): when blue sells a fourth yellow
treasure, the yellow price table is full (only its bottom number open), like the black one before
it, and two full tables end the game at once; no tile is drawn after that action. Then the final scoring (kept
treasures valued by their price tables, money) on the scoreboard.
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


def _player(colour: str) -> Message:
    return Message.t(f"tableref.demo_cheops.player.{colour}")


def _treasure(colour: str) -> Message:
    from scorer.games.cheops.data import load_board

    return load_board(None).colour_label(colour)


def turn(moves: int, player: str, tile: str, space: str, colour: str, *, sell: bool, stack: int | None,
         final_scores: dict[str, int] | None = None) -> tuple[Step, Step]:
    """One ordinary turn as two steps: the tile laid and the treasure moved (read from the table, left
    waiting), then the declaration that completes it with the tile drawn from ``stack`` (``None``: no
    draw, the turn ended the game, and the declaration step waits for its end and ``final_scores``).
    ``moves`` is the number of accepted moves once it is declared."""
    args = {"player": _player(player), "tile": tile, "space": space, "colour": _treasure(colour)}
    taken = (space, N, f"treasure-{colour}")
    lay = Step(Message.t("tableref.demo_cheops.lays_sells" if sell else "tableref.demo_cheops.lays_keeps", **args),
               put=((space, N, f"family-{tile}"),) + (((f"price-{colour}", N, f"treasure-{colour}"),) if sell else ()),
               take=(taken,), expect_pending=True)
    declared: dict = {"type": "turn", "player": player, "steps": [{"do": "place", "tile": tile, "space": space, "sell": sell}]}
    if stack is not None:
        declared["draws"] = [{"stack": stack}]
        say = Message.t("tableref.demo_cheops.declares_sold" if sell else "tableref.demo_cheops.declares_kept",
                        **args, stack=stack)
    else:
        say = Message.t("tableref.demo_cheops.declares_last", **args)
    over = stack is None
    return lay, Step(say, declare=declared, expect_moves=moves, pause=SOLD_PAUSE if sell else 1.0, expect_over=over,
                     extra={"expect_score": final_scores} if over else {})


FINAL_SCORES = {"blue": 50, "red": 40, "green": 40}  # the engine's final scoring of this game (provisional price tables)

SCRIPT += (
    *turn(4, "blue", "A", "r11c4", "white", sell=False, stack=0),
    *turn(5, "red", "B", "r11c5", "white", sell=False, stack=1),
    *turn(6, "green", "A", "r11c6", "black", sell=True, stack=2),
    # blue keeps the red treasure of r11c8, then thinks better of it: the turn is undone and played again
    *turn(7, "blue", "B", "r11c8", "red", sell=False, stack=0),
    # every Cheops turn is declared, so the buttons may not take it back (tableref/session.py, undo policy 4):
    # the buttons are refused and the admin undoes it on the dashboard with the PIN
    Step(Message.t("tableref.demo_cheops.blue_presses_undo_refused"), press=("undo", "confirm"), expect_moves=7),
    Step(Message.t("tableref.demo_cheops.admin_undoes_with_pin"), admin_undo=True, expect_moves=6, expect_undo_wait=True),
    Step(Message.t("tableref.demo_cheops.blue_lifts_tile_puts_treasure_back"),
         take=(("r11c8", N, "family-B"),), put=(("r11c8", N, "treasure-red"),), expect_undo_wait=False, expect_moves=6),
    *turn(7, "blue", "B", "r11c7", "yellow", sell=True, stack=0),
    *turn(8, "red", "C", "r10c4", "black", sell=True, stack=1),
    *turn(9, "green", "D", "r10c5", "black", sell=True, stack=2),  # black's fifth: its table is full
    *turn(10, "blue", "A", "r11c8", "red", sell=False, stack=0),
    *turn(11, "red", "B", "r10c3", "yellow", sell=True, stack=1),
    *turn(12, "green", "A", "r11c11", "yellow", sell=True, stack=2),
)
SCRIPT += turn(13, "blue", "C", "r10c7", "yellow", sell=True, stack=None,  # yellow's fourth: a second full table
               final_scores=FINAL_SCORES)

DEMO_SETUP = {"players": ["blue", "red", "green"], "seed": 4}


def _spaces() -> tuple[str, ...]:
    from scorer.games.cheops.data import SPACES

    pyramid = tuple(str(s) for s in SPACES)
    return pyramid + tuple(f"dot-{c}" for c in COLOURS) + tuple(f"price-{c}" for c in COLOURS) + tuple(f"price-{c}-law" for c in COLOURS)


def _demo():  # built lazily by tableref.demo_games.game_demo
    from tableref.demo_games import GameDemo

    return GameDemo(
        game_id="cheops",
        setup=DEMO_SETUP,
        spaces=_spaces(),
        script=SCRIPT,
        intro=Message.t('tableref.demo_cheops.intro'),
        player_names=(("blue", "Zhang San"), ("red", "Li Si"), ("green", "Wang Wu")),
        quiet_timeout=12.0,
        close_on_complete=False,
        camera=True,  # the synthetic camera over vision/layouts/cheops.json: tiles by their faces, scarabs by colour
        rfid_regions=("pyramid",),  # with the camera: antennas under the pyramid only (the camera alone sees the columns)
        enrol=True,  # the camera learns the table's faces and scarab colours first (it has no nominal look for them)
    )


DEMO = _demo()
