"""``tableref boards``: list the shipped boards and validate a board file."""

from __future__ import annotations

import argparse
import json

from scorer.games.china.board import SHIPPED_BOARDS, load_board


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("boards", help="list shipped boards or validate a board file",
                       description="Board files hold a printed board's topology (docs/boards.md).")
    bsub = p.add_subparsers(dest="boards_command", metavar="ACTION")
    ls = bsub.add_parser("list", help="list the shipped boards")
    ls.set_defaults(func=cmd_list)
    val = bsub.add_parser("validate", help="check a China board file against the schema and the rules",
                          description="Exit 0 and print a summary if the board is valid; exit 2 with one line naming the problem otherwise.")
    val.add_argument("board", metavar="BOARD.json")
    val.set_defaults(func=cmd_validate)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def cmd_list(args: argparse.Namespace) -> int:
    for ref in SHIPPED_BOARDS:
        b = load_board(ref)
        flag = " (PROVISIONAL)" if b.provisional else ""
        print(f"{b.id}: China side {b.side}, {'/'.join(map(str, b.player_counts))} players, {len(b.sites)} house sites, {len(b.roads)} roads{flag}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    b = load_board(args.board)
    summary = {
        "id": b.id,
        "side": b.side,
        "provisional": b.provisional,
        "provinces": {p.id: len(p.sites) for p in b.provinces},
        "house_sites": len(b.sites),
        "roads": len(b.roads),
        "alliances": len(b.alliances),
    }
    print(json.dumps({"valid": True, **summary}, ensure_ascii=False))
    return 0
