"""``tableref score`` and ``tableref check``: score or check a JSON game record."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scorer.records import Replay, load_record, replay


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="replay a game record and print the scoreboard as JSON",
                       description="Replay RECORD.json and print the scoreboard (per-player totals and per-category breakdown) as JSON. "
                                   "Exit 1 naming the first illegal move; exit 2 if the record cannot be read.")
    p.add_argument("record", metavar="RECORD.json")
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the illegal-move message (default en; both are in the JSON)")
    p.set_defaults(func=cmd_score)
    c = sub.add_parser("check", help="check that every move of a game record is legal",
                       description="Exit 0 if every move is legal; exit 1 naming the first illegal move, the rule broken (English and Chinese) "
                                   "and the fix; exit 2 if the record cannot be read.")
    c.add_argument("record", metavar="RECORD.json")
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


def _print_illegal(result: Replay) -> None:
    report = _illegal_report(result)
    move = report["move"]
    print(f"illegal move {report['move_number']} ({json.dumps(move, ensure_ascii=False)}):", file=sys.stderr)
    for v in result.illegal.violations:  # type: ignore[union-attr]
        print(f"  rule {v.rule}: {v.message.en}", file=sys.stderr)
        print(f"  规则 {v.rule}：{v.message.zh}", file=sys.stderr)
        if v.fix:
            print(f"  fix: {v.fix.en}", file=sys.stderr)
            print(f"  改正：{v.fix.zh}", file=sys.stderr)


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
        _print_illegal(result)
        return 1
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    result = replay(record)
    if not result.ok:
        _print_illegal(result)
        return 1
    over = record.game.outcome(result.state)
    status = "game over" if over else "game in progress"
    print(f"ok: all {result.applied} moves are legal ({status})")
    return 0
