"""``tableref demo --game zhang_yi`` read by the synthetic camera as well as the sensor board
(``vision.table_reader.TableReader`` counting the counters by their state's colour, antennas only under
Linzi and Ying where the talents go), with the battle's die thrown into the dice tray and read by the
camera (``vision.dice``, entered through the game's ``camera_declarations``).

* the same game as ``--no-camera`` (every area on an antenna, the die declared on the dashboard): the
  same moves but for the roll's source, the same final board;
* the roll is ``roll_die`` red 4 with source ``camera`` in the saved record;
* a hand over Ji holds the recruit there back until it leaves; the undo takes Qin's first recruit back;
* the camera reads a talent counter as an army counter of its colour: on Linzi the antenna decides;
* ``--camera-only`` is refused with the reason (the talents need the antennas).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("hardware.camera")

from demo_process import ROOT, final_board, finish, game_record, start_demo  # noqa: E402

HAND_LEAVES = ">>> The hand leaves: Yan's recruit in Ji is read."


def moves(record: dict) -> list[dict]:
    return [{k: v for k, v in m.items() if k != "at"} for m in record["moves"]]


def rule_flags(out: str, rule: str) -> list[str]:
    """The flags raised for ``rule`` (the script's illegal march), without their times."""
    return [line.split("] ", 1)[1].split(" ", 1)[1] for line in out.splitlines()
            if line.startswith("[FLAG]") and f"rule {rule};" in line]


@pytest.mark.slow
def test_zhang_yi_demo_read_by_the_camera_with_a_battle_the_camera_rolls(tmp_path: Path) -> None:
    both = start_demo(tmp_path / "both", "--game", "zhang_yi")
    reference = start_demo(tmp_path / "sensors", "--game", "zhang_yi", "--no-camera")
    out_ref = finish(reference, 90)
    out = finish(both, 120)
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
    assert rolls == [{"type": "roll_die", "player": "red", "value": 4, "source": "camera"}]
    assert [m for m in moves(ref) if m["type"] == "roll_die"] == [
        {"type": "roll_die", "player": "red", "value": 4, "source": "dashboard"}]
    assert "red rolls 4 (camera)" in out and "red rolls 4 (dashboard)" in out_ref
    # otherwise the same game: moves, the illegal march flagged and cleared, the final board
    same = [{**m, "source": "-"} if m["type"] == "roll_die" else m for m in moves(rec)]
    assert same == [{**m, "source": "-"} if m["type"] == "roll_die" else m for m in moves(ref)]
    assert len(same) == 15
    for text in (out, out_ref):  # (the spaces named depend on which counter the sensors saw move first)
        assert any("Leave at least 1 strength in shanggu." in f for f in rule_flags(text, "march.leave_one")), text
        assert "[CLEARED]" in text.split("rule march.leave_one", 1)[1]
    assert final_board(rec) == final_board(ref)
    assert {"type": "retreat", "player": "blue", "to": "luoyang"} in moves(rec)
    # the undo: Qin's first recruit (2 in Xianyang) is taken back, the second (1 + 1) stays
    assert "[UNDO]" in out and "Undone: red recruits 2 in xianyang" in out
    recruits = [m for m in moves(rec) if m["type"] == "recruit" and m["player"] == "red"]
    assert [sorted((p["area"], p["strength"]) for p in m["placements"]) for m in recruits][-1] == [("longxi", 1), ("xianyang", 1)]
    # a hand over Ji holds the recruit back until it leaves
    leaves = lines.index(HAND_LEAVES)
    recruit = next(i for i, x in enumerate(lines) if x.startswith("[MOVE]") and "red recruits 1 in ji" in x)
    assert leaves < recruit
    # the camera reads Tian Dan's counter as one more Qi army counter; the antenna under Linzi decides
    assert any(x.startswith("[SENSORS] linzi:") and "camera reads 6x qi army; using sensor-board" in x for x in lines), out
    assert "Scoreboard" in out


def test_the_camera_alone_cannot_play_the_zhang_yi_demo_and_says_why(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "tableref", "demo", "--game", "zhang_yi", "--camera-only", "--no-web",
                           "--exit-when-done", "--data-dir", str(tmp_path / "demo")],
                          capture_output=True, text=True, cwd=str(ROOT), timeout=60)
    assert proc.returncode == 2
    assert "cannot tell a talent counter from an army counter" in proc.stderr + proc.stdout
