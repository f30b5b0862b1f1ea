"""The scripted Zhang Yi game ``tableref demo --game zhang_yi`` plays on the emulated table.

Two players (red moves first, blue) on the SAMPLE map (invented; the printed map is not public --
see docs/zhang-yi.md), chance declared (a real table). Without the camera an antenna lies under
every area of the map; every army counter (strength 1 each in the demo) and every talent carries
a tag, so the sensor board reads talents placed, recruits and marches. What no sensor sees -- the
talent drawn, the action chit drawn from the cup -- is declared through the runtime's
``declare``, as the dashboard would.

With the synthetic camera (``tableref demo --game zhang_yi``, when vision is installed) the camera
sees the whole map and the dice tray (a camera closer to the board than China's: the die needs
some 16 px a face), and the antennas lie only under Linzi and Ying, where the talents go. The
camera counts army counters by their state's colour and tells a talent counter (its state's
colour too) by the name printed on it: its face, learned when the table is enrolled (one counter
of each talent among the enrolment pieces; ``vision/counted_faces.py``). ``--no-camera`` leaves
the camera out; ``--camera-only`` leaves the sensor board out: the table is enrolled through the
dashboard's flow first, then the camera alone referees the same script (talents, recruits, the
flagged march, the undo, the battles and retreats, the end of the game) to the same moves, final board
and final scores.

A whole game, short (46 moves; the rules allow seven turns): written by hand, the talent phase and
the first strategic actions, including an illegal march (Yan's whole army leaves Shanggu) flagged
with rule ``march.leave_one`` and put right, a recruit under a hand, an undo, and a battle (Qin
into Han's Yiyang) whose die is thrown into the dice tray and read by the camera (``roll_die`` with
source ``camera``; declared on the dashboard without the camera), won by Qin, and Han's retreat
into the neutral city of Luoyang chosen by blue (15 moves). Then, built from the engine playing a
fixed plan (``tableref.demo_zhang_yi_game``): the rest of turn 1 (Wei into Taoyi, Qi and Zhao
recruit and hold with the turn-done button, Han takes Daliang in a second battle), turn 2's talent
phase with the assassin Jing Ke, and Han taking Taoyi in a third battle: its fourth city, hegemony
(6 areas or 4 cities). The game ends; both players reveal their destiny chits on the dashboard and
the runner checks the end and the final scores (blue, who backed Han, 1; red 0).
"""

from __future__ import annotations

from scorer.core.types import Message
from tableref.demo_script import Step
from tableref.demo_zhang_yi_game import steps

A = "army"

SCRIPT: tuple[Step, ...] = (
    Step(Message.t("tableref.demo_zhang_yi.talent_phase_red_draws_tian"),
         declare={"type": "draw_talent", "player": "red", "talent": "tian_dan", "source": "dashboard"}, expect_moves=1),
    Step(Message.t("tableref.demo_zhang_yi.red_places_tian_dan_linzi"),
         put=(("linzi", "qi", "talent-tian_dan"),), expect_moves=2),
    Step(Message.t("tableref.demo_zhang_yi.blue_draws_lord_chunshen_declared"),
         declare={"type": "draw_talent", "player": "blue", "talent": "chunshen_jun", "source": "dashboard"}, expect_moves=3),
    Step(Message.t("tableref.demo_zhang_yi.blue_places_lord_chunshen_ying"),
         put=(("ying", "chu", "talent-chunshen_jun"),), expect_moves=4),
    Step(Message.t("tableref.demo_zhang_yi.red_draws_yan_chit_from"),
         declare={"type": "draw_chit", "player": "red", "state": "yan", "source": "dashboard"}, expect_moves=5),
    # a hand over Ji while the recruit goes down: with the camera nothing there is believed until it leaves
    Step(Message.t("tableref.demo_zhang_yi.yan_recruits_1_strength_ji"), hand=("ji",), put=(("ji", "yan", A),), pause=0.6),
    Step(Message.t("tableref.demo_zhang_yi.hand_leaves_ji"), hand=(), expect_moves=6, pause=1.0),
    Step(Message.t("tableref.demo_zhang_yi.yan_marches_whole_army_from"),
         take=(("shanggu", "yan", A), ("shanggu", "yan", A)), put=(("ji", "yan", A), ("ji", "yan", A)),
         expect_flag="march.leave_one", expect_moves=6),
    Step(Message.t("tableref.demo_zhang_yi.red_puts_one_counter_back"),
         take=(("ji", "yan", A),), put=(("shanggu", "yan", A),), expect_clear=True, expect_moves=7, pause=2.5),
    Step(Message.t("tableref.demo_zhang_yi.blue_draws_chu_chit_declared"),
         declare={"type": "draw_chit", "player": "blue", "state": "chu", "source": "dashboard"}, expect_moves=8),
    Step(Message.t("tableref.demo_zhang_yi.chu_recruits_1_chen_1"),
         put=(("chen", "chu", A), ("shouchun", "chu", A)), expect_moves=9),
    Step(Message.t("tableref.demo_zhang_yi.chu_marches_2_from_ying"),
         take=(("ying", "chu", A), ("ying", "chu", A)), put=(("jingshan", "chu", A), ("jingshan", "chu", A)), expect_moves=10),
    Step(Message.t("tableref.demo_zhang_yi.red_draws_qin_chit"),
         declare={"type": "draw_chit", "player": "red", "state": "qin", "source": "dashboard"}, expect_moves=11),
    Step(Message.t("tableref.demo_zhang_yi.qin_recruits_2_xianyang"),
         put=(("xianyang", "qin", A), ("xianyang", "qin", A)), expect_moves=12),
    Step(Message.t("tableref.demo_zhang_yi.red_changes_mind_undo_confirm"),
         press=("undo", "confirm"), expect_moves=11, expect_undo_wait=True),
    Step(Message.t("tableref.demo_zhang_yi.red_takes_recruits_back"),
         take=(("xianyang", "qin", A), ("xianyang", "qin", A)), expect_undo_wait=False, expect_moves=11),
    Step(Message.t("tableref.demo_zhang_yi.qin_recruits_1_xianyang_1_longxi"),
         put=(("xianyang", "qin", A), ("longxi", "qin", A)), expect_moves=12),
    # a battle: the attacker stands in the battle area (after attrition) while the die is awaited
    Step(Message.t("tableref.demo_zhang_yi.qin_marches_4_xianyang_yiyang"),
         take=(("xianyang", "qin", A),) * 4, put=(("yiyang", "qin", A),) * 3, expect_moves=13),
    Step(Message.t("tableref.demo_zhang_yi.red_rolls_die_4"), roll=4,
         declare={"type": "roll_die", "player": "red", "value": 4, "source": "dashboard"}, expect_moves=14),
    Step(Message.t("tableref.demo_zhang_yi.blue_retreats_han_to_luoyang"),
         take=(("yiyang", "han", A),) * 2, put=(("luoyang", "han", A),) * 2, expect_moves=15),
)

DEMO_SETUP = {"players": ["red", "blue"], "board": "sample", "sample_map_confirmed": True, "chance": "declared",
              "first_player": "red"}

# from here on the steps are built from the engine playing the plan (tableref/demo_zhang_yi_game.py): the rest of
# turn 1, turn 2 to Han's hegemony, the destiny chits revealed and the final scoring
SCRIPT += steps(DEMO_SETUP)
MOVES = SCRIPT[-1].expect_moves  # accepted moves at the end (the opening's 15 and the plan's)


def _spaces() -> tuple[str, ...]:
    from scorer.core.game import SetupOptions
    from scorer.core.registry import get_game

    game = get_game("zhang_yi")
    state = game.setup(SetupOptions.from_json(DEMO_SETUP))
    return tuple(str(a["space"]) for a in game.state_to_json(state)["areas"])


def _demo():  # built lazily by tableref.demo_games.game_demo
    from tableref.demo_games import GameDemo

    return GameDemo(
        game_id="zhang_yi",
        setup=DEMO_SETUP,
        spaces=_spaces(),
        script=SCRIPT,
        intro=Message.t('tableref.demo_zhang_yi.tableref_demo_a_short_scripted'),
        player_names=(("red", "Zhang San"), ("blue", "Li Si")),
        notes=(Message.t("tableref.demo_zhang_yi.note_sample_map"), Message.t("tableref.demo_zhang_yi.note_talents_by_antenna")),
        camera=True,  # the synthetic camera over vision/layouts/zhang-yi-sample.json: the map and the dice tray
        rfid_regions=("linzi", "ying"),  # with the camera: antennas only under the areas the talents go to
        camera_fill=0.95,  # close enough for the die's pips (vision/dice.py: some 16 px a face)
        enrol=True,  # the camera learns the table's empty board and counters first, also with the sensor board
    )


DEMO = _demo()
