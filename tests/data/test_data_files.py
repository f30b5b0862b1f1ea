"""`tableref boards validate` recognises every game's data file by its "format" and uses that
game's own validator; `boards list` shows the shipped data of all five games."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from tableref.cli import main

SHIPPED = {
    ("china", "boards/china-a.json"): ("china", "board"),
    ("great_wall", "deck.json"): ("great_wall", "deck"),
    ("cheops", "board.json"): ("cheops", "board"),
    ("cheops", "price_tables.json"): ("cheops", "price tables"),
    ("ming", "boards/ming-provisional.json"): ("ming", "board"),
    ("zhang_yi", "maps/sample.json"): ("zhang_yi", "map"),
}


def shipped_doc(game: str, name: str) -> dict:
    return json.loads(resources.files(f"scorer.games.{game}").joinpath(name).read_text("utf-8"))


@pytest.mark.parametrize("where,expect", SHIPPED.items(), ids=[w[1] for w in SHIPPED])
def test_every_shipped_data_file_validates_as_its_game(where, expect, tmp_path, capsys):
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(shipped_doc(*where)), "utf-8")
    assert main(["boards", "validate", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["valid"], out["game"], out["kind"], out["provisional"]) == (True, *expect, True)


@pytest.mark.parametrize("where", [("great_wall", "deck.json"), ("ming", "boards/ming-provisional.json"),
                                   ("cheops", "price_tables.json")])
def test_a_broken_file_of_another_game_is_refused_with_one_line(where, tmp_path, capsys):
    doc = shipped_doc(*where)
    victim = next(k for k, v in doc.items() if isinstance(v, (list, dict)) and k not in ("format",))
    doc[victim] = "nonsense"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc), "utf-8")
    assert main(["boards", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tableref: ") and err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err


def test_unknown_or_missing_format_names_the_known_ones(tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text('{"format": "monopoly-board/1"}', "utf-8")
    assert main(["boards", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "unknown format 'monopoly-board/1'" in err and "tableref-ming-board/1" in err
    path.write_text("[]", "utf-8")
    assert main(["boards", "validate", str(path)]) == 2
    assert 'no "format" field' in capsys.readouterr().err


def test_the_blank_zhang_yi_template_says_what_is_left_to_enter(capsys):
    template = Path(str(resources.files("scorer.games.zhang_yi").joinpath("maps/template.json")))
    assert main(["boards", "validate", str(template)]) == 2
    assert "marked incomplete" in capsys.readouterr().err


def test_list_shows_every_game(capsys):
    assert main(["boards", "list"]) == 0
    out = capsys.readouterr().out
    for needle in ("china-a: China side A", "china-b:", "great_wall deck", "cheops board",
                   "cheops price tables", "ming board", "zhang_yi map"):
        assert needle in out
    assert all(line.endswith("(PROVISIONAL)") for line in out.splitlines())
