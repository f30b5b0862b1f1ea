"""Every JSON (and TOML) input goes through one loader with a nesting limit: a document nested
100,000 levels deep is a one-line error and exit 2, never a RecursionError traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.wiring import WiringMap
from hardware.tag_registry import RegistryError, TagRegistry
from scorer.core import InvalidRecord, safejson
from scorer.data_files import validate_file
from tableref.cli import main
from tableref.config import ConfigError, load_config
from vision.errors import LayoutError
from vision.tags import load_tag_map

ROOT = Path(__file__).resolve().parents[2]
DEEP = 100_000


def nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def deep_record(depth: int = DEEP) -> str:
    return ('{"format": "tableref-record/1", "game": "china", "setup": {"players": ["blue", "green", "red"]}, '
            f'"moves": [{{"type": "pass", "player": "blue", "deep": {nested(depth)}}}]}}')


def test_the_limit_is_exact_and_names_where() -> None:
    assert safejson.loads(nested(safejson.MAX_DEPTH)) is not None
    with pytest.raises(safejson.TooDeep, match=r"nested more than 64 levels deep \(at \$\[0\]"):
        safejson.loads(nested(safejson.MAX_DEPTH + 1), "doc")
    with pytest.raises(safejson.TooDeep):
        safejson.loads(nested(DEEP))
    with pytest.raises(InvalidRecord, match="malformed JSON: Expecting value at line 1 column 2"):
        safejson.loads("[", "doc")
    wide = "[" + ",".join(["{\"a\": [1, 2]}"] * 50_000) + "]"
    assert len(safejson.loads(wide)) == 50_000  # width is not depth
    with pytest.raises(safejson.TooDeep):
        safejson.loads_toml("a = " + nested(DEEP))


@pytest.mark.parametrize("command", ["score", "check"])
def test_cli_on_a_deep_record_exits_2_with_one_line(tmp_path: Path, command: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text(deep_record())
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "tableref", command, str(path)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and "RecursionError" not in res.stderr
    assert res.stderr.strip() == f"tableref: record {path}: nested more than 64 levels deep; refused"
    assert res.stdout == ""


def test_cli_just_under_the_limit_still_gets_the_normal_schema_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep60.json"
    path.write_text(deep_record(60))
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert "moves[0]" in err and "deep" in err and "nested" not in err


def test_deep_board_files_configuration_and_device_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "board.json"
    board.write_text('{"format": "tableref-board/1", "spaces": ' + nested(DEEP) + "}")
    assert main(["boards", "validate", str(board)]) == 2
    assert "nested more than 64 levels" in capsys.readouterr().err
    with pytest.raises(InvalidRecord, match="nested more than"):
        validate_file(str(board))
    config = tmp_path / "table.toml"
    config.write_text("[table]\nname = " + nested(DEEP, "'x'") + "\n")
    with pytest.raises(ConfigError, match="nested more than 64 levels"):
        load_config(str(config))
    assert main(["config", "check", str(config)]) == 2
    assert "nested more than 64 levels" in capsys.readouterr().err
    tags = tmp_path / "tags.json"
    tags.write_text('{"version": 1, "tags": ' + nested(DEEP) + "}")
    with pytest.raises(RegistryError, match="nested more than"):
        TagRegistry.load(tags)
    wiring = tmp_path / "wiring.json"
    wiring.write_text(nested(DEEP))
    with pytest.raises(InvalidRecord, match="wiring map .*nested more than"):
        WiringMap.load(wiring)
    with pytest.raises(LayoutError, match="tag map .*nested more than"):
        load_tag_map(wiring)
