"""``tableref demo --game great_wall`` read by the synthetic camera (``vision.card_reader.CardReader`` on the
Great Wall's play mat: cards in a fanned row per section, owner by the index square, kind by the type panel,
tokens by their printed value).

* ``--camera-only``: no sensor board; the table is enrolled through the dashboard's flow first (cards laid in a
  row, one of each kind, and one token of each value), then the whole script is refereed by the camera alone --
  the same moves, flags and final board as ``--no-camera``.
* the default (camera and the sensor board, an antenna under each section): the same game again.

The script plays the whole game on the demo's shortened deck (6 tokens): it ends when the last token is taken,
with the same final scores in all three modes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("hardware.camera")

from demo_process import enrolled_before_the_first_move, finish, flag_lines, game_record, moves, start_demo  # noqa: E402
from demo_process import final_board as board_of_record  # noqa: E402

from tableref.demo_great_wall import FINAL_SCORES  # noqa: E402


def final_board(data_dir: Path) -> dict:
    return board_of_record(game_record(data_dir))


def game_over(data_dir: Path) -> tuple[str | None, tuple[str, ...], dict[str, int]]:
    """How the saved game ended (None: it did not), its winners and the final scores, replayed by the engine."""
    from scorer.core import SetupOptions, get_game

    record = game_record(data_dir)
    game = get_game(record["game"])
    state = game.setup(SetupOptions.from_json(record["setup"]))
    for move in record["moves"]:
        state = game.apply(state, game.move_from_json(move))
    outcome = game.outcome(state)
    scores = {p.player: p.total for p in game.score(state).players}
    return (None, (), scores) if outcome is None else (str(outcome.termination.value), tuple(outcome.winners), scores)


@pytest.mark.slow
def test_great_wall_demo_read_by_the_camera_alone_and_with_the_sensor_board(tmp_path: Path) -> None:
    camera_only = start_demo(tmp_path / "camera-only", "--game", "great_wall", "--camera-only")
    reference = start_demo(tmp_path / "sensors", "--game", "great_wall", "--no-camera")
    out_ref = finish(reference, 90)
    out = finish(camera_only, 120)
    both = start_demo(tmp_path / "both", "--game", "great_wall")
    out_both = finish(both, 120)
    # camera only: no sensor board; enrolled through the dashboard's flow before the first move
    assert "note: camera only: no sensor board" in out and "[DEVICE] sensor-board" not in out
    assert enrolled_before_the_first_move(out), out
    assert (tmp_path / "camera-only" / "table-model.npz").is_file()
    assert "[DEVICE] sensor-board: live" in out_both and "[DEVICE] camera: live" in out_both
    # the same game in all three: the two towers flagged and cleared, then the two won sections until their
    # cards were off the table; the same moves and final board
    assert flag_lines(out) == flag_lines(out_ref) == flag_lines(out_both) and len(flag_lines(out)) == 6
    assert "rule deck.mix; spaces section-1" in out
    for section in ("section-1", "section-2"):
        assert any("table.clear_section" in line and f"spaces {section}" in line for line in flag_lines(out)), section
    # blue's second wall undone with the buttons, taken back (the camera sees the row as before) and played again
    for o in (out, out_ref, out_both):
        assert "[UNDO]" in o and "Undone: blue plays 1 wall at section-1" in o and "[TABLE OK]" in o
    assert moves(tmp_path / "camera-only") == moves(tmp_path / "sensors") == moves(tmp_path / "both")
    assert len(moves(tmp_path / "sensors")) == 28
    assert final_board(tmp_path / "camera-only") == final_board(tmp_path / "sensors") == final_board(tmp_path / "both")
    # the first tokens were read where their owners laid them (by the camera alone too)
    claims = [(m["player"], m["section"], m["token"]) for m in moves(tmp_path / "camera-only") if m["type"] == "claim"]
    assert claims == [("red", "section-2", 4), ("green", "section-1", 5), ("green", "section-3", 7)]
    # the last token taken ends the game at once (rules 4b), with the same final scores in all three
    for name, o in (("camera-only", out), ("sensors", out_ref), ("both", out_both)):
        assert game_over(tmp_path / name) == ("last_token", ("green",), FINAL_SCORES), name
        assert "[GAME OVER]" in o and "Scoreboard (final)" in o and "Winner: green" in o, name
    assert final_board(tmp_path / "sensors") == {}  # every section won and cleared
