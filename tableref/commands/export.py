"""``tableref export``: a game from a table's event store as the JSON record or as CSV."""

from __future__ import annotations

import argparse
import json
import sys

from scorer.core.types import TableRefError


class ExportError(TableRefError, ValueError):
    pass


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export a game from an event store (JSON record or CSV)",
                       description="Read a table's event store (read-only; the referee may be running) and write one game as "
                                   "the JSON record `tableref score` reads, or every stored event as CSV. "
                                   "--list shows the games in the store.")
    p.add_argument("--store", required=True, metavar="FILE.sqlite")
    p.add_argument("--game", type=int, help="game number (default: the latest)")
    p.add_argument("--format", choices=["record", "json", "csv", "bgstats"], default="record",
                   help="record (= json): the JSON game record; csv: every stored event; bgstats: a finished game as the "
                        "play JSON of Board Game Stats' createPlay link (what the dashboard's 'Send to BG Stats' sends)")
    p.add_argument("--config", metavar="TABLE.toml", help="the table's configuration: player names and the table name for bgstats")
    p.add_argument("--lang", default="en", help="language of the bgstats comments (en, zh-Hans)")
    p.add_argument("--out", help="write here instead of standard output")
    p.add_argument("--list", action="store_true", help="list the games and exit")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from tableref.session import Session
    from tableref.store import EventStore

    with EventStore(args.store, read_only=True) as store:
        games = store.games()
        if args.list:
            for g in games:
                print(f"{g.id}\t{g.game}\t{g.status}\t{g.started_wall}\t{' '.join(g.setup.get('players', []))}")
            return 0
        if not games:
            raise ExportError(f"{args.store}: no games stored")
        game_no = args.game if args.game is not None else games[-1].id
        if game_no not in {g.id for g in games}:
            raise ExportError(f"{args.store}: no game {game_no} (games: {', '.join(str(g.id) for g in games)})")
        session = Session.resume(store, game_no, clock=lambda: 0.0, wall=lambda: "")
        if args.format == "csv":
            text = session.export_csv()
        elif args.format == "bgstats":
            text = json.dumps(_bgstats(session, args), ensure_ascii=False, indent=1) + "\n"
        else:
            text = json.dumps(session.export_record(), ensure_ascii=False, indent=1) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _bgstats(session: object, args: argparse.Namespace) -> dict[str, object]:
    from tableref.bgstats import play_from_session

    names: dict[str, str] = {}
    table = ""
    if args.config:
        from tableref.config import load_config

        config = load_config(args.config)
        names, table = dict(config.player_names), config.name
    return play_from_session(session, names=names, table=table, lang=args.lang)
