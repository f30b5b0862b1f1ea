"""Table configuration: the example validates; every problem is one clear line naming file and key."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from tableref.cli import main
from tableref.config import ConfigError, config_from_dict, hash_pin, load_config, verify_pin

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "table.toml"


def minimal(**overrides: object) -> dict:
    doc: dict = {"game": {"id": "china", "players": ["blue", "green", "red"], "board": "china-a"}}
    doc.update(overrides)
    return doc


def test_the_example_configuration_is_valid() -> None:
    cfg = load_config(str(EXAMPLE))
    assert cfg.game_id == "china" and cfg.setup["players"] == ["blue", "green", "red", "yellow"]
    assert cfg.sensor_board.enabled and cfg.sensor_board.port == "auto"
    assert cfg.sensor_board.tags == str(ROOT / "examples" / "table-tags.json")
    assert cfg.gpio.turn_done == 17 and cfg.gpio.pin_factory == "lgpio"
    assert cfg.camera.source == "picamera2" and not cfg.card_reader.enabled
    assert cfg.store_path == str(ROOT / "examples" / "data" / "table1.sqlite")
    assert cfg.reconciler.quiet_timeout == 10.0 and cfg.settle == 0.5


def test_a_camera_still_beside_the_watched_frame() -> None:
    cfg = config_from_dict(minimal(devices={"camera": {"source": "picamera2", "width": 1280, "height": 720,
                                                       "detail_width": 4608, "detail_height": 2592}}))
    assert cfg.camera.detail == (4608, 2592)
    assert config_from_dict(minimal(devices={"camera": {"source": "picamera2"}})).camera.detail is None


def test_defaults_for_a_minimal_file() -> None:
    cfg = config_from_dict(minimal())
    assert not cfg.sensor_board.enabled and not cfg.camera.enabled
    assert cfg.gpio.enabled and cfg.gpio.buzzer == 24
    assert config_from_dict(minimal(gpio={"buzzer": False})).gpio.buzzer is None  # not fitted
    assert cfg.web.port == 8080 and cfg.pin_hash is None


@pytest.mark.parametrize("doc, words", [
    (minimal(extra={"x": 1}), ["top level", "extra"]),
    ({"game": {"id": "china", "players": ["blue", "pink", "red"]}}, ["[game]", "pink"]),
    ({"game": {"id": "nonsense", "players": ["blue"]}}, ["[game] id", "nonsense"]),
    ({"game": {"id": "china", "players": ["blue", "green"]}}, ["[game]", "players"]),
    (minimal(gpio={"turn_done": 17, "undo": 17}), ["[gpio] undo", "already used by turn_done"]),
    (minimal(gpio={"turn_done": 99}), ["[gpio] turn_done", "99"]),
    (minimal(gpio={"pin_factory": "magic"}), ["[gpio] pin_factory"]),
    (minimal(referee={"settle_seconds": -1}), ["[referee] settle_seconds"]),
    (minimal(referee={"settle": 1}), ["[referee]", "settle"]),
    (minimal(admin={"pin_hash": "1234"}), ["[admin] pin_hash", "hash-pin"]),
    (minimal(devices={"sensor_board": {"port": "/dev/ttyACM0", "tags": "missing.json"}}), ["sensor_board.tags", "does not exist"]),
    (minimal(devices={"camera": {"source": "nowhere"}}), ["camera.source", "nowhere"]),
    (minimal(devices={"card_reader": {"enabled": True}}), ["card_reader.port"]),
    (minimal(devices={"camera": {"source": "usb:0", "detail_width": 3840, "detail_height": 2160}}),
     ["camera.detail_width", "no detail stream"]),
    (minimal(devices={"camera": {"source": "picamera2", "width": 1280, "height": 720, "detail_width": 640,
                                 "detail_height": 480}}), ["camera.detail_width", "at least the watched frame"]),
    (minimal(devices={"camera": {"source": "picamera2", "detail_width": 3840}}), ["camera", "detail_height"]),
    (minimal(web={"port": 70000}), ["[web] port"]),
    ({"game": {"id": "china", "players": ["blue", "green", "red"], "names": {"pink": "x"}}}, ["names", "pink"]),
])
def test_problems_name_the_key(doc: dict, words: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        config_from_dict(doc, "t.toml")
    text = str(info.value)
    assert text.startswith("t.toml: ") and "\n" not in text
    for w in words:
        assert w in text, text


def test_bad_toml_and_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[game\nid=")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(str(bad))
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(str(tmp_path / "none.toml"))


def test_pin_hash_round_trip() -> None:
    h = hash_pin("2468")
    assert verify_pin("2468", h) and not verify_pin("1357", h)
    assert not verify_pin("2468", "garbage")
    cfg = config_from_dict(minimal(admin={"pin_hash": h}))
    assert cfg.check_pin("2468") and not cfg.check_pin("0000")


def test_cli_check_and_hash_pin(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["config", "check", str(EXAMPLE)]) == 0
    assert '"game": "china"' in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text('[game]\nid = "china"\nplayers = ["blue", "green", "red"]\n[gpio]\nundo = 17\nturn_done = 17\n')
    assert main(["config", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "[gpio]" in err
    monkeypatch.setattr(sys, "stdin", io.StringIO("2468\n"))
    assert main(["config", "hash-pin", "--stdin"]) == 0
    assert verify_pin("2468", capsys.readouterr().out.strip())
    monkeypatch.setattr(sys, "stdin", io.StringIO("12\n"))
    assert main(["config", "hash-pin", "--stdin"]) == 2


def test_cli_a_command_without_action_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config"]) == 2
