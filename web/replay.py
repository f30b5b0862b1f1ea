"""The replay API behind the Board page's replay (docs/web.md "Replay"): a stored game, step by
step, read-only and open like every other view. For a service without stored games (the
dashboard's fake table) the list says ``available: false`` (the live Board page asks on every
load, so not an error) and a game or step answers 501."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from scorer.core.types import Message
from web.app import ctx
from web.errors import NotFound, NotSupported

replay = Blueprint("replay", __name__, url_prefix="/api/replay")


def _service_call(name: str, *args: Any) -> Any:
    fn = getattr(ctx().service, name, None)
    if fn is None:
        raise NotSupported(Message.t('web.replay.this_table_keeps_no_stored'))
    try:
        return fn(*args)
    except LookupError as exc:  # tableref.replay.ReplayError: no such game or step
        raise NotFound(Message.t('web.replay.nothing_to_replay_there', exc=exc)) from None


@replay.get("")
def games() -> Response:
    if getattr(ctx().service, "replay_games", None) is None:
        return jsonify({"available": False, "games": []})
    return jsonify({"available": True, "games": _service_call("replay_games")})


@replay.get("/<int:game_no>")
def game(game_no: int) -> Response:
    return jsonify(_service_call("replay", game_no))


@replay.get("/<int:game_no>/<int:step>")
def step(game_no: int, step: int) -> Response:
    return jsonify(_service_call("replay_step", game_no, step))
