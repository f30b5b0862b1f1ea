"""``tableref score`` and ``tableref check``: score or check a JSON game record."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scorer.core.types import InvalidRecord, Message
from scorer.records import Replay, load_record, replay
from tableref.lang import add_lang_option, cli_languages, show


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="replay a game record and print the scoreboard as JSON",
                       description="Replay RECORD.json and print the scoreboard (per-player totals and per-category breakdown) as JSON. "
                                   "Exit 1 naming the first illegal move; exit 2 if the record cannot be read.")
    p.add_argument("record", metavar="RECORD.json")
    add_lang_option(p, help_extra="; the JSON has every language")
    p.set_defaults(func=cmd_score)
    c = sub.add_parser("check", help="check that every move of a game record is legal",
                       description="Exit 0 if every move is legal; exit 1 naming the first illegal move, the rule broken (English and Chinese) "
                                   "and the fix; exit 2 if the record cannot be read.")
    c.add_argument("record", metavar="RECORD.json")
    add_lang_option(c)
    c.set_defaults(func=cmd_check)


def _illegal_report(result: Replay) -> dict[str, Any]:
    assert result.illegal is not None and result.illegal_index is not None
    game = result.record.game
    move = result.record.moves[result.illegal_index]
    return {
        "move_index": result.illegal_index,
        "move_number": result.illegal_index + 1,
        "move": game.move_to_json(move),
        "description": game.describe_move(move).to_json(),
        "violations": [v.to_json() for v in result.illegal.violations],
    }


def _print_illegal(result: Replay, langs: tuple[str, ...]) -> None:
    """The refused move, then each rule broken and its fix, one line per language."""
    report = _illegal_report(result)
    move = report["move"]
    heading = show(Message.t("cli.illegal_move", number=report["move_number"]), langs)
    print(f"{heading} ({json.dumps(move, ensure_ascii=False)}):", file=sys.stderr)
    for v in result.illegal.violations:  # type: ignore[union-attr]
        for lang in langs:
            print("  " + Message.t("cli.rule_line", rule=v.rule, text=v.message).get(lang), file=sys.stderr)
        if v.fix:
            for lang in langs:
                print("  " + Message.t("cli.fix_line", text=v.fix).get(lang), file=sys.stderr)


def _langs(args: argparse.Namespace) -> tuple[str, ...]:
    try:
        return cli_languages(getattr(args, "lang", None))
    except ValueError as exc:
        raise InvalidRecord(str(exc), where="--lang") from exc


def cmd_score(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    result = replay(record)
    game = record.game
    out: dict[str, Any] = {
        "game": game.id,
        "moves_applied": result.applied,
        "scoreboard": game.score(result.state).to_json(),
    }
    outcome = game.outcome(result.state)
    out["outcome"] = outcome.to_json() if outcome else None
    out["turn"] = game.turn(result.state).to_json()
    if not result.ok:
        out["illegal"] = _illegal_report(result)
    print(json.dumps(out, ensure_ascii=False, indent=2))
    if not result.ok:
        _print_illegal(result, _langs(args))
        return 1
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    result = replay(record)
    langs = _langs(args)
    if not result.ok:
        _print_illegal(result, langs)
        return 1
    over = record.game.outcome(result.state)
    status = Message.t("cli.game_over" if over else "cli.in_progress")
    print(show(Message.t("cli.check_ok", count=result.applied, status=status), langs))
    return 0
