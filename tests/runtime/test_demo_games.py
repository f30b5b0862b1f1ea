"""``tableref demo --game <id>`` for the games other than China, as a process: the real runtime with
the emulated sensor board on a pseudo-terminal and mock GPIO plays the game's short script, which
includes an illegal move that is flagged (rule id, fix in English and Chinese) and then put right.
The script itself checks every answer of the referee (a missing answer ends the demo with exit 2)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tableref.cli import main

ROOT = Path(__file__).resolve().parents[2]

# game -> (the rule of its illegal move, the number of accepted moves at the end of its script)
CASES = {
    "great_wall": ("deck.mix", 28),  # the whole game, on the demo's shortened deck (test_the_great_wall_demo_...)
    "cheops": ("place.support", 13),
    "zhang_yi": ("march.leave_one", 46),  # to Han's hegemony and the final scoring (tableref/demo_zhang_yi_game.py)
    "ming": ("prince.occupied", 70),  # through the round-2 scoring (tableref/demo_ming_game.py)
}


def run_demo(game: str, data_dir: Path, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "tableref", "demo", "--game", game, "--no-web", "--exit-when-done",
                           "--speed", "6", "--lang", "both", "--data-dir", str(data_dir)],
                          capture_output=True, text=True, env=env, cwd=str(data_dir.parent), timeout=timeout)


@pytest.mark.parametrize("game", list(CASES))
def test_demo_of_game_flags_the_illegal_move_and_accepts_the_correction(game: str, tmp_path: Path) -> None:
    rule, moves = CASES[game]
    proc = run_demo(game, tmp_path / "demo")
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "Traceback" not in out + proc.stderr
    from tableref.demo import camera_available, game_demo

    if game_demo(game).camera and camera_available():  # read by the synthetic camera too, antennas under part of the board
        assert "note: camera: synthetic camera at 4 frames/s sees the whole board" in out
    else:
        assert "note: camera: not used -- this game's demo is not read by the synthetic camera" in out
    lines = out.splitlines()
    flag = [i for i, line in enumerate(lines) if line.startswith("[FLAG]")]
    assert flag, out
    first = lines[flag[0]]
    assert f"rule {rule}" in first
    assert "Fix:" in first and "改正：" in first  # the fix in English and in Chinese
    moves_before = [i for i, line in enumerate(lines) if line.startswith("[MOVE]") and i < flag[0]]
    assert moves_before, "a move was accepted before the flag"
    cleared = [i for i, line in enumerate(lines) if line.startswith("[CLEARED]") and "the table was put right" in line]
    assert cleared and cleared[0] > flag[0], out
    assert any(line.startswith("[MOVE]") for line in lines[cleared[0]:]), "the corrected move was accepted"
    assert "Scoreboard / 计分板" in out or "Scoreboard (final) / 计分板（最终）" in out
    if game == "great_wall":  # played to the end: the last token taken ends it at once (rules 4b)
        assert "[GAME OVER]" in out and "Scoreboard (final) / 计分板（最终）" in out and "The last token has been taken" in out
    # the store and the exported record agree with the script; the record scores with the engine
    record_path = tmp_path / "demo" / "game-1.json"
    record = json.loads(record_path.read_text())
    assert record["game"] == game
    assert len(record["moves"]) == moves
    assert main(["score", str(record_path)]) == 0
    accepted = len(re.findall(r"^\[MOVE\]", out, flags=re.M))
    assert accepted >= moves // 2  # several moves can close together (one line per closed turn)


def test_a_declaration_completes_the_move_the_table_shows_and_never_contradicts_it(tmp_path: Path) -> None:
    """Cheops: the table shows a tile and a sold treasure; the dashboard declares the same turn plus
    the tile drawn (invisible). A declaration that does not match the table is refused."""
    from scorer.core import Piece
    from scorer.core.observation import Observation, SpaceReading
    from scorer.referee.reconciler import ReconcilerSettings
    from tableref.demo_cheops import DEMO
    from tableref.service import EventBus
    from tableref.store import EventStore
    from tableref.table import Table, TableSettings

    now = [1000.0]
    table = Table(EventStore(str(tmp_path / "t.sqlite")), EventBus(), DEMO.game_id, DEMO.setup, clock=lambda: now[0],
                  wall=lambda: "w", settings=TableSettings(settle=0.4, reconciler=ReconcilerSettings(
                      quiet_timeout=30.0, close_on_complete=False)))
    initial = DEMO.initial_board()
    cells = {s: dict(initial.pieces(s)) for s in initial.spaces()}

    def run(seconds: float) -> None:
        end = now[0] + seconds
        while now[0] < end:
            now[0] = round(now[0] + 0.1, 6)
            table.observe(Observation("sensor-board", now[0], tuple(SpaceReading.of(s, cells.get(s, {})) for s in DEMO.spaces)))
            table.step()

    run(1.0)
    assert table.reconciler.reading is None and table.reconciler.flag is None
    cells["r11c1"] = {Piece("neutral", "family-A"): 1}
    cells["price-black"] = {Piece("neutral", "treasure-black"): 1}
    run(1.0)
    assert table.reconciler.reading is not None
    kept = {"type": "turn", "player": "blue", "steps": [{"do": "place", "tile": "A", "space": "r11c1", "sell": False}]}
    assert not table.declare(kept, "dashboard").ok  # the table shows the treasure sold
    sold = {"type": "turn", "player": "blue", "steps": [{"do": "place", "tile": "A", "space": "r11c1", "sell": True}],
            "draws": [{"stack": 0}]}
    res = table.declare(sold, "dashboard")
    assert res.ok, res.message
    assert len(table.session.moves()) == 1 and table.reconciler.reading is None
    assert table.session.game.move_to_json(table.session.moves()[0])["draws"] == [{"stack": 0}]
    run(1.0)
    assert table.reconciler.reading is None and table.reconciler.flag is None


def test_demo_help_lists_only_the_games_whose_demo_works(capsys: pytest.CaptureFixture[str]) -> None:
    from tableref.demo import game_demo
    from tableref.demo_script import GAME_DEMOS

    assert set(GAME_DEMOS) == set(CASES)  # every listed demo is played by the test above
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "{china," + ",".join(GAME_DEMOS) + "}" in text
    assert "through the round-2 scoring" in text and "an undo" in text  # what the demos show (docs/runtime.md)
    for game in GAME_DEMOS:
        assert game_demo(game).game_id == game


def test_the_great_wall_demo_plays_to_the_end_on_its_own_shortened_deck() -> None:
    """The Great Wall demo's deck file is the shipped deck with only the 6 tokens its set-up reveals (marked as the
    demo's, never the game's), installed with the package; its script ends the game by taking the last token."""
    from importlib import resources

    from scorer.core.types import InvalidRecord
    from scorer.games.great_wall.data import deck_from_json, load_deck
    from tableref.demo_great_wall import DEMO, DEMO_DECK, FINAL_SCORES, SCRIPT

    shipped = json.loads(resources.files("scorer.games.great_wall").joinpath("deck.json").read_text("utf-8"))
    demo = json.loads(resources.files("scorer.games.great_wall").joinpath("demo-deck.json").read_text("utf-8"))
    assert DEMO.setup["deck"] == DEMO_DECK == demo["id"] == "great-wall-demo-shortened"  # a shipped id: records stay portable
    mine = ("id", "name", "notes", "tokens", "shortened_supply")
    assert {k: v for k, v in demo.items() if k not in mine} == {k: v for k, v in shipped.items() if k not in mine}
    assert demo["shortened_supply"] is True and "DEMO" in demo["name"]["en"] and "DEMO ONLY" in demo["notes"][0]
    revealed = sorted(int(kind.split("-")[1]) for step in SCRIPT[:3] for _space, _owner, kind in step.put)
    deck = load_deck(DEMO_DECK)
    assert deck.shortened_supply and sorted(deck.token_list()) == revealed == [1, 2, 3, 4, 5, 7]
    assert not load_deck().shortened_supply and len(load_deck().token_list()) == 36
    # the mark is what lets a supply differ from the 36 tokens, and then only by leaving tokens out
    with pytest.raises(InvalidRecord, match="the 36 tokens are"):
        deck_from_json({k: v for k, v in demo.items() if k != "shortened_supply"})
    with pytest.raises(InvalidRecord, match="a shortened supply holds some of the 36 tokens"):
        deck_from_json(dict(demo, tokens={"8": 3}))
    # the script ends the game: its last step waits for the end and the final scores (blue 3, red 4 + 2, green 5 + 7 + 1)
    assert SCRIPT[-1].expect_over and SCRIPT[-1].extra["expect_score"] == FINAL_SCORES == {"blue": 3, "red": 6, "green": 13}
    assert sum(FINAL_SCORES.values()) == sum(revealed)  # every token won
