"""The venue's results store (a real SQLite file): names matched case-insensitively, ranks, merging
and separating players, standings per player and per game, CSV, and importing exported records."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tableref.venue.records import game_from_record
from tableref.venue.results import FinishedGame, PlayerResult, ResultsError, ResultsStore, game_from_snapshot, name_key, ranks

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def played(table: str, when: str, *seats: tuple[str, str | None, int], game: str = "china", game_no: int = 1,
           winners: tuple[str, ...] = ()) -> FinishedGame:
    rank = ranks([(c, s, []) for c, _, s in seats], list(winners))
    return FinishedGame("mqtt", table.lower().replace(" ", "-"), table, game, game_no, 10, when,
                        tuple(PlayerResult(c, n, s, rank[c], rank[c] == 1) for c, n, s in seats))


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = ResultsStore(str(tmp_path / "results.sqlite"))
    yield s
    s.close()


def test_names_match_regardless_of_case_width_and_spaces() -> None:
    assert name_key("Alice") == name_key("  ALICE ") == name_key("ａｌｉｃｅ") == "alice"
    assert name_key("Li  Na") == name_key("li na") and name_key("李娜") == "李娜"


def test_ranks_share_places_and_the_outcome_decides_the_winners() -> None:
    assert ranks([("a", 10, []), ("b", 7, []), ("c", 7, []), ("d", 3, [])], []) == {"a": 1, "b": 2, "c": 2, "d": 4}
    assert ranks([("a", 7, [2]), ("b", 7, [1])], []) == {"a": 1, "b": 2}  # the tie-break key
    assert ranks([("a", 5, []), ("b", 5, []), ("c", 1, [])], ["a", "b"]) == {"a": 1, "b": 1, "c": 3}  # shared victory


def test_standings_merge_and_separate(store: ResultsStore) -> None:
    store.add(played("Table 1", "2026-11-21T19:00:00+00:00", ("blue", "Alice", 30), ("green", "bob", 20), ("red", None, 10)))
    store.add(played("Table 2", "2026-11-21T20:00:00+00:00", ("blue", "ALICE", 12), ("green", "Robert", 25)))
    store.add(played("Table 1", "2026-11-21T21:00:00+00:00", ("blue", "Robert", 40), ("green", "alice", 5), game_no=2))
    rows = {r["name"]: r for r in store.standings()}
    assert set(rows) == {"alice", "bob", "Robert"}  # one Alice (the latest spelling); the unnamed seat is nobody
    assert (rows["alice"]["games"], rows["alice"]["wins"], rows["alice"]["points"]) == (3, 1, 47)
    assert rows["alice"]["avg_rank"] == round((1 + 2 + 2) / 3, 2)
    assert [r["name"] for r in store.standings()] == ["Robert", "alice", "bob"]  # 2 wins, then 1 win (avg 1.67), then 0

    out = store.merge("bob", "robert", actor="admin@test")
    assert out["name"] == "Robert"
    rows = {r["name"]: r for r in store.standings()}
    assert set(rows) == {"alice", "Robert"} and rows["Robert"]["games"] == 3 and rows["Robert"]["points"] == 85
    players = {p["name"]: p for p in store.players()}
    assert players["bob"]["merged_into"] == "Robert" and players["Robert"]["merged_into"] is None
    games = store.games()
    assert [p["player"] for p in games[-1]["players"]] == ["alice", "Robert", None]  # bob's seat counts as Robert's

    with pytest.raises(ResultsError) as err:
        store.merge("robert", "bob")  # bob already counts as Robert: that would be a loop
    assert err.value.code == "conflict"
    with pytest.raises(ResultsError) as err:
        store.merge("nobody", "robert")
    assert err.value.code == "not_found" and err.value.message.zh

    store.merge("Robert", "Alice")  # a chain: bob -> Robert -> alice, so bob counts as alice too
    assert [r["name"] for r in store.standings()] == ["alice"] and store.standings()[0]["games"] == 6
    assert store.unmerge("ROBERT") and not store.unmerge("robert")
    rows = {r["name"]: r for r in store.standings()}
    # Robert is on his own again; bob was re-pointed to alice by the chain and stays there
    assert set(rows) == {"alice", "Robert"} and rows["Robert"]["games"] == 2 and rows["alice"]["games"] == 4

    per_game = store.standings("cheops")
    assert per_game == []
    assert {r["name"] for r in store.standings("china")} == {"alice", "Robert"}


def test_csv_has_every_seat_with_the_merged_player(store: ResultsStore) -> None:
    store.add(played("Table 1", "2026-11-21T19:00:00+08:00", ("blue", "Li Na", 30), ("green", "bob", 20)))
    store.add(played("Table 2", "2026-11-21T20:00:00+00:00", ("blue", "Bob", 12), ("red", None, 25)))
    store.merge("bob", "li na")
    rows = list(csv.DictReader(io.StringIO(store.csv())))
    assert [r["finished_utc"] for r in rows] == ["2026-11-21T11:00:00Z"] * 2 + ["2026-11-21T20:00:00Z"] * 2
    assert [(r["player"], r["name_recorded"], r["colour"], r["score"], r["rank"], r["winner"]) for r in rows] == [
        ("Li Na", "Li Na", "blue", "30", "1", "1"), ("Li Na", "bob", "green", "20", "2", "0"),
        ("Li Na", "Bob", "blue", "12", "2", "0"), ("", "", "red", "25", "1", "1")]


def test_a_game_is_stored_once_and_survives_reopening_the_file(tmp_path: Path) -> None:
    path = str(tmp_path / "results.sqlite")
    game = played("Table 1", "2026-11-21T19:00:00+00:00", ("blue", "Alice", 30), ("green", "Bob", 20))
    with_store = ResultsStore(path)
    assert with_store.add(game) == 1 and with_store.add(game) is None
    with_store.close()
    reopened = ResultsStore(path)
    assert reopened.add(game) is None and reopened.count() == 1
    assert reopened.delete(1) and reopened.count() == 0 and not reopened.delete(1)
    assert reopened.add(game) is not None  # deleted, so it may come back
    reopened.close()


def test_a_reopened_game_is_withdrawn_only_by_its_own_table_and_a_later_version(store: ResultsStore) -> None:
    snap = {"game": "china", "game_no": 4, "version": 30, "outcome": {"winners": ["blue"], "termination": "deck_exhausted"},
            "scores": {"players": [{"player": "blue", "total": 9, "tiebreak": []}, {"player": "red", "total": 3}]},
            "player_names": {"blue": "Alice", "red": "red"}, "last_move": {"at": "2026-11-21T19:00:00.000+00:00"}}
    game = game_from_snapshot("t1", "Table 1", snap)
    assert game is not None and [p.name for p in game.players] == ["Alice", None]
    store.add(game)
    still = dict(snap, outcome=None)
    assert not store.reopened("t2", dict(still, version=31))  # another table
    assert not store.reopened("t1", dict(still, version=30))  # not later than the end
    assert not store.reopened("t1", dict(still, version=31, game="cheops"))
    assert store.count() == 1
    assert store.reopened("t1", dict(still, version=31)) and store.count() == 0
    assert game_from_snapshot("t1", "Table 1", still) is None


def test_importing_exported_records(store: ResultsStore) -> None:
    doc = json.loads((EXAMPLES / "china-4p-complete.json").read_text())
    with pytest.raises(ResultsError) as err:
        game_from_record(doc, table="Table 4")  # this example says nothing about when it was played
    assert "when" in err.value.message.en
    game = game_from_record(doc, table="Table 4", names={"blue": "Alice", "violet": "Vi"}, finished="2026-11-20")
    assert game.game == "china" and game.table_name == "Table 4" and game.source == "import"
    by = {p.colour: p for p in game.players}
    assert by["violet"].rank == 1 and by["violet"].winner and by["violet"].name == "Vi" and by["green"].name is None
    assert sorted(p.rank for p in game.players) == [1, 2, 3, 4]
    assert store.add(game) is not None and store.add(game_from_record(doc, table="Table 4", finished="2026-11-20")) is None

    with pytest.raises(ResultsError, match="illegal"):
        game_from_record(json.loads((EXAMPLES / "china-3p-illegal.json").read_text()), table="x", finished="2026-11-20")
    unfinished = dict(doc, moves=doc["moves"][:10])
    with pytest.raises(ResultsError, match="not finished"):
        game_from_record(unfinished, table="x", finished="2026-11-20")
    with pytest.raises(ResultsError, match="colour"):
        game_from_record(doc, table="x", names={"pink": "P"}, finished="2026-11-20")
    with pytest.raises(ResultsError, match="which table"):
        game_from_record(doc, finished="2026-11-20")
    with pytest.raises(ResultsError, match="Not a game record"):
        game_from_record({"format": "tableref-record/1", "game": "chess", "setup": {}, "moves": []}, table="x")
    meta = dict(doc, meta={"table": "Table 7", "player_names": {"red": "Rae"}, "finished": "2026-11-22T10:00:00Z"})
    from_meta = game_from_record(meta)
    assert from_meta.table_name == "Table 7" and {p.colour: p.name for p in from_meta.players}["red"] == "Rae"
