"""Write the Zhang Yi example records under examples/ (run again after rule changes).

All examples use the invented SAMPLE map (``"sample_map_confirmed": true``): the printed map is
not public. Run: python scripts/make_zhang_yi_examples.py
"""

from __future__ import annotations

import json
from pathlib import Path

from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.games.zhang_yi import GAME
from scorer.games.zhang_yi.simulate import random_game
from scorer.records import to_record

OUT = Path(__file__).resolve().parent.parent / "examples"
NOTE = "Played on the invented SAMPLE map, not the printed board. "


def write(name: str, doc: dict) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / name).write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote examples/{name}")


def first_seed(players: int, chance: str, termination: Termination, verdict: str) -> tuple[int, tuple]:
    for seed in range(1000):
        game = random_game(seed, players, chance)
        if game[2].finished is termination and game[2].verdict == verdict:
            return seed, game
    raise SystemExit(f"no seed found for {players} players, {termination}, {verdict}")


def main() -> None:
    seed, (setup, moves, _) = first_seed(2, "declared", Termination.TIME, "win")
    write("zhang_yi-2p-complete.json", to_record(GAME, SetupOptions.from_json(setup), moves, {
        "notes": NOTE + f"A complete random 2-player game as recorded at a table: talent and chit draws, die rolls and destiny "
                        f"chits are declared moves (simulator seed {seed}). Ends by time after the last talent."}))
    seed, (setup, moves, _) = first_seed(2, "declared", Termination.HEGEMONY, "win")
    write("zhang_yi-2p-hegemony.json", to_record(GAME, SetupOptions.from_json(setup), moves, {
        "notes": NOTE + f"A complete random 2-player game ending in hegemony (simulator seed {seed})."}))
    seed, (setup, moves, _) = first_seed(2, "seeded", Termination.TIME, "win")
    write("zhang_yi-2p-seeded-complete.json", to_record(GAME, SetupOptions.from_json(setup), moves, {
        "notes": NOTE + f"A complete 2-player game with seeded chance: the engine draws talents and chits and rolls the die "
                        f"from seed {seed}; only decisions are moves."}))
    seed, (setup, moves, _) = first_seed(3, "declared", Termination.TIME, "win")
    write("zhang_yi-3p-complete.json", to_record(GAME, SetupOptions.from_json(setup), moves, {
        "notes": NOTE + f"A complete random game of the 3-player variant (simulator seed {seed})."}))
    illegal = {
        "format": "tableref-record/1",
        "game": "zhang_yi",
        "setup": {"players": ["red", "blue"], "board": "sample", "sample_map_confirmed": True, "first_player": "red"},
        "moves": [
            {"type": "draw_talent", "player": "red", "talent": "bai_qi", "source": "dashboard"},
            {"type": "place_talent", "player": "red", "talent": "bai_qi", "area": "xianyang"},
            {"type": "draw_talent", "player": "blue", "talent": "lian_po", "source": "card_reader"},
            {"type": "place_talent", "player": "blue", "talent": "lian_po", "area": "handan"},
            {"type": "draw_chit", "player": "red", "state": "qin", "source": "dashboard"},
            {"type": "recruit", "player": "red", "placements": [{"area": "xianyang", "strength": 2}]},
            {"type": "march", "player": "red", "from": "xianyang", "to": "anyi", "strength": 7, "talents": ["bai_qi"]},
        ],
        "meta": {"notes": NOTE + "Move 7 is illegal: Xianyang holds 7 after recruiting, and at least 1 strength must stay behind."},
    }
    write("zhang_yi-2p-illegal.json", illegal)


if __name__ == "__main__":
    main()
