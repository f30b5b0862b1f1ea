"""The fake table's exports (``web.fake``), in the same shapes as the runtime's: the game record,
the history as CSV and a BG Stats play, each from what the fake table hands in under its lock.
"""

from __future__ import annotations

from typing import Any, Sequence

from scorer.core import Game, SetupOptions
from tableref import service as svc


def wall_times(history: Sequence[dict[str, Any]]) -> tuple[str | None, str | None]:
    """When the game began and when its last move was accepted (ISO, UTC; None if not yet)."""
    from datetime import datetime, timezone

    times = [h["at"] for h in history if h["type"] in (svc.NEW_GAME, svc.MOVE_ACCEPTED)]
    iso = [datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="milliseconds") for t in times]
    return (iso[0] if iso else None), (iso[-1] if len(iso) > 1 else None)


def game_record(game: Game | None, options: SetupOptions | None, moves: Sequence[Any]) -> dict[str, Any]:
    from scorer.records import to_record

    if game is None or options is None:
        return {}
    return to_record(game, options, list(moves), {"source": "tableref fake table"})


def history_csv(history: Sequence[dict[str, Any]]) -> str:
    rows = ["id,type,actor,description_en,description_zh"]
    for h in history:
        d = h["description"]
        rows.append(",".join(str(x).replace(",", ";") for x in (h["id"], h["type"], h["actor"], d["en"], d["zh"])))
    return "\n".join(rows) + "\n"


def bgstats(game: Game | None, options: SetupOptions | None, state: Any, history: Sequence[dict[str, Any]],
            lang: str = "en") -> dict[str, Any]:
    from tableref.bgstats import NotFinished, bgstats_play

    if game is None or options is None:
        raise NotFinished("no game")
    started, ended = wall_times(history)
    return bgstats_play(game=game, setup=options, state=state, started=started, ended=ended,
                        play_id=f"fake:{started}", lang=lang)
