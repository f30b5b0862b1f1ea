"""``tableref boards``: list the shipped game data and validate any board, map, deck or price-table file."""

from __future__ import annotations

import argparse
import json

from scorer.data_files import data_kinds, summary, validate_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("boards", help="list shipped boards/decks/maps or validate a data file",
                       description="Data files hold what is printed on a game's board, cards or tables "
                                   "(docs/boards.md). Their \"format\" field says which game they are for.")
    bsub = p.add_subparsers(dest="boards_command", metavar="ACTION")
    ls = bsub.add_parser("list", help="list the shipped data of every game")
    ls.set_defaults(func=cmd_list)
    val = bsub.add_parser("validate", help="check a board, map, deck or price-table file against its schema and the rules",
                          description="Exit 0 and print a summary if the file is valid; exit 2 with one line naming the problem otherwise.")
    val.add_argument("file", metavar="FILE.json")
    val.set_defaults(func=cmd_validate)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def cmd_list(args: argparse.Namespace) -> int:
    for kind in data_kinds():
        for ref in kind.shipped:
            obj = kind.load_shipped(ref)
            s = summary(kind, obj)
            flag = " (PROVISIONAL)" if s["provisional"] else ""
            name = s["id"] or f"{kind.game}-{kind.what.replace(' ', '-')} ({ref})"
            if kind.game == "china":
                detail = f"China side {s['side']}, {'/'.join(map(str, obj.player_counts))} players, {s['house_sites']} house sites, {s['roads']} roads"
            else:
                detail = f"{kind.game} {kind.what}" + (f", {s['tables']} tables" if "tables" in s else "")
            print(f"{name}: {detail}{flag}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    kind, obj = validate_file(args.file)
    print(json.dumps({"valid": True, **summary(kind, obj)}, ensure_ascii=False))
    return 0
