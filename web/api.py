"""The dashboard's JSON API (documented in docs/web.md). Reads are open; changes need an admin
session and the CSRF token; every body is checked before anything is called."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, jsonify, request

from scorer.core import all_games, get_game, safejson
from scorer.core.schema import validate as validate_schema
from scorer.core.types import InvalidRecord, Message, TableRefError
from tableref.service import CommandResult
from scorer.core import i18n as core_i18n
from web import i18n, validation
from web.app import csrf_token, ctx, current_lang, is_admin, log_in, log_out, require_admin
from scorer.core.registry import board_kit
from web.boards import DEFAULT_GAME, default_markers
from web.errors import BadInput, Conflict, NotFound, NotSupported, Unavailable
from web.new_game import checked_setup, game_info
from web.security import check_pin_format

api = Blueprint("api", __name__, url_prefix="/api")
GAME_ID = re.compile(r"^[a-z_]{1,32}$")


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    raw = request.get_data(cache=True) if request.is_json else b""
    data = None
    if raw.strip():
        try:  # one loader for every outside document: a nesting bomb is a 400, not a RecursionError
            data = safejson.loads(raw, "request body")
        except InvalidRecord as exc:
            raise BadInput(Message.t('web.api.the_request_body_is_not', exc=exc)) from None
    if data is None and request.content_length in (None, 0) and schema is validation.EMPTY:
        data = {}
    if data is None:
        raise BadInput(Message.t('web.api.send_a_json_object_content'))
    return validation.check(data, schema)


def _client() -> str:
    return request.remote_addr or "unknown"


def _result(res: CommandResult) -> tuple[Response, int]:
    if res.ok:
        return jsonify({"ok": True, "message": res.message.to_json(), "data": res.data}), 200
    return jsonify({"ok": False, "error": {"code": "refused", "message": res.message.to_json()}, "data": res.data}), 409


def _optional(name: str) -> Any:
    fn = getattr(ctx().service, name, None)
    if fn is None:
        raise NotSupported(Message.t('web.api.this_table_s_service_does'))
    return fn


# -- reading -----------------------------------------------------------------------------------

@api.get("/health")
def health() -> Response:
    return jsonify({"ok": True, "streams": ctx().streams})


@api.get("/session")
def session_info() -> Response:
    c = ctx()
    return jsonify({"admin": is_admin(), "pin_set": c.pins.is_set(), "csrf": csrf_token(), "lang": current_lang(),
                    "retry_after": c.limiter.wait_for(_client()) or None})


@api.get("/state")
def state() -> Response:
    bus = ctx().service.events()
    last = bus.last_id  # taken first: anything newer is replayed by the stream (state events are idempotent)
    snap = ctx().service.snapshot()
    return jsonify(dict(snap, event_id=last))


@api.get("/scores")
def scores() -> Response:
    snap = ctx().service.snapshot()
    return jsonify({"game": snap.get("game"), "scores": snap.get("scores"), "turn": snap.get("turn"),
                    "outcome": snap.get("outcome"), "version": snap.get("version")})


@api.get("/history")
def history() -> Response:
    bus = ctx().service.events()
    last = bus.last_id
    events = [{**h, "at_text": core_i18n.at_texts(h.get("at"))} for h in ctx().service.history()]
    return jsonify({"events": events, "event_id": last})


@api.get("/events")
def events() -> Response:
    """Events after ``since`` still held by the bus; ``complete`` is false when some were lost."""
    try:
        since = int(request.args.get("since", "0"))
        limit = int(request.args.get("limit", "500"))
    except ValueError:
        raise BadInput(Message.t('web.api.since_and_limit_must_be'), field="since") from None
    if since < 0 or not 1 <= limit <= 2000:
        raise BadInput(Message.t('web.api.since_must_be_0_and'), field="limit")
    bus = ctx().service.events()
    found = bus.since(since)
    oldest = bus.oldest_id()
    complete = since >= bus.last_id or (oldest is not None and oldest <= since + 1)
    return jsonify({"events": [e.to_json() for e in found[:limit]], "last_id": bus.last_id,
                    "complete": complete, "more": len(found) > limit})


@api.get("/devices")
def devices() -> Response:
    return jsonify(ctx().service.devices())


def _image_type(data: bytes) -> str:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    return "image/jpeg"


@api.get("/camera.jpg")
def camera() -> Response:
    data = ctx().service.camera_snapshot()
    if not data:
        raise Unavailable(Message.t('web.api.no_camera_picture_right_now'))
    return Response(data, mimetype=_image_type(data), headers={"Cache-Control": "no-store"})


def _game_arg() -> str:
    """The ``game`` query parameter (a game id), else China's (what these endpoints served first)."""
    return _checked_game(request.args.get("game") or DEFAULT_GAME)


def _checked_game(game: str) -> str:
    if not GAME_ID.match(game):
        raise BadInput(Message.t("web.api.bad_game"), field="game")
    return game


@api.get("/boards")
def boards() -> Response:
    """The boards of ``game`` (default China): shipped and captured on this table (none for a game
    without a board kit)."""
    game = _game_arg()
    if board_kit(game) is None:
        return jsonify({"boards": []})
    return jsonify({"boards": [b.to_json() for b in ctx().boards.list(game)]})


@api.get("/board")
def board() -> Response:
    """A board's data file and drawing. ``game`` and ``id`` default to the running game's board
    (a game without a board choice has its one board)."""
    lib = ctx().boards
    snap = ctx().service.snapshot()
    game = _checked_game(request.args.get("game") or (snap.get("game") if not request.args.get("id") else None) or DEFAULT_GAME)
    board_id = request.args.get("id")
    if not board_id and game == snap.get("game"):
        board_id = snap.get("board_id")
    if not board_id and game == DEFAULT_GAME:
        raise NotFound(Message.t('web.api.no_game_is_running_so'))
    board_id = lib.resolve(game, board_id)
    try:
        return jsonify({"game": game, "id": board_id, "topology": lib.topology(board_id, game), "geometry": lib.geometry(board_id, game)})
    except InvalidRecord as exc:
        raise BadInput(Message.t('web.api.board_is_not_valid', board_id=board_id, exc=exc)) from None


@api.get("/games")
def games() -> Response:
    return jsonify({"games": [game_info(g) for g in all_games()]})


@api.get("/i18n/<lang>")
def catalogue(lang: str) -> Response:
    if lang not in i18n.LANGUAGES:
        raise NotFound(Message.t('web.api.unknown_language', lang=lang))
    return jsonify(i18n.catalogue(lang))


# -- the admin PIN -----------------------------------------------------------------------------

@api.post("/pin/setup")
def pin_setup() -> Response:
    c = ctx()
    body = _body(validation.PIN_SETUP)
    if c.pins.is_set():
        raise Conflict(Message.t('web.api.the_admin_pin_is_already'))
    pin = check_pin_format(body["pin"])
    if body["confirm"] != pin:
        raise BadInput(Message.t('web.api.the_two_pins_differ'), field="confirm")
    c.pins.set_pin(pin)
    log_in()
    return jsonify({"ok": True, "admin": True, "csrf": csrf_token()})


@api.post("/login")
def login() -> Response:
    c = ctx()
    body = _body(validation.LOGIN)
    if not c.pins.is_set():
        raise Conflict(Message.t('web.api.no_admin_pin_is_set'), code="pin_not_set")
    client = _client()
    c.limiter.check(client)
    if not c.pins.verify(body["pin"]):
        c.limiter.failure(client)
        wait = c.limiter.wait_for(client)
        err = BadInput(Message.t('web.api.wrong_pin'), field="pin", code="wrong_pin")
        if wait:
            err.retry_after = wait
        raise err
    c.limiter.success(client)
    log_in()
    return jsonify({"ok": True, "admin": True, "csrf": csrf_token()})


@api.post("/logout")
def logout() -> Response:
    log_out()
    return jsonify({"ok": True, "admin": False})


@api.post("/pin/change")
def pin_change() -> Response:
    require_admin()
    c = ctx()
    body = _body(validation.PIN_CHANGE)
    client = _client()
    c.limiter.check(client)
    if not c.pins.verify(body["old"]):
        c.limiter.failure(client)
        raise BadInput(Message.t('web.api.the_current_pin_is_wrong'), field="old", code="wrong_pin")
    new = check_pin_format(body["new"], field="new")
    if body["confirm"] != new:
        raise BadInput(Message.t('web.api.the_two_new_pins_differ'), field="confirm")
    c.pins.set_pin(new)
    log_in()  # this tablet stays logged in; every other session is now stale
    return jsonify({"ok": True, "csrf": csrf_token()})


# -- the game ----------------------------------------------------------------------------------

@api.post("/game/new")
def new_game() -> tuple[Response, int]:
    actor = require_admin()
    game, setup = checked_setup(_body(validation.NEW_GAME))
    return start_game(game, setup, actor)


def start_game(game: Any, setup: dict[str, Any], actor: str) -> tuple[Response, int]:
    """Hand a checked setup to the service (a refusal there is a bilingual 400/409)."""
    try:
        res = ctx().service.new_game(dict(setup, game=game.id), actor)
    except TableRefError as exc:
        raise BadInput(Message.t("web.api.cannot_start_game", reason=str(exc))) from None
    return _result(res)


@api.post("/undo")
def undo() -> tuple[Response, int]:
    actor = require_admin()
    _body(validation.EMPTY)
    return _result(ctx().service.undo(actor, True))


@api.post("/override")
def override() -> tuple[Response, int]:
    actor = require_admin()
    _body(validation.EMPTY)
    return _result(ctx().service.override(actor))


@api.post("/turn-done")
def turn_done() -> tuple[Response, int]:
    actor = require_admin()
    _body(validation.EMPTY)
    return _result(ctx().service.signal_turn_done(actor))


@api.post("/declare")
def declare() -> tuple[Response, int]:
    """A move the sensors cannot see (China: a card exchange, the pile running out)."""
    actor = require_admin()
    body = _body(validation.DECLARE)
    game_id = ctx().service.snapshot().get("game")
    if not game_id:
        raise Conflict(Message.t('web.api.no_game_is_running'))
    game = get_game(game_id)
    try:
        validate_schema(body["move"], game.move_schema(), "move")
        game.move_from_json(body["move"])
    except InvalidRecord as exc:
        raise BadInput(Message.t('web.api.not_a_valid_move', exc=exc), field="move") from None
    return _result(ctx().service.declare(body["move"], actor))


# -- board capture -----------------------------------------------------------------------------

@api.get("/capture/snapshot")
def capture_snapshot() -> Response:
    """What the capture page draws on: the rectified photo's size and scale (the image itself is
    at /api/capture/image), or ``available: false`` with a blank sheet of the default size; with
    the pieces and player colours China's page writes into its layout."""
    img = _optional("board_image")()
    spec = ctx().boards.capture_spec(_game_arg())
    common = {"pieces": spec.get("pieces", {}), "players": spec.get("players", {})}
    if img is None:
        return jsonify(dict(common, available=False, size_mm=[640.0, 520.0], px_per_mm=2.0,
                            markers=default_markers((640.0, 520.0))))
    markers = img.markers or default_markers(img.size_mm)
    return jsonify(dict(common, available=True, size_mm=list(img.size_mm), px_per_mm=img.px_per_mm,
                        markers=markers, content_type=img.content_type))


@api.get("/capture/image")
def capture_image() -> Response:
    img = _optional("board_image")()
    if img is None:
        raise Unavailable(Message.t('web.api.no_rectified_board_photo_is'))
    return Response(img.image, mimetype=img.content_type, headers={"Cache-Control": "no-store"})


@api.get("/capture/spec")
def capture_spec() -> Response:
    """What the capture page places for ``game``, starting from the board ``from`` (default: the
    game's first shipped board): spaces with their template positions, fields, borders."""
    template = request.args.get("from") or None
    try:
        return jsonify(ctx().boards.capture_spec(_game_arg(), template))
    except InvalidRecord as exc:
        raise BadInput(Message.t('web.api.board_is_not_valid.2', template=template, exc=exc)) from None


def _capture_files(body: dict[str, Any]) -> tuple[str, Any, Any]:
    """(game, data file, layout) of a capture body: given as files, or built from a ``capture``."""
    game = body.get("game") or DEFAULT_GAME
    if "capture" in body:
        board_doc, layout = ctx().boards.build_capture(game, body["capture"])
        return game, board_doc, layout
    return game, body.get("board"), body.get("layout")


@api.post("/capture/check")
def capture_check() -> Response:
    """Validate without saving (open to everyone: it changes nothing, but still needs CSRF). A
    built capture is answered with the files it makes."""
    body = _body(validation.CAPTURE)
    game, board_doc, layout = _capture_files(body)
    problems = ctx().boards.check_capture(board_doc, layout, game)
    out: dict[str, Any] = {"ok": not problems, "problems": [p.to_json() for p in problems]}
    if "capture" in body:
        out.update(board=board_doc, layout=layout)
    return jsonify(out)


@api.post("/capture/save")
def capture_save() -> Response:
    require_admin()
    body = _body(validation.CAPTURE)
    game, board_doc, layout = _capture_files(body)
    lib = ctx().boards
    written = lib.save_capture(board_doc, layout, overwrite=bool(body.get("overwrite")), game=game)
    saved = board_doc["id"] if isinstance(board_doc, dict) and lib.kit(game).data_format else lib.kit(game).default_board()
    return jsonify({"ok": True, "id": saved, "game": game, "message": Message.t('web.api.board_saved').to_json(),
                    "files": sorted(written)})


# -- tag enrolment -----------------------------------------------------------------------------

@api.get("/enrol")
def enrolment() -> Response:
    return jsonify(_optional("enrolment")())


@api.post("/enrol")
def enrol() -> tuple[Response, int]:
    actor = require_admin()
    body = _body(validation.ENROL)
    info = _optional("enrolment")()
    item = body["item"]
    if "kind" in item and info.get("pieces") and item["kind"] not in info["pieces"]:
        raise BadInput(Message.t('web.api.unknown_piece_kind', kind=item['kind']), field="item.kind")
    if "card" in item and info.get("cards") is not None and item["card"] not in info["cards"]:
        raise BadInput(Message.t('web.api.unknown_card', card=item['card']), field="item.card")
    return _result(_optional("enrol")(body["uid"].upper(), item, actor))


# -- camera enrolment --------------------------------------------------------------------------

@api.get("/camera/enrol")
def camera_enrolment() -> Response:
    """Where the camera enrolment stands: step 1-3, the plan, live corner markers, the result."""
    return jsonify(_optional("camera_enrolment")())


@api.post("/camera/enrol")
def camera_enrol() -> tuple[Response, int]:
    """One step (``empty``, ``pieces``, ``save``, ``cancel``); a refusal is 409 with a specific code
    (``registration``: corner markers missing, ``pieces``: a planned piece not found, ``order``,
    ``no_frame``, ``no_camera``, ``not_supported``, ``save``) and the bilingual reason."""
    actor = require_admin()
    body = _body(validation.CAMERA_ENROL)
    res = _optional("camera_enrol")(body["step"], actor)
    if res.ok:
        return jsonify({"ok": True, "message": res.message.to_json(), "data": res.data}), 200
    data = dict(res.data)
    code = str(data.pop("code", "refused"))
    return jsonify({"ok": False, "error": {"code": code, "message": res.message.to_json()}, "data": data}), 409


# -- settings ----------------------------------------------------------------------------------

@api.get("/settings")
def settings_get() -> Response:
    return jsonify(ctx().settings.get())


@api.post("/settings")
def settings_set() -> Response:
    require_admin()
    body = _body(validation.settings_schema())
    if "table_name" in body:
        body["table_name"] = body["table_name"].strip()
    return jsonify({"ok": True, "settings": ctx().settings.update(body)})


# -- results leave the table ---------------------------------------------------------------------

def _download(body: str, mimetype: str, name: str) -> Response:
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"',
                                                      "Cache-Control": "no-store"})


def _file_stem() -> str:
    snap = ctx().service.snapshot()
    return f"{snap.get('game') or 'game'}-{snap.get('game_no') or 1}"


@api.get("/export/record")
def export_record() -> Response:
    """The game as the JSON record ``tableref score`` reads (a download)."""
    import json

    doc = _optional("export_record")()
    return _download(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", "application/json", f"{_file_stem()}.json")


@api.get("/export/csv")
def export_csv() -> Response:
    """Every stored event of the game with each player's total after it (a download)."""
    return _download(_optional("export_csv")(), "text/csv", f"{_file_stem()}.csv")


@api.get("/export/bgstats")
def export_bgstats() -> Response:
    """A finished game as Board Game Stats' createPlay JSON and the link that opens the app's import."""
    from tableref.bgstats import NotFinished, createplay_url

    try:
        play = _optional("export_bgstats")(current_lang())
    except NotFinished:
        raise Conflict(Message.t('web.api.the_game_is_not_over'), code="not_finished") from None
    return jsonify({"play": play, "url": createplay_url(play)})


# -- inferred move orders ------------------------------------------------------------------------

ORDER_CONFIRM = {"type": "object", "required": ["group"], "additionalProperties": False,
                 "properties": {"group": {"type": "integer", "minimum": 0}}}
ORDER_CHOOSE = {"type": "object", "required": ["group", "index"], "additionalProperties": False,
                "properties": {"group": {"type": "integer", "minimum": 0}, "index": {"type": "integer", "minimum": 0, "maximum": 16}}}


@api.post("/order/confirm")
def order_confirm() -> tuple[Response, int]:
    """Confirm the order the referee inferred for moves that appeared at once (snapshot ``order_check``)."""
    actor = require_admin()
    body = _body(ORDER_CONFIRM)
    return _result(_optional("confirm_order")(body["group"], actor))


@api.post("/order/choose")
def order_choose() -> tuple[Response, int]:
    """Replace those moves by one of the alternative orders offered with them."""
    actor = require_admin()
    body = _body(ORDER_CHOOSE)
    return _result(_optional("choose_order")(body["group"], body["index"], actor))
