"""A finished game as a play for Board Game Stats (BG Stats), the app many players log plays in.

BG Stats imports one play per link: ``https://app.bgstatsapp.com/createPlay.html?data=<JSON>``
(``bgstats://app.bgstatsapp.com/createPlay.html?data=...`` works too), the JSON URL-encoded. The
format is the app's own, documented at
https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/ :
``sourceName``, ``sourcePlayId``, ``playDate`` ("YYYY-MM-DD HH:MM:SS", local time),
``durationMin``, ``board``, ``location``, ``comments``, ``game`` {``name``, ``sourceGameId``,
``highestWins``, ``noPoints``, optional ``bggId``} and ``players`` [{``name``, ``sourcePlayerId``,
``score``, ``rank``, ``winner``, ``startPlayer``, ``role``}].

Pure: everything comes in as values (``play_from_session`` reads them off a session).
"""

from __future__ import annotations

import json
from datetime import datetime, tzinfo
from pathlib import PurePath
from typing import Any, Mapping
from urllib.parse import quote

from scorer.core.game import Game, SetupOptions
from scorer.core.types import Message, TableRefError

CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html?data="
SOURCE_NAME = "tableref"


class NotFinished(TableRefError, ValueError):
    """Only a finished game is a play."""


def _local(wall: str | None, tz: tzinfo | None) -> datetime | None:
    if not wall:
        return None
    try:
        when = datetime.fromisoformat(wall)
    except ValueError:
        return None
    if when.tzinfo is None:
        return when
    return when.astimezone(tz)  # tz None: this machine's local time zone


def _board_name(board: str | None) -> str:
    if not board:
        return ""
    return PurePath(board).stem if board.endswith(".json") else board


def ranks(totals: Mapping[str, tuple[Any, ...]]) -> dict[str, int]:
    """Competition ranking (1, 1, 3) by a sort key per player, larger is better."""
    return {p: 1 + sum(1 for q in totals.values() if q > k) for p, k in totals.items()}


def bgstats_play(*, game: Game, setup: SetupOptions, state: Any, started: str | None, ended: str | None, play_id: str,
                 names: Mapping[str, str] | None = None, location: str = "", inferred_order: bool = False,
                 lang: str = "en", tz: tzinfo | None = None) -> dict[str, Any]:
    """The createPlay JSON of a finished game (``NotFinished`` otherwise)."""
    outcome = game.outcome(state)
    if outcome is None:
        raise NotFinished("the game is not over yet: only a finished game can be sent to BG Stats")
    board = game.score(state)
    winners = set(outcome.winners)
    keys = {p.player: (p.player in winners, p.total, p.tiebreak) for p in board.players}
    rank = ranks(keys)
    first = game.turn(game.setup(setup)).active
    start_player = first[0] if len(first) == 1 else None
    names = dict(names or {})
    players = []
    for p in sorted(board.players, key=lambda x: rank[x.player]):
        name = names.get(p.player) or p.player
        players.append({
            "name": name,
            "sourcePlayerId": p.player,
            "score": p.total,
            "rank": rank[p.player],
            "winner": p.player in winners,
            "startPlayer": p.player == start_player,
            "role": p.player if name != p.player else "",
        })
    game_part: dict[str, Any] = {"name": game.name.en, "sourceGameId": game.id, "highestWins": True, "noPoints": False}
    bgg = getattr(game, "bgg_id", None)
    if isinstance(bgg, int):
        game_part["bggId"] = bgg
    comments = Message.t('tableref.bgstats.refereed_by_tableref', game=game.name, reason=outcome.reason)
    if inferred_order:
        comments = Message.t("tableref.bgstats.order_inferred", comments=comments)
    play: dict[str, Any] = {"sourceName": SOURCE_NAME, "sourcePlayId": play_id}
    start, end = _local(started, tz), _local(ended, tz)
    if start is not None:
        play["playDate"] = start.strftime("%Y-%m-%d %H:%M:%S")
        if end is not None and end >= start:
            play["durationMin"] = max(1, round((end - start).total_seconds() / 60))
    board_id = setup.board or game.state_to_json(state).get("board")
    play.update({"board": _board_name(board_id if isinstance(board_id, str) else None), "game": game_part, "players": players,
                 "comments": comments.get(lang)})
    if location:
        play["location"] = location
    return play


def createplay_url(play: Mapping[str, Any]) -> str:
    """The link that opens BG Stats' import dialog with this play."""
    return CREATE_PLAY + quote(json.dumps(play, ensure_ascii=False, separators=(",", ":")), safe="")


def play_from_session(session: Any, *, names: Mapping[str, str] | None = None, table: str = "", lang: str = "en",
                      tz: tzinfo | None = None) -> dict[str, Any]:
    """``bgstats_play`` for a ``tableref.session.Session`` (start from the store, end = last entry)."""
    row = session.store.game(session.game_no)
    ended = session.entries[-1].wall if session.entries else None
    play_id = f"{table or 'table'}:{session.game_no}:{row.started_wall}"
    return bgstats_play(game=session.game, setup=session.setup, state=session.state, started=row.started_wall,
                        ended=ended, play_id=play_id, names=names, location=table,
                        inferred_order=bool(getattr(session, "provisional", None)), lang=lang, tz=tz)
