"""The two main jobs as processes: ``tableref demo`` plays the whole refereed game and
``tableref run`` serves a table; both print the dashboard's address on a line of its own once it
answers, and stop cleanly."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from tableref.cli import main

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"^http://127\.0\.0\.1:(\d+)/$")


def spawn(*args: str, cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "tableref", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env, cwd=str(cwd))


class Lines:
    """Reads a process's output on a thread so the test can wait for a line with a deadline."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str]:
        with self._cond:
            ok = self._cond.wait_for(lambda: any(pattern.search(x) for x in self.lines), timeout)
            assert ok, "\n".join(self.lines[-40:])
            return next(m for x in self.lines if (m := pattern.search(x)))

    def text(self) -> str:
        with self._cond:
            return "\n".join(self.lines)


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


@pytest.mark.slow
def test_demo_plays_a_whole_refereed_game_and_serves_the_dashboard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    proc = spawn("demo", "--host", "127.0.0.1", "--port", "0", "--speed", "6", "--no-camera", "--exit-when-done",
                 "--lang", "en", "--data-dir", str(tmp_path / "demo"), cwd=tmp_path)
    out = Lines(proc)
    try:
        port = out.wait_for(URL, 60).group(1)
        state = get_json(f"http://127.0.0.1:{port}/api/state")
        assert state["game"] == "china"
        out.wait_for(re.compile(r"^\[FLAG\] .*place\.empty_province_one_piece; spaces qi-2"), 60)
        out.wait_for(re.compile(r"^\[CLEARED\] "), 30)
        out.wait_for(re.compile(r"^\[GAME OVER\] .*Winner: green"), 90)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    text = out.text()
    assert "Lu is full and scores its houses" in text and "Wei is full and scores its houses" in text
    assert "(closed by next_player)" in text and "(closed by card)" in text and "(closed by turn_done)" in text
    assert "[UNDO]" in text and "[TABLE OK]" in text
    assert re.search(r"green \(Li Si\)\s+10\s+10\s+0\s+0", text)
    # the store has the whole story, and the exported record scores the same with `tableref score`
    db = sqlite3.connect(str(tmp_path / "demo" / "demo.sqlite"))
    types = [r[0] for r in db.execute("SELECT type FROM events ORDER BY id")]
    for t in ("flag_raised", "flag_cleared", "undo", "table_matched", "score", "game_over"):
        assert t in types
    db.close()
    record = json.loads((tmp_path / "demo" / "game-1.json").read_text())
    assert len(record["moves"]) == 13 and record["moves"][8]["cards"] == ["yellow"]
    assert main(["score", str(tmp_path / "demo" / "game-1.json")]) == 0
    totals = {p["player"]: p["total"] for p in json.loads(capsys.readouterr().out)["scoreboard"]["players"]}
    assert totals == {"blue": 6, "green": 10, "red": 5}
    assert (tmp_path / "demo" / "game-1.csv").read_text().startswith("seq,wall,type")


def test_run_prints_the_dashboard_address_and_stops_cleanly(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text('[game]\nid = "china"\nplayers = ["blue", "green", "red"]\n'
                   '[gpio]\npin_factory = "mock"\n[web]\nhost = "127.0.0.1"\nport = 8080\n')
    proc = spawn("run", "--config", str(cfg), "--port", "0", "--lang", "en", cwd=tmp_path)
    out = Lines(proc)
    try:
        port = out.wait_for(URL, 60).group(1)
        state = get_json(f"http://127.0.0.1:{port}/api/state")
        assert state["turn"]["active"] == ["blue"] and state["devices"]["gpio"]["state"] == "ok"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Scoreboard" in out.text()
    assert (tmp_path / "data" / "table.sqlite").exists()


def test_run_with_a_bad_configuration_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text('[game]\nid = "china"\nplayers = ["blue", "blue", "red"]\n')
    assert main(["run", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(cfg) in err
