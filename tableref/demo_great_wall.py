"""The scripted Great Wall game ``tableref demo --game great_wall`` plays on the emulated table.

Three players (blue, red, green), cards untracked (a real table). An antenna lies under each of
the three wall sections; every card and token carries a tag, so the sensor board reads plays,
revealed tokens (face up beside the row) and claimed tokens (laid on a card). What no sensor sees
-- a card drawn from one's own deck -- is declared through the runtime's ``declare``, as the
dashboard would.

A whole game, to the end of the rules and the final scoring, on the demo's SHORTENED deck
(shipped deck ``great-wall-demo-shortened``, ``scorer/games/great_wall/demo-deck.json``: the shipped deck's cards, but only the six tokens
revealed at set-up instead of the game's 36 -- a real game is far longer; this file is the demo's,
never the game's): the three sections' tokens revealed, plays and draws, an illegal play (two towers:
a deck holds only one) flagged with rule ``deck.mix`` and put right, a play undone with the buttons
(the card taken back) and made again, progress checks won by claiming a first token (red's right to
the second one lapsing when blue plays beside it; green's kept, alone at section 3), two sections won
and cleared from the table at the referee's word (rule ``table.clear_section``), and the last token
taken, which ends the game at once (rules 4b): final scores blue 3, red 6 (both tokens of section 2),
green 13.

With the synthetic camera (``tableref demo --game great_wall``, when vision is installed) the camera
reads the play mat too (``vision.card_reader``: cards by their index, tokens by their printed value)
and the antennas stay under every section; ``--camera-only`` leaves the sensor board out (the table is
enrolled first, as on the dashboard), ``--no-camera`` the camera.
"""

from __future__ import annotations


from scorer.core.types import Message
from tableref.demo_script import Step

T = "neutral"

# The demo's own deck file: the shipped deck's cards with a SHORTENED token supply (the 6 tokens revealed at
# set-up instead of the game's 36), so that the scripted game reaches the rules' end (4b: the last token taken)
# in a few minutes. Not the game's deck: a real table plays great-wall-provisional or the players' own file.
DEMO_DECK = "great-wall-demo-shortened"  # shipped with the game (scorer/games/great_wall/demo-deck.json): records stay portable

FINAL_SCORES = {"blue": 3, "red": 6, "green": 13}  # blue 3; red 4 + 2; green 5 + 7 + 1

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
    # -- on to the end: the demo deck's supply is only the six tokens revealed above (DEMO_DECK)
    Step(Message.t("tableref.demo_great_wall.green_plays_wall_at_section_3"), put=(("section-3", "green", "wall"),), expect_moves=16),
    Step(Message.t("tableref.demo_great_wall.green_draws_blue_wins_section_1"),
         declare={"type": "draw", "player": "green"}, expect_moves=17, expect_flag="table.clear_section"),
    Step(Message.t("tableref.demo_great_wall.players_clear_section_1"),
         take=(("section-1", "blue", "wall"), ("section-1", "blue", "wall"), ("section-1", "green", "tower"),
               ("section-1", "green", "token-5"), ("section-1", T, "token-3")), expect_clear=True, expect_moves=17, pause=2.5),
    Step(Message.t("tableref.demo_great_wall.blue_plays_gate_at_section_2"), put=(("section-2", "blue", "gate"),), expect_moves=18),
    Step(Message.t("tableref.demo_great_wall.blue_draws_red_no_claim"), declare={"type": "draw", "player": "blue"}, expect_moves=19),
    Step(Message.t("tableref.demo_great_wall.red_plays_second_gate_at_section_2"), put=(("section-2", "red", "gate"),), expect_moves=20),
    Step(Message.t("tableref.demo_great_wall.red_draws_green_leads_section_3"),
         declare={"type": "draw", "player": "red"}, expect_moves=21),
    Step(Message.t("tableref.demo_great_wall.green_chooses_token_7_lays"),
         take=(("section-3", T, "token-7"),), put=(("section-3", "green", "token-7"),), expect_moves=22),
    Step(Message.t("tableref.demo_great_wall.green_draws_card_declared"), declare={"type": "draw", "player": "green"}, expect_moves=23),
    Step(Message.t("tableref.demo_great_wall.green_draws_again_blue_no_claim"),
         declare={"type": "draw", "player": "green"}, expect_moves=24),
    Step(Message.t("tableref.demo_great_wall.blue_draws_card_declared"), declare={"type": "draw", "player": "blue"}, expect_moves=25),
    Step(Message.t("tableref.demo_great_wall.blue_draws_again_red_wins_section_2"),
         declare={"type": "draw", "player": "blue"}, expect_moves=26, expect_flag="table.clear_section",
         extra={"expect_score": {"blue": 3, "red": 6, "green": 5}}),
    Step(Message.t("tableref.demo_great_wall.players_clear_section_2"),
         take=(("section-2", "red", "gate"), ("section-2", "red", "gate"), ("section-2", "red", "tower"), ("section-2", "red", "token-4"),
               ("section-2", "blue", "gate"), ("section-2", T, "token-2")),
         expect_clear=True, expect_moves=26, pause=2.5),
    Step(Message.t("tableref.demo_great_wall.red_draws_card_declared"), declare={"type": "draw", "player": "red"}, expect_moves=27),
    Step(Message.t("tableref.demo_great_wall.red_draws_again_last_token"),
         declare={"type": "draw", "player": "red"}, expect_moves=28, expect_over=True,
         extra={"expect_score": FINAL_SCORES}),
)

DEMO_SETUP = {"players": ["blue", "red", "green"], "deck": DEMO_DECK}


def _demo():  # built lazily by tableref.demo_games.game_demo
    from tableref.demo_games import GameDemo

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
