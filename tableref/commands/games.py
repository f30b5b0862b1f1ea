"""``tableref games list``: the installed games and where each comes from (package, version,
entry point), including plugins that fail to load (exit 1 then, naming them)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the installed games (plugins) and where they come from",
                       description="Games are plugins found through the Python entry-point group 'tableref.games'; "
                                   "the five shipped games are declared the same way (docs/plugins.md).")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    lst = actions.add_parser("list", help="id, name, players, package, version and entry point of every installed game; "
                                          "exit 1 if a plugin fails to load")
    lst.add_argument("--json", action="store_true", help="print JSON instead of a table")
    lst.set_defaults(func=cmd_list)


def _table(rows: list[dict[str, Any]]) -> str:
    head = ["id", "name", "players", "package", "version", "entry point"]
    lines = [head]
    for r in rows:
        src = r["sources"][0] if r["sources"] else {"package": "(registered in code)", "version": "", "entry_point": ""}
        name = f"{r['name']['en']} / {r['name']['zh']}" if r["ok"] else "(does not load)"
        players = f"{r['min_players']}-{r['max_players']}" if r["ok"] else "-"
        lines.append([r["id"], name, players, src["package"] or "?", src["version"] or "", src["entry_point"]])
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def cmd_list(args: argparse.Namespace) -> int:
    from scorer.core.registry import describe

    rows = describe()
    if args.json:
        print(json.dumps({"games": rows}, ensure_ascii=False, indent=1))
    else:
        print(_table(rows))
    broken = [r for r in rows if not r["ok"]]
    for r in broken:
        print(f"tableref: {r['error']}", file=sys.stderr)
    return 1 if broken else 0
