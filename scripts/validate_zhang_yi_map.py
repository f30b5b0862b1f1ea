"""Check a Zhang Yi map file you entered from your printed board.

    python scripts/validate_zhang_yi_map.py my-zhang-yi.json

Exit 0 and print a JSON summary (areas, cities, borders by type, set-up per state, warnings) if
the map is valid and complete; exit 2 with one line naming the first problem otherwise (an
incomplete map lists what is still missing). See docs/zhang-yi.md, "Entering the printed map".
"""

from __future__ import annotations

import json
import sys

from scorer.core.types import TableRefError
from scorer.games.zhang_yi.board import load_map
from scorer.games.zhang_yi.data import STATES


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/validate_zhang_yi_map.py MAP.json", file=sys.stderr)
        return 2
    try:
        gmap = load_map(argv[0])
    except TableRefError as exc:
        print(f"invalid: {exc}", file=sys.stderr)
        return 2
    types: dict[str, int] = {}
    for _, _, t in gmap.borders:
        types[t] = types.get(t, 0) + 1
    setup = {
        STATES[s]: {a.id: a.setup_strength for a in gmap.areas if a.setup_state == s}
        for s in range(7)
    }
    print(json.dumps({
        "valid": True,
        "id": gmap.id,
        "sample": gmap.sample,
        "provisional": gmap.provisional,
        "areas": len(gmap.areas),
        "cities": [a.id for a in gmap.areas if a.city],
        "borders": types,
        "setup": setup,
        "warnings": list(gmap.warnings),
    }, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
