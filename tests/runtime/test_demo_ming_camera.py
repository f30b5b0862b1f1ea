"""``tableref demo --game ming`` read by the synthetic camera (``vision.table_reader.TableReader`` on the
Ming layout, counting colour blobs: the learned classifier is China's only).

* ``--camera-only``: no sensor board; the table is enrolled through the dashboard's flow first, then the
  whole script is refereed by the camera alone -- the same moves and final board as ``--no-camera``.
* the default (camera and the sensor board, antennas under provinces p1-p3 only; the table enrolled first
  too): the same game again, a hand over province space p3 holds the antenna's reading back until it
  leaves, and a piece only the antenna reads is reported as a disagreement (the sensor board decides, as
  in China's demo).

In all three the game goes through the round-2 scoring: red's first prince move of phase 3 is undone with
the buttons and taken back, the rules' scoring (majorities into the city, returns, the city emptied) is
carried out by the players and followed by the referee without a flag, and the scores are checked.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("hardware.camera")

from demo_process import enrolled_before_the_first_move, flag_lines, game_record, moves, three_modes  # noqa: E402
from demo_process import final_board as board_of_record  # noqa: E402
from scorer.core import Piece, get_game  # noqa: E402
from tableref.demo import build_game_demo, game_demo, wait_until  # noqa: E402
from tableref.demo_ming import MOVES  # noqa: E402
from tableref.demo_ming_game import FINAL_SCORES, played  # noqa: E402

HAND = "Blue reaches over province space p3"
HAND_LEAVES = "The hand leaves: blue's family member on province space p3 is read."


def final_board(data_dir: Path) -> dict:
    return board_of_record(game_record(data_dir))


def scores(data_dir: Path) -> dict[str, int]:
    """The totals the saved record scores to (the engine replays it)."""
    from scorer.core import SetupOptions, get_game

    record = game_record(data_dir)
    game = get_game("ming")
    state = game.setup(SetupOptions.from_json(record["setup"]))
    for move in record["moves"]:
        state = game.apply(state, game.move_from_json(move))
    return {p.player: p.total for p in game.score(state).players}


def tagged(out: str, *tags: str) -> list[str]:
    """The lines of these kinds (``[UNDO]``...) without their version numbers."""
    return [line.split("] ", 1)[1].split(" ", 1)[1] if line.split("] ", 1)[1].startswith("#") else line.split("] ", 1)[1]
            for line in out.splitlines() if line.startswith(tags)]


def hand_held_the_move_back(out: str) -> bool:
    """Blue's family member put down under the hand is accepted only after the hand has left."""
    lines = out.splitlines()
    hand = next(i for i, x in enumerate(lines) if x.startswith(f">>> {HAND}"))
    leaves = next(i for i, x in enumerate(lines) if x == f">>> {HAND_LEAVES}")
    move = next(i for i, x in enumerate(lines) if i > hand and x.startswith("[MOVE]") and "blue: family member onto province-space-p3" in x)
    return hand < leaves < move


@pytest.mark.slow
def test_ming_demo_read_by_the_camera_alone_and_with_the_sensor_board(tmp_path: Path) -> None:
    out, out_both, out_ref = three_modes(tmp_path, "ming", 200, 200)  # side by side: some 30-45 s each alone at --speed 6
    # camera only: no sensor board; enrolled through the dashboard's flow before the first move
    assert "note: camera only: no sensor board" in out and "[DEVICE] sensor-board" not in out
    assert enrolled_before_the_first_move(out), out
    assert "learned: " in out and "prince" in out.split("learned: ", 1)[1].splitlines()[0]
    assert (tmp_path / "camera-only" / "table-model.npz").is_file()
    # camera and antennas under p1-p3
    assert "antennas under p1, p2, and p3 only" in out_both and "[DEVICE] sensor-board: live" in out_both
    # the same game in all three: the illegal prince flagged and cleared, the same moves and final board
    assert flag_lines(out) == flag_lines(out_ref) == flag_lines(out_both) and len(flag_lines(out)) == 2
    assert "rule prince.occupied; spaces p3d2" in out
    assert moves(tmp_path / "camera-only") == moves(tmp_path / "sensors") == moves(tmp_path / "both")
    assert len(moves(tmp_path / "sensors")) == MOVES == 70
    game = get_game("ming")  # the game the script was built from (tableref/demo_ming_game.py), move for move
    assert [{k: v for k, v in m.items() if k != "reason"} for m in moves(tmp_path / "sensors")] == [
        game.move_to_json(game.move_from_json(m)) for m in played()]
    assert final_board(tmp_path / "camera-only") == final_board(tmp_path / "sensors") == final_board(tmp_path / "both")
    # the undo with the buttons, and the referee waiting until red's pieces are back
    for o in (out, out_both, out_ref):
        assert tagged(o, "[UNDO]", "[TABLE OK]") == ["Undone: red: prince moves p1d3, deploys 3", "The table matches the game again."]
    # the round-2 scoring carried out on the table: the same six follow-ups, no flag, the same scores
    assert tagged(out, "[FOLLOW]") == tagged(out_ref, "[FOLLOW]") and len(tagged(out_ref, "[FOLLOW]")) == 6
    assert scores(tmp_path / "camera-only") == scores(tmp_path / "both") == scores(tmp_path / "sensors") == FINAL_SCORES
    assert "Round 3 begins; yellow is the start player." in out
    # a hand over province space p3 holds the reading back (with the camera; the antenna alone reads at once)
    assert hand_held_the_move_back(out) and hand_held_the_move_back(out_both)


@pytest.mark.slow
def test_a_piece_only_the_antenna_reads_is_a_disagreement_the_sensor_board_decides(tmp_path: Path) -> None:
    # not enrolled (the camera's nominal pieces): the camera reads from the start
    demo = build_game_demo(dataclasses.replace(game_demo("ming"), enrol=False), tmp_path, settle=0.3, complete_grace=0.4,
                           quiet_timeout=1.5, camera=True, camera_fps=5.0)
    rt = demo.runtime
    rt.start()
    try:
        assert wait_until(lambda: rt.devices()["sensor_board"]["state"] == "connected", 20)
        assert wait_until(lambda: rt.devices()["camera"]["state"] == "ok", 40)
        table = demo.table
        assert "p4d1" not in table.antenna_of and "p1d1" in table.antenna_of  # antennas under p1-p3 only
        table.put("p4d1", Piece("red", "prince"))  # the camera alone sees it
        assert wait_until(lambda: rt.snapshot()["moves"] == 1, 20)
        uid = table.uids[Piece("blue", "prince")].pop(0)  # a tag under p1d1 that the camera does not see
        table.emulator.place(table.antenna_of["p1d1"], uid)
        assert wait_until(lambda: rt.snapshot()["moves"] == 2, 20)
        assert wait_until(lambda: any(d["space"] == "p1d1" for d in rt.snapshot()["sensors"]["disagreements"]), 20)
        d = next(d for d in rt.snapshot()["sensors"]["disagreements"] if d["space"] == "p1d1")
        assert d["decided_by"] == "sensor-board" and d["other_source"] == "camera" and d["message"]["zh"]
        assert [m["district"] for m in rt.export_record()["moves"]] == ["p4d1", "p1d1"]
    finally:
        demo.close()
