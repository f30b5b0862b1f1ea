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
    Step(Message.t("tableref.demo_zhang_yi.yan_recruits_1_strength_ji"), put=(("ji", "yan", A),), expect_moves=6),
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
        notes=(Message.t("tableref.demo_zhang_yi.note_sample_map"),),
    )


DEMO = _demo()
