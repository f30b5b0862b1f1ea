"""``tableref emulate sensor-board`` as the demo and the tests outside the project use it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware_bridge.link import SensorLink
from firmware_bridge.transport import PortSpec
from tableref.commands.emulate import ScriptError, parse_script

from sensor_rig import wait_for

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(60)

A = bytes.fromhex("04A1B2C3D4E580")
B = bytes.fromhex("04A1B2C3D4E581")


def start(*args: str, stdin=subprocess.DEVNULL) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tableref", "emulate", "sensor-board", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin, text=True)


def stop(proc: subprocess.Popen[str]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    return proc.wait(10)


def test_script_drives_the_emulator_and_the_path_is_on_its_own_line(tmp_path):
    script = tmp_path / "game.txt"
    script.write_text("# opening\nplace 1 04A1B2C3D4E580\nplace 3 04:a1:b2:c3:d4:e5:81\nwait 0.3\n"
                      "fault garbage n=30\nfault flip count=1\nmove 1 2 04A1B2C3D4E580\n")
    proc = start("--script", str(script), "--antennas", "4")
    try:
        path = proc.stdout.readline().rstrip("\n")
        assert path.startswith("/dev/") and os.path.exists(path)
        with SensorLink(PortSpec(path=path)) as link:
            wait_for(lambda: link.table() == {2: frozenset([A]), 3: frozenset([B])}, 10, "the scripted table")
            assert link.health().antennas == 4
    finally:
        assert stop(proc) == 0


def test_commands_from_stdin_and_quit(tmp_path):
    proc = start("--antennas", "2", stdin=subprocess.PIPE)
    try:
        path = proc.stdout.readline().strip()
        with SensorLink(PortSpec(path=path)) as link:
            wait_for(lambda: link.health().state == "live", 10, "live link")
            proc.stdin.write("place 0 04A1B2C3D4E580\nbogus\nplace 9 04A1B2C3D4E580\n")
            proc.stdin.flush()
            wait_for(lambda: link.table() == {0: frozenset([A])}, 10, "the placed tag")
            proc.stdin.write("quit\n")
            proc.stdin.flush()
            assert proc.wait(10) == 0
        err = proc.stderr.read()
        assert "unknown command 'bogus'" in err and "no antenna 9" in err
    finally:
        stop(proc)


def test_a_bad_script_exits_2_with_one_line(tmp_path):
    script = tmp_path / "bad.txt"
    script.write_text("place 1 04A1B2C3D4E580\nplace one 04A1B2C3D4E580\n")
    proc = start("--script", str(script))
    assert proc.wait(10) == 2
    err = proc.stderr.read().strip().splitlines()
    assert err == ["tableref: line 2: antenna must be a number, got 'one'"]
    assert proc.stdout.read() == ""


def test_replug_prints_the_new_path(tmp_path):
    link = tmp_path / "ttySENSOR"
    script = tmp_path / "s.txt"
    script.write_text("place 0 04A1B2C3D4E580\nwait 0.1\nunplug\nreplug\nwait 0.1\n")
    proc = start("--script", str(script), "--link", str(link), "--exit-after-script")
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert out.splitlines() == [str(link), str(link)]


@pytest.mark.parametrize("line", ["wait -1", "replug sideways", "fault flip count", "remove 1", "place x 04A1B2C3"])
def test_script_validation(line):
    with pytest.raises(ScriptError):
        parse_script([line])


def test_sigterm_ends_a_session_waiting_on_stdin():
    proc = start("--antennas", "2", stdin=subprocess.PIPE)
    try:
        assert proc.stdout.readline().startswith("/dev/")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        proc.stdin.close()
        stop(proc)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_ends_a_waiting_script_at_once_and_cleanly(tmp_path, sig):
    """Ctrl-C or SIGTERM during a script's long wait, or while stdin is read: gone in well under
    the 2 s a service manager allows, exit 0, and nothing on stderr (the commands' thread reads stdin
    only when a read will not block: one left in a buffered read could abort the interpreter's exit)."""
    script = tmp_path / "s.txt"
    script.write_text(f"place 0 {A.hex()}\nwait 60\n")
    for args, stdin in ((("--script", str(script)), subprocess.DEVNULL), ((), subprocess.PIPE)):
        proc = start("--antennas", "2", *args, stdin=stdin)
        try:
            assert proc.stdout.readline().startswith("/dev/")
            time.sleep(0.3)
            began = time.monotonic()
            proc.send_signal(sig)
            assert proc.wait(10) == 0
            assert time.monotonic() - began < 1.5
            assert proc.stderr.read() == ""
        finally:
            if proc.stdin:
                proc.stdin.close()
            stop(proc)


def test_fault_parameters_keep_uids_and_patterns_as_text(tmp_path):
    from firmware_bridge.emulator import EmulatedSensorBoard
    from tableref.commands.emulate import run_command

    with EmulatedSensorBoard(4, seed=1) as board:
        for cmd in parse_script(["fault flicker antenna=1 uid=04000001 pattern=010", "fault drop count=2"]):
            run_command(board, cmd, lambda s: None)
        assert board.readers.fields[1] == {bytes.fromhex("04000001"): "010"}
