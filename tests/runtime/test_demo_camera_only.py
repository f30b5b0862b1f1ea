"""``tableref demo --camera-only`` as a process: no sensor board at all; the synthetic camera alone,
read by ``vision.table_reader.TableReader``, referees the whole China script after enrolling the
table through the dashboard's enrolment flow (``Runtime.camera_enrol``). Its game must be the
normal demo's (sensor board, ``--no-camera``), run beside it: the same moves, final board and
scores, and the same illegal move flagged and put right."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("hardware.camera")

from demo_process import ROOT, final_board, finish, flag_lines, start_demo  # noqa: E402


@pytest.mark.slow
def test_camera_only_demo_referees_the_whole_script_as_the_normal_demo(tmp_path: Path) -> None:
    t0 = time.monotonic()
    camera = start_demo(tmp_path / "camera-only", "--camera-only")
    normal = start_demo(tmp_path / "normal", "--no-camera")
    out_normal = finish(normal, 120)
    out = finish(camera, 150)
    elapsed = time.monotonic() - t0
    # no sensor board; the table was enrolled first, through the dashboard's flow, and read with the model
    assert "note: camera only: no sensor board" in out
    assert "sensor-board" not in out
    lines = out.splitlines()
    enrolled = [i for i, x in enumerate(lines) if x.startswith("[CAMERA] Table model saved")]
    first_move = next(i for i, x in enumerate(lines) if x.startswith("[MOVE]"))
    assert enrolled and enrolled[0] < first_move, out
    assert "[CAMERA] Empty board photo taken" in out and "[CAMERA] Pieces learned" in out
    assert (tmp_path / "camera-only" / "table-model.npz").is_file()
    # the illegal move is flagged (rule, space, fix) and cleared as in the normal demo
    assert flag_lines(out) == flag_lines(out_normal) and len(flag_lines(out)) == 2
    assert "rule place.empty_province_one_piece; spaces qi-2" in out and "Fix: Take the second house off qi-2." in out
    assert "[GAME OVER]" in out and "Winner: green" in out
    # the same game: moves (what, who, where, cards), final board and scores
    rec = json.loads((tmp_path / "camera-only" / "game-1.json").read_text())
    ref = json.loads((tmp_path / "normal" / "game-1.json").read_text())
    strip = lambda moves: [{k: v for k, v in m.items() if k != "at"} for m in moves]  # noqa: E731
    assert strip(rec["moves"]) == strip(ref["moves"])
    assert len(rec["moves"]) == 13 and rec["moves"][8]["cards"] == ["yellow"]
    assert final_board(rec) == final_board(ref)
    proc = subprocess.run([sys.executable, "-m", "tableref", "score", str(tmp_path / "camera-only" / "game-1.json")],
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True)
    totals = {p["player"]: p["total"] for p in json.loads(proc.stdout)["scoreboard"]["players"]}
    assert totals == {"blue": 6, "green": 10, "red": 5}
    print(f"camera-only demo beside the normal one: {elapsed:.1f} s")
