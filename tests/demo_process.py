"""``tableref demo`` run as a process, as a user runs it, for the demo tests (tests/runtime/test_demo_*.py):
start it, wait for it to finish, and read what it saved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.core import SetupOptions, get_game

ROOT = Path(__file__).resolve().parents[1]


def start_demo(data_dir: Path, *extra: str, speed: float = 6) -> subprocess.Popen:
    """``python -m tableref demo <extra> --no-web --exit-when-done`` saving into ``data_dir``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([sys.executable, "-m", "tableref", "demo", *extra, "--no-web", "--exit-when-done",
                             "--speed", f"{speed:g}", "--lang", "en", "--data-dir", str(data_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=str(data_dir.parent))


def finish(proc: subprocess.Popen, timeout: float) -> str:
    """The demo's output once it exited cleanly (the test fails with its output otherwise)."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail("the demo did not finish in time:\n" + out[-4000:])
    assert proc.returncode == 0, out[-4000:]
    assert "Traceback" not in out, out
    return out


def three_modes(tmp_path: Path, game: str, sensors_timeout: float, camera_timeout: float) -> tuple[str, str, str]:
    """The game's demo run side by side as ``--camera-only``, camera and sensor board, and ``--no-camera``
    (saving into ``tmp_path``/camera-only, /both and /sensors): their outputs in that order."""
    camera_only = start_demo(tmp_path / "camera-only", "--game", game, "--camera-only")
    both = start_demo(tmp_path / "both", "--game", game)
    sensors = start_demo(tmp_path / "sensors", "--game", game, "--no-camera")
    out_sensors = finish(sensors, sensors_timeout)
    return finish(camera_only, camera_timeout), finish(both, camera_timeout), out_sensors


def game_record(data_dir: Path) -> dict:
    return json.loads((data_dir / "game-1.json").read_text())


def final_board(record: dict) -> dict:
    """The board the record's moves lead to, as the game's ``visible_board`` JSON."""
    game = get_game(record["game"])
    state = game.setup(SetupOptions.from_json(record["setup"]))
    for move in record["moves"]:
        state = game.apply(state, game.move_from_json(move))
    return game.visible_board(state).to_json()


def flag_lines(out: str) -> list[str]:
    """The flags raised and cleared, without their times."""
    return [line.split("] ", 1)[1].split(" ", 1)[1] for line in out.splitlines() if line.startswith(("[FLAG]", "[CLEARED]"))]


def moves(data_dir: Path) -> list[dict]:
    """The saved game's moves without their times (what two runs of one script must share)."""
    return [{k: v for k, v in m.items() if k != "at"} for m in game_record(data_dir)["moves"]]


def enrolled_before_the_first_move(out: str) -> bool:
    """The camera's table model was saved (the dashboard's enrolment flow) before any move was accepted."""
    lines = out.splitlines()
    saved = [i for i, x in enumerate(lines) if x.startswith("[CAMERA] Table model saved")]
    first_move = next((i for i, x in enumerate(lines) if x.startswith("[MOVE]")), len(lines))
    return bool(saved) and saved[0] < first_move
