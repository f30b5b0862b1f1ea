"""``tableref demo --game cheops`` read by the synthetic camera (``vision.table_reader.TableReader``
on the Cheops layout: tiles by their printed faces, scarabs by colour, ``vision/appearance.py``).

* ``--camera-only``: no sensor board; the table is enrolled through the dashboard's flow first, then the
  whole script is refereed by the camera alone -- the same moves, flag and final board as ``--no-camera``.
* the default (camera and the sensor board, antennas under the pyramid only, the table enrolled first):
  the same game again; the camera alone sees the price columns (the sold scarabs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("hardware.camera")

from demo_process import enrolled_before_the_first_move, flag_lines, game_record, moves, three_modes  # noqa: E402
from demo_process import final_board as board_of_record  # noqa: E402


@pytest.mark.slow
def test_cheops_demo_read_by_the_camera_alone_and_with_the_sensor_board(tmp_path: Path) -> None:
    out, out_both, out_ref = three_modes(tmp_path, "cheops", 120, 240)
    # camera only: no sensor board; enrolled through the dashboard's flow before the first move
    assert "note: camera only: no sensor board" in out and "[DEVICE] sensor-board" not in out
    assert enrolled_before_the_first_move(out), out
    assert (tmp_path / "camera-only" / "table-model.npz").is_file()
    # camera and antennas under the pyramid
    assert "antennas under pyramid only" in out_both and "[DEVICE] sensor-board: live" in out_both
    # the same game in all three: the unsupported tile flagged and cleared, the same moves and final board
    assert [x for x in flag_lines(out) if "place.support" in x]
    assert flag_lines(out) == flag_lines(out_ref) == flag_lines(out_both)
    assert moves(tmp_path / "camera-only") == moves(tmp_path / "sensors") == moves(tmp_path / "both")
    assert len(moves(tmp_path / "sensors")) == 13
    assert board_of_record(game_record(tmp_path / "camera-only")) == board_of_record(game_record(tmp_path / "sensors"))
    # the whole game: the buttons' undo refused (a declared turn), the admin's undo waited for the table in
    # all three; the game ended by two full price tables, with the same final scores
    for text in (out, out_both, out_ref):
        assert "[REFUSED] That move was declared" in text and "[UNDO]" in text and "[TABLE OK]" in text
        assert "[GAME OVER]" in text and "winner(s): blue" in text
        assert text.index("[UNDO]") < text.index("[TABLE OK]") < text.index("[GAME OVER]")
    finals = [final_scores(text) for text in (out, out_both, out_ref)]
    assert finals[0] == finals[1] == finals[2] == {"blue": 50, "red": 40, "green": 40}


def final_scores(out: str) -> dict[str, int]:
    """The players' totals on the final scoreboard the demo prints."""
    lines = out.split("Scoreboard (final)", 1)[1].splitlines()[2:5]
    return {line.split()[0]: int(line.split(")")[1].split()[0]) for line in lines}
