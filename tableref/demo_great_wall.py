"""The scripted Great Wall game ``tableref demo --game great_wall`` plays on the emulated table.

Three players (blue, red, green), cards untracked (a real table). An antenna lies under each of
the three wall sections; every card and token carries a tag, so the sensor board reads plays,
revealed tokens (face up beside the row) and claimed tokens (laid on a card). What no sensor sees
-- a card drawn from one's own deck -- is declared through the runtime's ``declare``, as the
dashboard would.

A short game, not a complete one: the three sections' tokens revealed, two rounds of plays and
draws, an illegal play (two towers: a deck holds only one) flagged with rule ``deck.mix`` and put
right, a play undone with the buttons (the card taken back) and made again, and two automatic
progress checks won by claiming a token. Then the scoreboard.

With the synthetic camera (``tableref demo --game great_wall``, when vision is installed) the camera
reads the play mat too (``vision.card_reader``: cards by their index, tokens by their printed value)
and the antennas stay under every section; ``--camera-only`` leaves the sensor board out (the table is
enrolled first, as on the dashboard), ``--no-camera`` the camera.
"""

from __future__ import annotations

from scorer.core.types import Message
from tableref.demo_script import Step

T = "neutral"

SCRIPT: tuple[Step, ...] = (
    Step(Message.t("tableref.demo_great_wall.set_up_two_tokens_are"),
         put=(("section-1", T, "token-5"), ("section-1", T, "token-3")), expect_moves=1),
    Step(Message.t("tableref.demo_great_wall.beside_section_2_4_2"),
         put=(("section-2", T, "token-4"), ("section-2", T, "token-2")), expect_moves=2),
    Step(Message.t("tableref.demo_great_wall.beside_section_3_7_1"),
         put=(("section-3", T, "token-7"), ("section-3", T, "token-1")), expect_moves=3),
    Step(Message.t("tableref.demo_great_wall.blue_plays_wall_card_at"),
         put=(("section-1", "blue", "wall"),), expect_moves=4),
    Step(Message.t("tableref.demo_great_wall.blue_draws_card_no_sensor"),
         declare={"type": "draw", "player": "blue"}, expect_moves=5),
    Step(Message.t("tableref.demo_great_wall.red_plays_gate_tower_at"),
         put=(("section-2", "red", "gate"), ("section-2", "red", "tower")), expect_moves=7),
    Step(Message.t("tableref.demo_great_wall.green_puts_two_towers_at"),
         put=(("section-1", "green", "tower"), ("section-1", "green", "tower")), expect_flag="deck.mix", expect_moves=7),
    Step(Message.t("tableref.demo_great_wall.green_takes_second_tower_back"),
         take=(("section-1", "green", "tower"),), expect_clear=True, expect_moves=8, pause=2.5),
    Step(Message.t("tableref.demo_great_wall.green_draws_card_declared"), declare={"type": "draw", "player": "green"}, expect_moves=9),
    Step(Message.t("tableref.demo_great_wall.blue_plays_second_wall_at"), put=(("section-1", "blue", "wall"),), expect_moves=10),
    Step(Message.t("tableref.demo_great_wall.blue_changes_mind_undo_confirm"),
         press=("undo", "confirm"), expect_moves=9, expect_undo_wait=True),
    Step(Message.t("tableref.demo_great_wall.blue_takes_wall_back"),
         take=(("section-1", "blue", "wall"),), expect_undo_wait=False, expect_moves=9),
    Step(Message.t("tableref.demo_great_wall.blue_plays_second_wall_again"), put=(("section-1", "blue", "wall"),),
         expect_moves=10),
    Step(Message.t("tableref.demo_great_wall.blue_draws_card_declared_red"),
         declare={"type": "draw", "player": "blue"}, expect_moves=11),
    Step(Message.t("tableref.demo_great_wall.red_chooses_token_4_lays"),
         take=(("section-2", T, "token-4"),), put=(("section-2", "red", "token-4"),), expect_moves=12),
    Step(Message.t("tableref.demo_great_wall.red_draws_twice_declared"), declare={"type": "draw", "player": "red"}, expect_moves=13),
    Step(Message.t("tableref.demo_great_wall.second_draw_green_s_progress"),
         declare={"type": "draw", "player": "red"}, expect_moves=14),
    Step(Message.t("tableref.demo_great_wall.green_chooses_token_5_lays"),
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
        camera=True,  # the synthetic camera over the play mat (vision/layouts/great-wall.json, read by vision.card_reader)
    )


DEMO = _demo()
