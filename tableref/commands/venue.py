"""``tableref venue``: every table of a venue on one screen, and the players' results across games
(docs/venue.md). ``tableref venue import`` adds exported game records to the results."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from scorer.core.types import TableRefError


class VenueArgError(TableRefError, ValueError):
    pass


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("venue", help="the venue screen: every table on one page, live, and the standings across games",
                       description="Subscribe to the venue's MQTT broker and serve the venue page: one tile per table publishing "
                                   "there (its [mqtt] section), live; the finished games of every table as standings per player "
                                   "and per game. Any machine on the venue's network can run it, the Pi included. "
                                   "`tableref venue import` adds exported game records to the results.")
    p.add_argument("--broker", default="127.0.0.1", metavar="HOST[:PORT]", help="the MQTT broker (default 127.0.0.1:1883)")
    p.add_argument("--username", help="broker account")
    p.add_argument("--password-file", metavar="FILE",
                   help="file holding the broker password (or set TABLEREF_MQTT_PASSWORD); never on the command line")
    p.add_argument("--tls", action="store_true", help="TLS to the broker (usually port 8883)")
    p.add_argument("--ca-file", metavar="FILE", help="CA certificate(s) for --tls (default: the system's)")
    p.add_argument("--topic-prefix", default="tableref", help="the tables' topic_prefix (default tableref)")
    p.add_argument("--discovery-prefix", default="homeassistant", help="Home Assistant's discovery prefix (for retiring tables)")
    p.add_argument("--name", default="", help="the venue's name, shown in the top bar")
    p.add_argument("--host", default="0.0.0.0", help="address the venue page listens on (default 0.0.0.0)")
    p.add_argument("--port", type=int, default=8090, help="port of the venue page (default 8090)")
    p.add_argument("--threads", type=int, default=32, help="web server threads; each open screen holds one (default 32)")
    p.add_argument("--data-dir", default="venue-data", help="results store, admin PIN and session key (default ./venue-data)")
    p.add_argument("--lang", default="auto", metavar="LANG",
                   help="default page language: en, zh-Hans, zh-Hant ... (default auto: the browser's)")
    p.set_defaults(func=cmd_venue)
    subs = p.add_subparsers(dest="venue_command", metavar="SUBCOMMAND")
    i = subs.add_parser("import", help="add exported game records (tableref export) to the venue's results",
                        description="Replay each record, and store its final scores, ranks and winners in the venue's results "
                                    "(the same game is stored once, however often it is imported or also received over MQTT).")
    i.add_argument("records", nargs="+", metavar="RECORD.json")
    i.add_argument("--data-dir", default="venue-data", help="the venue's data folder (default ./venue-data)")
    i.add_argument("--table", help="the table the games were played at (default: the record's meta.table)")
    i.add_argument("--names", action="append", default=[], metavar="COLOUR=NAME",
                   help="who played which colour (repeat, or comma-separated: blue=Alice,green=Bob)")
    i.add_argument("--finished", metavar="DATE", help="when the games were played (YYYY-MM-DD or an ISO time), for records "
                                                       "that do not say (exports from a table do)")
    i.set_defaults(func=cmd_import)


def _broker(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    try:
        number = int(port) if port else 1883
    except ValueError:
        raise VenueArgError(f"--broker {text!r}: expected HOST or HOST:PORT") from None
    if not host or not 0 < number < 65536:
        raise VenueArgError(f"--broker {text!r}: expected HOST or HOST:PORT")
    return host, number


def _password(args: argparse.Namespace) -> str | None:
    if args.password_file:
        try:
            with open(args.password_file, encoding="utf-8") as fh:
                return fh.readline().rstrip("\n")
        except OSError as exc:
            raise VenueArgError(f"--password-file {args.password_file}: {exc.strerror}") from None
    return os.environ.get("TABLEREF_MQTT_PASSWORD")


def cmd_venue(args: argparse.Namespace) -> int:
    from tableref.commands.run import _say
    from tableref.stopper import Stopper
    from tableref.mqtt.link import BrokerSettings
    from tableref.mqtt.topics import MqttError, check_topic
    from tableref.venue.service import VenueService, VenueSettings
    from tableref.venue.web import create_venue_app
    from web.server import make_server

    from web import i18n

    if args.lang != "auto" and args.lang not in i18n.LANGUAGES:
        raise VenueArgError(f"--lang {args.lang!r}: one of auto, {', '.join(i18n.LANGUAGES)}")
    host, port = _broker(args.broker)
    password = _password(args)
    if password is not None and not args.username:
        raise VenueArgError("a broker password needs --username")
    if args.ca_file and not args.tls:
        raise VenueArgError("--ca-file is only used with --tls")
    try:
        prefix = check_topic(args.topic_prefix, what="--topic-prefix", allow_slash=True)
        discovery = check_topic(args.discovery_prefix, what="--discovery-prefix", allow_slash=True)
    except MqttError as exc:
        raise VenueArgError(str(exc)) from None
    broker = BrokerSettings(host=host, port=port, username=args.username, password=password, tls=args.tls, ca_file=args.ca_file)
    settings = VenueSettings(broker=broker, data_dir=args.data_dir, topic_prefix=prefix, discovery_prefix=discovery, name=args.name)
    service = VenueService(settings)
    with Stopper() as stop:
        server = None
        try:
            service.start()
            _say(f"venue: following {broker.broker} under {prefix}/+/; results in {os.path.abspath(args.data_dir)}")
            app = create_venue_app(service, data_dir=args.data_dir, default_language=args.lang)
            try:
                server = make_server(app, args.host, args.port, threads=max(args.threads, 10))
            except OSError as exc:
                raise VenueArgError(f"cannot serve the venue page on {args.host}:{args.port}: {exc.strerror or exc}") from None
            server.start()
            if not server.wait_ready(15.0):
                raise VenueArgError(f"the venue page on {args.host}:{args.port} did not answer")
            _say(server.url)
            stop.event.wait()
        finally:
            if server is not None:
                server.stop()
            service.stop()
    return 0


def _names(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        for part in value.split(","):
            if not part.strip():
                continue
            colour, sep, name = part.partition("=")
            if not sep or not colour.strip() or not name.strip():
                raise VenueArgError(f"--names {part!r}: expected COLOUR=NAME")
            out[colour.strip()] = name.strip()
    return out


def cmd_import(args: argparse.Namespace) -> int:
    from scorer.core.schema import read_json
    from tableref.venue.records import game_from_record
    from tableref.venue.results import ResultsError, ResultsStore
    from tableref.venue.service import RESULTS_FILE

    names = _names(args.names)
    store = ResultsStore(os.path.join(args.data_dir, RESULTS_FILE))
    failed = 0
    try:
        for path in args.records:
            doc: Any = read_json(path, "record")
            try:
                game = game_from_record(doc, table=args.table, names=names, finished=args.finished)
            except ResultsError as exc:
                print(f"{path}: {exc.message.en}", file=sys.stderr)
                failed += 1
                continue
            game_id = store.add(game)
            seats = ", ".join(f"{p.name or p.colour} {p.score} (#{p.rank})" for p in game.players)
            state = "already in the results" if game_id is None else f"added as result {game_id}"
            print(json.dumps({"record": path, "status": state, "table": game.table_name, "game": game.game, "players": seats},
                             ensure_ascii=False))
    finally:
        store.close()
    return 1 if failed else 0
