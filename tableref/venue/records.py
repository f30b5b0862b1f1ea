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
        raise ResultsError(Message.t('tableref.venue.records.not_a_game_record', exc=exc), code="bad_input") from None
    meta = doc.get("meta") if isinstance(doc.get("meta"), Mapping) else {}
    game = record.game
    result = replay(record)
    if not result.ok:
        if not meta.get("overrides"):
            assert result.illegal_index is not None
            raise ResultsError(Message.t('tableref.venue.records.move_of_the_record_is', illegal_index=result.illegal_index + 1), code="bad_input")
        state = game.setup(record.setup)  # an admin accepted these moves at the table (override): as played
        for move in record.moves:
            state = game.apply_unchecked(state, move)
    else:
        state = result.state
    outcome = game.outcome(state)
    if outcome is None:
        raise ResultsError(Message.t('tableref.venue.records.this_game_is_not_finished'),
                           code="bad_input")
    players = [str(p) for p in record.setup.players]
    given = dict(names or {})
    if not given and isinstance(meta.get("player_names"), Mapping):
        given = {str(k): str(v) for k, v in meta["player_names"].items()}
    unknown = sorted(set(given) - set(players))
    if unknown:
        raise ResultsError(Message.t("tableref.venue.records.not_a_player_colour", names=tuple(unknown)), code="bad_input")
    raw_table = table if table else meta.get("table")
    table_name = raw_table.strip() if isinstance(raw_table, str) else ""
    if not table_name:
        raise ResultsError(Message.t('tableref.venue.records.say_which_table_the_game'), code="bad_input")
    moves = doc.get("moves") or []
    when = next((m.get("at") for m in reversed(moves) if isinstance(m, Mapping) and m.get("at")), None) \
        or meta.get("finished") or meta.get("started") or finished
    if not isinstance(when, str) or utc_iso(when) is None:
        raise ResultsError(Message.t('tableref.venue.records.the_record_does_not_say'), code="bad_input")
    game_no = meta.get("game_no") if isinstance(meta.get("game_no"), int) else None
    scoreboard = game.score(state).to_json()
    return FinishedGame("import", None, table_name, game.id, game_no, None, when,
                        players_from_scoreboard(scoreboard, list(outcome.winners), given), outcome.termination.value)
