"""The scripted China game ``tableref demo`` plays on the emulated table.

Three players (blue, green, red) on the provisional side A. The script is data: a list of steps
the runner carries out against the *physical* (emulated) table and the buttons, each followed by
what the referee must do in response. A step that does not get its response in time stops the
demo with a clear error -- the demo is also an end-to-end check of the whole system.

What it shows, in order: moves read from the sensors; an illegal move (two houses into an empty
province) flagged with the rule, the space and the fix, then put right; an undo with the buttons
and the referee waiting for the table; Lu filling up and scoring by itself; a move made in two
steps; a hand over the board; the turn-done button closing a turn with no pieces (a card
exchange); a card tapped on the reader closing a turn; the next player's piece closing a turn;
the pile running out (declared on the dashboard); the last round and the final scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scorer.core.types import Message


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happens at the table, and what the referee must answer."""

    say: Message  # narration, shown in the terminal's languages
    put: tuple[tuple[str, str, str], ...] = ()  # (space, owner, kind) pieces put down
    take: tuple[tuple[str, str, str], ...] = ()  # pieces taken off
    press: tuple[str, ...] = ()  # GPIO buttons pressed: turn_done, undo, confirm
    admin_undo: bool = False  # the admin undoes the last move on the dashboard (the PIN checked, as web/api.py does)
    tap: tuple[str, ...] = ()  # cards tapped on the reader (colours)
    declare: dict[str, Any] | None = None  # a declaration from the dashboard
    roll: int | None = None  # a die thrown into the dice tray, read by the camera (without it: ``declare`` instead)
    hand: tuple[str, ...] | None = None  # spaces a hand hovers over (camera only); () = hand gone
    expect_moves: int | None = None  # accepted moves the game must have afterwards
    expect_flag: str | None = None  # a flag naming this rule must be raised
    expect_clear: bool = False  # the flag must be gone
    expect_undo_wait: bool | None = None
    expect_over: bool = False
    expect_pending: bool = False  # a legal move must be read and wait on the table (for a declaration)
    pause: float = 1.0  # seconds to wait before the step (scaled by --speed)
    extra: dict[str, Any] = field(default_factory=dict)  # "expect_score": {player: total}; "expect_follow": True/False
    # (the referee follows pieces the rules moved by themselves / the table matches again: Ming's scoring)


H, E = "house", "emissary"

# the games whose demo works besides China's, in the order of ``tableref demo --game``; each has a
# module ``tableref.demo_<game>`` with ``DEMO`` (a ``tableref.demo_games.GameDemo``)
GAME_DEMOS: tuple[str, ...] = ("great_wall", "cheops", "zhang_yi", "ming")

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}

SCRIPT: tuple[Step, ...] = (
    Step(Message.t("tableref.demo_script.blue_puts_house_wei_wei"),
         put=(("wei-1", "blue", H),), expect_moves=1),
    Step(Message.t("tableref.demo_script.green_puts_two_houses_wei"),
         put=(("wei-2", "green", H), ("wei-3", "green", H)), expect_moves=2),
    Step(Message.t("tableref.demo_script.red_puts_two_houses_into"),
         put=(("qi-1", "red", H), ("qi-2", "red", H)), expect_flag="place.empty_province_one_piece", expect_moves=2),
    Step(Message.t("tableref.demo_script.red_takes_second_house_off"),
         take=(("qi-2", "red", H),), expect_clear=True, expect_moves=3, pause=2.5),
    Step(Message.t("tableref.demo_script.blue_puts_house_chu"),
         put=(("chu-1", "blue", H),), expect_moves=4),
    Step(Message.t("tableref.demo_script.changes_mind_undo_then_confirm"),
         press=("undo", "confirm"), expect_moves=3, expect_undo_wait=True),
    Step(Message.t("tableref.demo_script.blue_takes_house_back_off"),
         take=(("chu-1", "blue", H),), expect_undo_wait=False, expect_moves=3),
    Step(Message.t("tableref.demo_script.blue_puts_house_lu_instead"),
         put=(("lu-1", "blue", H),), expect_moves=4),
    Step(Message.t("tableref.demo_script.green_puts_house_lu_hand"),
         hand=("lu-2", "lu-3", "lu-dragon"), put=(("lu-2", "green", H),), pause=0.5),
    Step(Message.t("tableref.demo_script.second_one_hand_leaves"),
         hand=(), put=(("lu-3", "green", H),), expect_moves=5),
    Step(Message.t("tableref.demo_script.red_fills_lu_s_last"),
         put=(("lu-4", "red", H),), expect_moves=6, extra={"expect_score": {"green": 4, "blue": 2, "red": 2}}),
    Step(Message.t("tableref.demo_script.blue_house_wei_then_second"),
         put=(("wei-4", "blue", H),), pause=1.0),
    Step(Message.t("tableref.demo_script.second_step"), put=(("wei-dragon", "blue", E),), expect_moves=7, pause=0.6),
    Step(Message.t("tableref.demo_script.green_exchanges_card_nothing_board"),
         press=("turn_done",), expect_moves=8),
    Step(Message.t("tableref.demo_script.red_house_qi_then_taps"),
         put=(("qi-2", "red", H),), pause=1.0),
    Step(Message.t("tableref.demo_script.red_taps_yellow_card"), tap=("yellow",), expect_moves=9, pause=1.2),
    Step(Message.t("tableref.demo_script.blue_adds_emissary_wei_stops"),
         put=(("wei-dragon", "blue", E),), pause=1.0),
    Step(Message.t("tableref.demo_script.green_s_pieces_appear_that"),
         put=(("wei-5", "green", H), ("wei-6", "green", H)), expect_moves=11, pause=1.5),
    Step(Message.t("tableref.demo_script.draw_pile_runs_out_for"),
         declare={"type": "pile_exhausted"}, expect_moves=12),
    Step(Message.t("tableref.demo_script.red_last_player_round_puts"),
         put=(("qi-3", "red", H),), pause=1.0),
    Step(Message.t("tableref.demo_script.red_presses_turn_done"), press=("turn_done",), expect_moves=13, expect_over=True, pause=1.0),
)
