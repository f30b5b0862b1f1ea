"""Write the provisional layouts of Cheops, The Great Wall, Ming and Zhang Yi to vision/layouts/,
each generated from the game's shipped data file (scripts/layoutgen/). China's come from
``python -m vision.make_layouts``.

    python scripts/make_provisional_layouts.py          # rewrite the four files
    python scripts/make_provisional_layouts.py --check  # exit 1 if a shipped file is out of date
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.layoutgen import cheops, great_wall, ming, zhang_yi  # noqa: E402

LAYOUT_DIR = ROOT / "vision" / "layouts"
GAMES = ROOT / "scorer" / "games"


def _read(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def layouts() -> dict[str, Callable[[], dict[str, Any]]]:
    """Layout file name -> how to make it."""
    return {
        "cheops": lambda: cheops.layout(_read(GAMES / "cheops" / "board.json")),
        "great-wall": lambda: great_wall.layout("great-wall"),
        "ming-provisional": lambda: ming.layout(_read(GAMES / "ming" / "boards" / "ming-provisional.json")),
        "zhang-yi-sample": lambda: zhang_yi.layout(_read(GAMES / "zhang_yi" / "maps" / "sample.json"), "zhang-yi-sample"),
    }


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/make_provisional_layouts.py")
    ap.add_argument("--check", action="store_true", help="only check that the shipped layouts are up to date")
    args = ap.parse_args(argv)
    stale = []
    for name, make in layouts().items():
        text = render(make())
        target = LAYOUT_DIR / f"{name}.json"
        if args.check:
            if not target.exists() or target.read_text("utf-8") != text:
                stale.append(target.name)
        else:
            target.write_text(text, "utf-8")
            print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run python scripts/make_provisional_layouts.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
