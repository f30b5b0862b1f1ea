"""Ming with 2 players: the neutral family members are a spare player colour on the real table
(``neutral_colour``). The sensors read them as that colour; the table renames them to neutral
before anything is read (``Game.sensed_owners``, ``Observation.with_owners``), so a neutral
placement is accepted -- and without the option the same pieces are flagged (nobody plays yellow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.core import Piece, SetupOptions, get_game
from scorer.core.observation import Observation, SpaceReading
from scorer.core.types import InvalidRecord
from scorer.referee.reconciler import ReconcilerSettings
from tableref.service import EventBus
from tableref.store import EventStore
from tableref.table import Table, TableSettings

GAME = get_game("ming")
PRINCES = {"p1d1": Piece("red", "prince"), "p4d2": Piece("blue", "prince")}


def _table(tmp_path: Path, setup: dict) -> tuple[Table, list[float]]:
    now = [1000.0]
    table = Table(EventStore(str(tmp_path / "t.sqlite")), EventBus(), "ming", setup, clock=lambda: now[0], wall=lambda: "w",
                  settings=TableSettings(settle=0.4, reconciler=ReconcilerSettings(quiet_timeout=5.0)))
    return table, now


def _run(table: Table, now: list[float], cells: dict, seconds: float) -> None:
    spaces = [d for d in GAME.visible_board(table.session.state).spaces()] + list(cells) + list(PRINCES)
    end = now[0] + seconds
    while now[0] < end:
        now[0] = round(now[0] + 0.1, 6)
        readings = tuple(SpaceReading.of(s, cells.get(s, {})) for s in dict.fromkeys(spaces))
        table.observe(Observation("sensor-board", now[0], readings))
        table.step()


@pytest.mark.parametrize("aliased", [True, False])
def test_a_spare_colour_stands_for_the_neutral_family_members(tmp_path: Path, aliased: bool) -> None:
    setup = {"players": ["red", "blue"], **({"neutral_colour": "yellow"} if aliased else {})}
    table, now = _table(tmp_path, setup)
    cells: dict = {}
    for space, prince in PRINCES.items():  # the set-up: each prince on its district
        cells[space] = {prince: 1}
        _run(table, now, cells, 2.0)
    assert len(table.session.moves()) == 2 and GAME.turn(table.session.state).phase == "neutral_placement"
    cells["p2d1"] = {Piece("yellow", "family"): 1}  # red puts a yellow (neutral) family member down
    _run(table, now, cells, 8.0)
    if aliased:
        assert len(table.session.moves()) == 3 and table.reconciler.flag is None
        assert GAME.move_to_json(table.session.moves()[-1]) == {"type": "place_neutral", "player": "red", "district": "p2d1"}
        assert dict(GAME.visible_board(table.session.state).pieces("p2d1")) == {Piece("neutral", "family"): 1}
    else:  # yellow is nobody's colour here: the piece is flagged, the game is kept as it was
        assert len(table.session.moves()) == 2 and table.reconciler.flag is not None


def test_the_neutral_colour_is_a_spare_colour_of_a_two_player_game() -> None:
    for setup in ({"players": ["red", "blue", "green"], "neutral_colour": "yellow"},
                  {"players": ["red", "blue"], "neutral_colour": "red"}):
        with pytest.raises(InvalidRecord, match="neutral_colour"):
            GAME.setup(SetupOptions.from_json(setup))
    assert GAME.sensed_owners(SetupOptions.from_json({"players": ["red", "blue"], "neutral_colour": "green"})) == {"green": "neutral"}
    assert get_game("china").sensed_owners(SetupOptions.from_json({"players": ["red", "blue"]})) == {}
