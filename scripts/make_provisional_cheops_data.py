"""Write the provisional Cheops data files (scorer/games/cheops/board.json, price_tables.json).

The printed numbers of the 16 price tables and the positions of the 6 eye (law) spaces are not
public (rules/cheops.md sections 9 and 10, ambiguity C1), and neither are the scarab colours.
Everything invented lives here, in one visible place, and the files are marked
``"provisional": true``. Known facts kept:

* 6 tables of type I, 6 of type II, 4 of type III; each a column of 2-11 entries read from the
  top; entries are numbers, pairs (sole majority / others) or "X n" multipliers;
* review examples: a steady rise 5..25, "5-5-5-5-15", a zig-zag starting "0-5";
* 6 eye spaces "in the middle of the pyramid"; 6 treasure colours.

Guessed: which entries each table holds (type I = numbers only, type II = with pairs, type III =
with multipliers is a guess too), the eye-space coordinates, and the colour names.
Run: python scripts/make_provisional_cheops_data.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "scorer" / "games" / "cheops"


def pair(sole: int, others: int) -> dict[str, int]:
    return {"sole_majority": sole, "others": others}


def x(n: int) -> dict[str, int]:
    return {"x": n}


# id -> (entries, note). Lengths 5-7 so that a table fills after 4-6 sales.
TABLES = {
    "I-1": ([5, 10, 15, 20, 25], "review example: a steady rise from 5 to 25"),
    "I-2": ([5, 5, 5, 5, 15], "review example: 5-5-5-5-15"),
    "I-3": ([0, 5, 0, 10, 5, 20], "review example: a zig-zag starting 0-5 (rest invented)"),
    "I-4": ([10, 15, 20, 25, 30, 35], "invented"),
    "I-5": ([5, 10, 10, 15, 20, 30], "invented"),
    "I-6": ([20, 15, 10, 15, 25], "invented"),
    "II-1": ([5, 10, pair(5, 20), 15, pair(10, 30)], "invented"),
    "II-2": ([pair(0, 15), 10, 15, pair(5, 25), 20], "invented"),
    "II-3": ([10, pair(5, 15), 15, 20, pair(10, 25), 30], "invented"),
    "II-4": ([5, 15, pair(5, 20), 25, pair(15, 35)], "invented"),
    "II-5": ([pair(5, 10), pair(5, 15), 15, 20, 25], "invented"),
    "II-6": ([0, 10, 20, pair(10, 30), 25, pair(15, 40)], "invented"),
    "III-1": ([x(1), 10, x(2), 15, x(3)], "invented"),
    "III-2": ([5, x(2), 10, x(3), 20, 25], "invented"),
    "III-3": ([x(2), 5, x(1), 20, x(4)], "invented"),
    "III-4": ([10, x(1), 15, x(2), 20, x(3), 30], "invented"),
}

# Symmetric about the vertical axis, in rows 6-8 ("in the middle of the pyramid").
EYE_SPACES = ["r6c3", "r6c4", "r7c3", "r7c5", "r8c4", "r8c5"]

COLOURS = [("red", "红"), ("blue", "蓝"), ("green", "绿"), ("yellow", "黄"), ("white", "白"), ("black", "黑")]


def price_tables_doc() -> dict:
    return {
        "format": "tableref-cheops-price-tables/1",
        "provisional": True,
        "tables": [
            {"id": tid, "type": tid.split("-")[0], "entries": entries, "provisional": True, "note": note}
            for tid, (entries, note) in TABLES.items()
        ],
        "notes": [
            "PROVISIONAL: the printed values of the Cheops price tables are not public. These columns are invented",
            "around the three sequences quoted by reviewers. Transcribe your own tiles (docs/cheops.md) and set",
            "provisional to false for each table you have checked, and for the file when all are checked.",
        ],
    }


def board_doc() -> dict:
    return {
        "format": "tableref-cheops-board/1",
        "id": "cheops",
        "name": {"en": "Cheops (Hans im Glück 1998)", "zh": "胡夫金字塔（Cheops）"},
        "provisional": True,
        "provisional_fields": ["eye_spaces", "treasure_colours"],
        "rows": 11,
        "eye_spaces": EYE_SPACES,
        "treasure_colours": [{"id": c, "zh": zh} for c, zh in COLOURS],
        "notes": [
            "PROVISIONAL: the eye spaces' coordinates and the scarab colours are not known from any public source.",
            "Read them off your board (docs/cheops.md) and set provisional to false.",
        ],
    }


def dumps(doc: dict) -> str:
    """Indented JSON with each price table's entries on one line, so a user can edit a column easily."""
    text = json.dumps(doc, ensure_ascii=False, indent=1)
    return re.sub(
        r'"entries": \[[^\]]*?\]',
        lambda m: '"entries": ' + json.dumps(json.loads(m.group(0).split(":", 1)[1].replace("\n", "")), ensure_ascii=False),
        text,
    )


def write(name: str, doc: dict) -> None:
    path = OUT / name
    path.write_text(dumps(doc) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(OUT.parent.parent.parent)}")


def main() -> None:
    write("board.json", board_doc())
    write("price_tables.json", price_tables_doc())


if __name__ == "__main__":
    main()
