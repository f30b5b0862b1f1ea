"""Exported game records into the venue's results (``tableref venue import``, the venue API).

A table's record (``tableref export``, docs/records.md) has the set-up and the moves; the final
scores, ranks and winners are worked out here by replaying it through the game's engine, exactly
as ``tableref score`` does. The record does not know who sat where nor at which table: the names
(colour -> name) and the table name are given with the import, or read from ``meta.player_names``
and ``meta.table`` when a record carries them.
"""

from __future__ import annotations

from typing import Any, Mapping

from scorer.core.types import InvalidRecord, Message
from tableref.venue.results import FinishedGame, ResultsError, players_from_scoreboard, utc_iso


def game_from_record(doc: Any, *, table: str | None = None, names: Mapping[str, str] | None = None,
                     finished: str | None = None) -> FinishedGame:
    """The finished game of an exported record; ``ResultsError`` (bilingual) when it cannot count.
    ``finished`` (ISO date or time) is used when the record itself has no time."""
    from scorer.records import parse_record, replay

    try:
        record = parse_record(doc)
    except InvalidRecord as exc:
        raise ResultsError(Message(f"Not a game record: {exc}", f"不是有效的对局记录：{exc}"), code="bad_input") from None
    meta = doc.get("meta") if isinstance(doc.get("meta"), Mapping) else {}
    game = record.game
    result = replay(record)
    if not result.ok:
        if not meta.get("overrides"):
            assert result.illegal_index is not None
            raise ResultsError(Message(f"Move {result.illegal_index + 1} of the record is illegal; it cannot be counted.",
                                       f"记录的第 {result.illegal_index + 1} 步违规，无法计入成绩。"), code="bad_input")
        state = game.setup(record.setup)  # an admin accepted these moves at the table (override): as played
        for move in record.moves:
            state = game.apply_unchecked(state, move)
    else:
        state = result.state
    outcome = game.outcome(state)
    if outcome is None:
        raise ResultsError(Message("This game is not finished; only finished games count.", "这局游戏尚未结束；只计入已结束的对局。"),
                           code="bad_input")
    players = [str(p) for p in record.setup.players]
    given = dict(names or {})
    if not given and isinstance(meta.get("player_names"), Mapping):
        given = {str(k): str(v) for k, v in meta["player_names"].items()}
    unknown = sorted(set(given) - set(players))
    if unknown:
        raise ResultsError(Message(f"Not a player colour of this game: {', '.join(unknown)}.",
                                   f"不是本局的玩家颜色：{'、'.join(unknown)}。"), code="bad_input")
    raw_table = table if table else meta.get("table")
    table_name = raw_table.strip() if isinstance(raw_table, str) else ""
    if not table_name:
        raise ResultsError(Message("Say which table the game was played at.", "请说明这局游戏在哪张桌上进行。"), code="bad_input")
    moves = doc.get("moves") or []
    when = next((m.get("at") for m in reversed(moves) if isinstance(m, Mapping) and m.get("at")), None) \
        or meta.get("finished") or meta.get("started") or finished
    if not isinstance(when, str) or utc_iso(when) is None:
        raise ResultsError(Message("The record does not say when the game was played (moves[].at or meta.finished): "
                                   "give the date with the import.",
                                   "记录中没有对局时间（moves[].at 或 meta.finished）：请在导入时注明日期。"), code="bad_input")
    game_no = meta.get("game_no") if isinstance(meta.get("game_no"), int) else None
    scoreboard = game.score(state).to_json()
    return FinishedGame("import", None, table_name, game.id, game_no, None, when,
                        players_from_scoreboard(scoreboard, list(outcome.winners), given), outcome.termination.value)
