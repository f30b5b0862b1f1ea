"""The scripted Ming Dynasty game ``tableref demo --game ming`` plays on the emulated table.

Three players (red, blue, yellow; red starts) on the shipped provisional board (invented values;
see docs/ming.md). Without the camera, an antenna lies under every district's open area, cloister and city, and
under each province space at the board edge; every prince and family member carries a tag, so the
sensor board reads the princes placed and moved, the family members put on province spaces,
deployed into districts and cloisters, taken off for a dragon, moved into the city and back. What
no sensor sees -- which display card a player takes, a pass, the secret return cards -- is declared
through the runtime's ``declare``, as the dashboard (or a card reader) would.

Two rounds of the six, through the round-2 scoring (70 moves). By hand, the opening: the set-up
(with an illegal prince placement on a district that already has a prince, flagged with rule
``prince.occupied`` and put right), phase 1 (the province spaces, one placement with a hand over
the board) and the start of phase 2 (cards and a dragon). Then, built from the engine playing a
fixed plan (``tableref.demo_ming_game``): the rest of phase 2; phase 3 with red's first prince move
undone with the buttons (the referee waits for the pieces to come back) and played differently,
princes moving and staying, monks in cloisters, passes; round 2, where blue's prince travels through
red's district and ousts red's monk in p1d1; and the round-2 scoring: the players move the
majorities into the city houses, declare their return cards, send a piece back by choice and clear
the cities into the box, the referee following them without a flag. The runner then checks the
scores (red 24, blue 20, yellow 20) and the scoreboard is printed.

With the synthetic camera (``tableref demo --game ming``, when vision is installed) the camera
sees the whole board and the antennas lie only under the upper row of provinces (p1-p3), as in
China's demo, and the table is enrolled first; ``--camera-only`` leaves the sensor board out,
``--no-camera`` the camera.
"""

from __future__ import annotations

from scorer.core.types import Message, player_label
from tableref.demo_ming_game import FINAL_SCORES, steps
from tableref.demo_script import Step

F, P = "family", "prince"


def _round(say: Message, spaces: tuple[tuple[str, str], ...], moves: int) -> tuple[Step, ...]:
    """One placement per player in turn (one step each: pieces put down together would settle in
    any order, and a piece settling before the previous player's is out of turn)."""
    out = []
    for i, (owner, prov) in enumerate(spaces):
        text = say if i == 0 else Message.t("tableref.demo_ming.family_member_on", player=player_label(owner), space=prov)
        out.append(Step(text, put=((f"province-space-{prov}", owner, F),), expect_moves=moves - len(spaces) + i + 1, pause=0.6))
    return tuple(out)


SCRIPT: tuple[Step, ...] = (
    Step(Message.t("tableref.demo_ming.set_up_red_places_prince"), put=(("p1d1", "red", P),), expect_moves=1),
    Step(Message.t("tableref.demo_ming.blue_places_prince_p3d2"), put=(("p3d2", "blue", P),), expect_moves=2),
    Step(Message.t("tableref.demo_ming.yellow_puts_prince_into_p3d2"),
         put=(("p3d2", "yellow", P),), expect_flag="prince.occupied", expect_moves=2),
    Step(Message.t("tableref.demo_ming.yellow_moves_prince_p5d1_flag"),
         take=(("p3d2", "yellow", P),), put=(("p5d1", "yellow", P),), expect_clear=True, expect_moves=3, pause=2.5),
    *_round(Message.t("tableref.demo_ming.phase_1_each_player_turn"),
           (("red", "p1"), ("blue", "p3"), ("yellow", "p5")), 6),
    *_round(Message.t("tableref.demo_ming.second_round_phase_1_red"),
           (("red", "p2"), ("blue", "p3"), ("yellow", "p6")), 9),
    *_round(Message.t("tableref.demo_ming.third_round_red_p1_blue"),
           (("red", "p1"), ("blue", "p4"), ("yellow", "p5")), 12),
    *_round(Message.t("tableref.demo_ming.fourth_round_red_p6_blue"),
           (("red", "p6"), ("blue", "p2"), ("yellow", "p4")), 15),
    # the fifth round with a hand: over province space p3, which has an antenna when the camera is there too
    Step(Message.t("tableref.demo_ming.fifth_round_red_p1_blue"), put=(("province-space-p1", "red", F),), expect_moves=16,
         pause=0.6),
    Step(Message.t("tableref.demo_ming.blue_hand_over_p3"), hand=("province-space-p3",), put=(("province-space-p3", "blue", F),),
         pause=0.6),
    Step(Message.t("tableref.demo_ming.hand_leaves_p3"), hand=(), expect_moves=17, pause=1.0),
    Step(Message.t("tableref.demo_ming.family_member_on", player=player_label("yellow"), space="p6"),
         put=(("province-space-p6", "yellow", F),), expect_moves=18, pause=0.6),
    Step(Message.t("tableref.demo_ming.phase_2_red_takes_display"),
         declare={"type": "take_card", "player": "red", "province": "p1"}, expect_moves=19),
    Step(Message.t("tableref.demo_ming.blue_takes_family_member_back"),
         take=(("province-space-p3", "blue", F),), expect_moves=20),
    Step(Message.t("tableref.demo_ming.yellow_takes_display_card_province"),
         declare={"type": "take_card", "player": "yellow", "province": "p5"}, expect_moves=21),
)

DEMO_SETUP = {"players": ["red", "blue", "yellow"]}

# from here on the steps are built from the engine playing the plan (tableref/demo_ming_game.py): the rest of
# round 1 with an undo, round 2 and its scoring, which the players carry out on the table
SCRIPT += steps(DEMO_SETUP)
MOVES = SCRIPT[-1].expect_moves  # accepted moves at the end (the opening's 21 and the plan's)
SCRIPT += (Step(Message.t("tableref.demo_ming.scores_after_round_2", **FINAL_SCORES), expect_moves=MOVES,
                extra={"expect_score": FINAL_SCORES}),)


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


def _demo():  # built lazily by tableref.demo_games.game_demo
    from tableref.demo_games import GameDemo

    return GameDemo(
        game_id="ming",
        setup=DEMO_SETUP,
        spaces=_spaces(),
        script=SCRIPT,
        intro=Message.t('tableref.demo_ming.tableref_demo_a_short_scripted'),
        player_names=(("red", "Zhang San"), ("blue", "Li Si"), ("yellow", "Wang Wu")),
        camera=True,  # the synthetic camera over the provisional layout (vision/layouts/ming-provisional.json)
        rfid_regions=("p1", "p2", "p3"),  # with the camera: antennas under the upper row of provinces only
        enrol=True,  # the camera learns the table's pieces first, with the sensor board too (heaps on p4-p6's
        # province spaces are counted one off by the layout's nominal pieces: yellow 3 on p5 read as 4)
    )


DEMO = _demo()
