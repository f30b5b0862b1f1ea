"""``tableref demo --game zhang_yi`` read by the synthetic camera (``vision.table_reader.TableReader``
counting the counters by their state's colour and telling the talent counters by the name printed on
them, ``vision/counted_faces.py``), with the battles' dice thrown into the dice tray and read by the
camera (``vision.dice``, entered through the game's ``camera_declarations``), played to its end:
Han's hegemony in turn 2, the destiny chits revealed and the final scores.

* ``--camera-only``: no sensor board; the table is enrolled through the dashboard's flow first (one
  counter of each talent among the pieces), then the whole script is refereed by the camera alone --
  the same moves (but for the roll's source), flags and final board as ``--no-camera``;
* the default (camera and antennas under Linzi and Ying, where the talents go; the table enrolled
  first): the same game again, and the camera agrees with the antennas on the talents placed;
* the rolls are ``roll_die`` red 4, blue 5, blue 4 with source ``camera`` in the saved record;
* the game ends (hegemony of Han) with the same final scores in the three (blue 1, red 0);
* a hand over Ji holds the recruit there back until it leaves; the undo takes Qin's first recruit back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("hardware.camera")

from demo_process import enrolled_before_the_first_move, final_board, flag_lines, game_record, three_modes  # noqa: E402

from scorer.core.game import SetupOptions  # noqa: E402
from scorer.core.registry import get_game  # noqa: E402
from tableref.demo_zhang_yi_game import FINAL_SCORES, played  # noqa: E402

HAND_LEAVES = ">>> The hand leaves: Yan's recruit in Ji is read."
ROLLS = [("red", 4), ("blue", 5), ("blue", 4)]  # Qin into Yiyang, Han into Daliang, Han into Taoyi
MOVES = 46  # the hand-written opening's 15 and the plan's 31 (tableref/demo_zhang_yi_game.py)


def moves(record: dict) -> list[dict]:
    return [{k: v for k, v in m.items() if k != "at"} for m in record["moves"]]


def roll_source_blind(record: dict) -> list[dict]:
    """The moves with the roll's source left out (the camera reads it, the dashboard declares it)."""
    return [{**m, "source": "-"} if m["type"] == "roll_die" else m for m in moves(record)]


def rule_flags(out: str, rule: str) -> list[str]:
    """The flags raised for ``rule`` (the script's illegal march), without their times."""
    return [line.split("] ", 1)[1].split(" ", 1)[1] for line in out.splitlines()
            if line.startswith("[FLAG]") and f"rule {rule};" in line]


def final_scores(record: dict) -> dict[str, int]:
    """The engine's scores once the record's moves are played: the game must be over."""
    game = get_game(record["game"])
    state = game.setup(SetupOptions.from_json(record["setup"]))
    for move in record["moves"]:
        state = game.apply(state, game.move_from_json(move))
    assert game.is_over(state)
    return {p.player: p.total for p in game.score(state).players}


def game_over(out: str) -> None:
    """The runner saw the end of the game and printed the final scoreboard."""
    assert "[GAME OVER]" in out and "Winner: blue. Hegemony of Han: blue backed it and wins." in out, out[-3000:]
    assert "Scoreboard (final)" in out
    board = out.split("Scoreboard (final)", 1)[1].splitlines()
    assert any(x.split()[:3] == ["blue", "(Li", "Si)"] and x.split()[3] == "1" for x in board), board
    assert any(x.split()[:3] == ["red", "(Zhang", "San)"] and x.split()[3] == "0" for x in board), board


@pytest.mark.slow
def test_zhang_yi_demo_read_by_the_camera_alone_and_with_the_sensor_board(tmp_path: Path) -> None:
    out_only, out, out_ref = three_modes(tmp_path, "zhang_yi", 150, 240)
    # camera only: no sensor board; enrolled (talents among the pieces) before the first move
    assert "note: camera only: no sensor board" in out_only and "[DEVICE] sensor-board" not in out_only
    assert enrolled_before_the_first_move(out_only), out_only
    assert "qi talent-tian_dan on " in out_only and "chu talent-chunshen_jun on " in out_only
    assert (tmp_path / "camera-only" / "table-model.npz").is_file()
    only = game_record(tmp_path / "camera-only")
    # the same game as --no-camera: the talents placed where the script puts them, the flagged march put
    # right, the undo, the battle whose die the camera reads, the retreat; the same flags, the same final board
    assert roll_source_blind(only) == roll_source_blind(game_record(tmp_path / "sensors"))
    assert [m for m in moves(only) if m["type"] == "roll_die"] == [
        {"type": "roll_die", "player": p, "value": v, "source": "camera"} for p, v in ROLLS]
    assert [m for m in moves(only) if m["type"] in ("place_talent", "assassinate")] == [
        {"type": "place_talent", "player": "red", "talent": "tian_dan", "area": "linzi"},
        {"type": "place_talent", "player": "blue", "talent": "chunshen_jun", "area": "ying"},
        {"type": "place_talent", "player": "red", "talent": "sun_bin", "area": "linzi"},
        {"type": "assassinate", "player": "blue", "target": "tian_dan"}]
    # the illegal march flagged and cleared in both (the spaces a flag names depend on which counter the
    # sensors saw move first); the camera, which sees a whole frame at once, raises no other flag (the sensor
    # board, which feels counters taken one by one, may flag a passing state and clear it)
    for text in (out_only, out_ref):
        assert any("Leave at least 1 strength in shanggu." in f for f in rule_flags(text, "march.leave_one")), text
        assert "[CLEARED]" in text.split("rule march.leave_one", 1)[1]
    assert [x.split(" [rule ", 1)[0] for x in flag_lines(out_only)] == [
        "From shanggu (strength 2) move 1 to 1: at least 1 must stay; 2 was moved. Fix: Leave at least 1 strength in shanggu.",
        "Flag cleared (the table was put right): From shanggu (strength 2) move 1 to 1: at least 1 must stay; 2 was moved."]
    assert final_board(only) == final_board(game_record(tmp_path / "sensors"))
    assert "[UNDO]" in out_only and "Undone: red recruits 2 in xianyang" in out_only
    lines_only = out_only.splitlines()
    leaves = lines_only.index(HAND_LEAVES)
    assert leaves < next(i for i, x in enumerate(lines_only) if x.startswith("[MOVE]") and "red recruits 1 in ji" in x)
    game_over(out_only)
    # the camera and antennas under Linzi and Ying; the table enrolled before the first move
    assert "antennas under linzi and ying only" in out and "[DEVICE] sensor-board: live" in out
    lines = out.splitlines()
    saved = [i for i, x in enumerate(lines) if x.startswith("[CAMERA] Table model saved")]
    first_move = next(i for i, x in enumerate(lines) if x.startswith("[MOVE]"))
    assert saved and saved[0] < first_move, out
    assert (tmp_path / "both" / "table-model.npz").is_file()
    # the battle's die: read by the camera with the camera, declared without
    rec, ref = game_record(tmp_path / "both"), game_record(tmp_path / "sensors")
    rolls = [m for m in moves(rec) if m["type"] == "roll_die"]
    assert rolls == [{"type": "roll_die", "player": p, "value": v, "source": "camera"} for p, v in ROLLS]
    assert [m for m in moves(ref) if m["type"] == "roll_die"] == [
        {"type": "roll_die", "player": p, "value": v, "source": "dashboard"} for p, v in ROLLS]
    for p, v in ROLLS:
        assert f"{p} rolls {v} (camera)" in out and f"{p} rolls {v} (dashboard)" in out_ref
    # otherwise the same game: moves, the illegal march flagged and cleared, the final board
    same = roll_source_blind(rec)
    assert same == roll_source_blind(ref)
    assert len(same) == MOVES
    assert moves(ref) == played()  # the hand-written opening and the engine-built plan, as tableref.demo_zhang_yi_game says
    for text in (out, out_ref):  # (the spaces named depend on which counter the sensors saw move first)
        assert any("Leave at least 1 strength in shanggu." in f for f in rule_flags(text, "march.leave_one")), text
        assert "[CLEARED]" in text.split("rule march.leave_one", 1)[1]
    assert final_board(rec) == final_board(ref)
    assert {"type": "retreat", "player": "blue", "to": "luoyang"} in moves(rec)
    # the undo: Qin's first recruit (2 in Xianyang) is taken back, the second (1 + 1) stays
    assert "[UNDO]" in out and "Undone: red recruits 2 in xianyang" in out
    recruits = [m for m in moves(rec) if m["type"] == "recruit" and m["player"] == "red"]
    assert [sorted((p["area"], p["strength"]) for p in m["placements"]) for m in recruits][:2] == [  # Yan's, then Qin's
        [("ji", 1)], [("longxi", 1), ("xianyang", 1)]]
    # a hand over Ji holds the recruit back until it leaves
    leaves = lines.index(HAND_LEAVES)
    recruit = next(i for i, x in enumerate(lines) if x.startswith("[MOVE]") and "red recruits 1 in ji" in x)
    assert leaves < recruit
    # the camera tells Tian Dan's and Lord Chunshen's counters by their faces: it agrees with the antennas
    assert not [x for x in lines if x.startswith(("[SENSORS] linzi:", "[SENSORS] ying:"))], out
    # the end of the game: hegemony of Han, the destiny chits revealed, the same final scores in the three
    for text in (out, out_only, out_ref):
        game_over(text)
    assert [m for m in same if m["type"] == "reveal_destiny"] == [
        {"type": "reveal_destiny", "player": "red", "state": "qin"}, {"type": "reveal_destiny", "player": "blue", "state": "han"}]
    for record in (rec, ref, only):
        assert final_scores(record) == FINAL_SCORES == {"blue": 1, "red": 0}
