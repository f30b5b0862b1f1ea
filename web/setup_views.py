"""The first-run wizard's page and API (docs/web.md "First-run wizard").

The wizard walks a new table through its setup -- admin PIN, game/board/players, camera check,
marker sheet, camera enrolment, sensor board test, start -- and keeps where it is in
``<data>/web/setup.json`` (``web.setup_state``), so a reload or another tablet resumes it. It adds
no new way to change the table: the PIN is set through ``/api/pin/setup``, the game is checked
and started through the New game code (``web.new_game.checked_setup``, ``web.api.start_game``), the camera
enrolment is its own page, and the checks only read what the service reports.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request

from scorer.core.types import Message
from web import validation
from web.app import ctx, is_admin, require_admin
from web.errors import BadInput, Conflict, NotFound
from web.setup_checks import camera_check, marker_sheet
from web.setup_state import OPTIONAL, STEPS, SetupStore, WizardRefused, WizardState, choose, complete, finish, goto, \
    is_due, restart, skip

setup = Blueprint("setup", __name__)

ACTION = {
    "type": "object",
    "required": ["action"],
    "additionalProperties": False,
    "properties": {
        "action": {"enum": ["goto", "complete", "skip_step", "choose", "skip", "start", "restart"]},
        "step": {"enum": list(STEPS)},
        "choices": validation.NEW_GAME,
        "check": {"type": "object", "maxProperties": 16},
    },
}
EXTENSION = "tableref.setup"


def install(app: Flask, store: SetupStore) -> None:
    """Register the wizard on an app: its routes and ``setup_due`` for every page's boot data."""
    app.extensions[EXTENSION] = store
    app.register_blueprint(setup)
    app.context_processor(lambda: {"setup_due": setup_due()})


def store() -> SetupStore:
    from flask import current_app

    return current_app.extensions[EXTENSION]


def _game_running() -> bool:
    return bool(ctx().service.snapshot().get("game"))


def setup_due() -> bool:
    """The front page opens the wizard (first run, or a setup under way)."""
    return is_due(store().get(), pin_set=ctx().pins.is_set(), game_running=_game_running())


def _state_json(state: WizardState) -> dict[str, Any]:
    c = ctx()
    return dict(state.to_json(), index=state.index, total=len(STEPS), steps=list(STEPS), optional=sorted(OPTIONAL),
                due=is_due(state, pin_set=c.pins.is_set(), game_running=_game_running()),
                pin_set=c.pins.is_set(), admin=is_admin(), sheet_board=_sheet_board(None))


# -- the page ------------------------------------------------------------------------------------

@setup.get("/setup")
def page() -> Response:
    from web.pages import _page

    return _page("setup", "setup.title", nav_page="setup")


# -- the API -------------------------------------------------------------------------------------

@setup.get("/api/setup")
def state() -> Response:
    return jsonify(_state_json(store().get()))


def _refused(exc: WizardRefused) -> Conflict:
    return Conflict(exc.message, code=exc.code)


@setup.post("/api/setup")
def act() -> tuple[Response, int] | Response:
    """One wizard action. Before a PIN exists only ``skip`` and opening the PIN step are open
    (anyone may choose the first PIN anyway); afterwards every action needs the admin session."""
    body = request.get_json(silent=True)
    if body is None:
        raise BadInput(Message.t('web.setup_views.send_a_json_object_content'))
    body = validation.check(body, ACTION)
    c = ctx()
    action = body["action"]
    pin_set = c.pins.is_set()
    now = c.clock()
    if not pin_set and not (action == "skip" or (action == "goto" and body.get("step") == "pin")):
        raise Conflict(Message.t('web.setup_views.choose_the_admin_pin_first'), code="pin_not_set")
    actor = require_admin() if pin_set else "first-run"
    step = body.get("step")
    if action in ("goto", "complete", "skip_step") and step is None:
        raise BadInput(Message.t('web.setup_views.say_which_step'), field="step")
    try:
        if action == "start":
            return _start(actor)
        if action == "choose":
            if "choices" not in body:
                raise BadInput(Message.t('web.setup_views.send_the_choices'), field="choices")
            from web.new_game import checked_setup

            checked_setup(body["choices"])  # refused here, with the reason, not at the last step
            new = store().update(lambda s: choose(s, body["choices"], pin_set=pin_set, now=now))
        elif action == "goto":
            new = store().update(lambda s: goto(s, step, pin_set=pin_set, now=now))
        elif action == "complete":
            new = store().update(lambda s: complete(s, step, pin_set=pin_set, now=now, check=body.get("check")))
        elif action == "skip_step":
            new = store().update(lambda s: complete(s, step, pin_set=pin_set, now=now, skipped=True))
        elif action == "skip":
            new = store().update(lambda s: skip(s, now=now))
        else:  # restart
            new = store().update(lambda s: restart(s, now=now))
    except WizardRefused as exc:
        raise _refused(exc) from None
    return jsonify({"ok": True, "actor": actor, "setup": _state_json(new)})


def _start(actor: str) -> tuple[Response, int]:
    """Start the chosen game (checked again: a captured board may have gone) and end the wizard."""
    from web.api import start_game
    from web.new_game import checked_setup

    current = store().get()
    if current.choices is None:
        raise Conflict(Message.t('web.setup_views.choose_the_game_board_and'),
                       code="setup_order")
    game, game_setup = checked_setup(dict(current.choices))
    resp, status = start_game(game, game_setup, actor)
    body = resp.get_json()
    if status == 200:
        body["setup"] = _state_json(store().update(lambda s: finish(s, now=ctx().clock())))
    return jsonify(body), status


@setup.get("/api/setup/camera")
def camera() -> Response:
    """The camera step: device state, the four corner markers found or missing, the model line."""
    service = ctx().service
    cam = service.devices().get("camera")
    enrolment = None
    status_fn = getattr(service, "camera_enrolment", None)
    if status_fn is not None and cam and cam.get("state") != "absent":
        enrolment = status_fn()
    return jsonify(camera_check(cam, enrolment))


# -- the marker sheet ----------------------------------------------------------------------------

def _sheet_board(asked: str | None) -> str:
    """Whose corner markers to print: ``?board=``, else the wizard's chosen board, else the
    camera's layout, else the running game's board, else the first shipped side."""
    if asked:
        return asked
    choices = store().get().choices or {}
    if choices.get("board"):
        return str(choices["board"])
    service = ctx().service
    status_fn = getattr(service, "camera_enrolment", None)
    if status_fn is not None:
        layout = status_fn().get("layout")
        if layout:
            return str(layout)
    return str(service.snapshot().get("board_id") or "china-a")


@lru_cache(maxsize=16)
def _sheet(layout_json: str, fmt: str) -> bytes:
    return marker_sheet(json.loads(layout_json), fmt=fmt, dpi=300 if fmt == "pdf" else 100)


def _marker_file(fmt: str) -> Response:
    board_id = _sheet_board(request.args.get("board"))
    doc = ctx().boards.layout_doc(board_id)  # checks the id; nothing from the request names a path
    if doc is None:
        raise NotFound(Message.t('web.setup_views.no_camera_layout_for_board', board_id=board_id),
                       field="board")
    data = _sheet(json.dumps(doc, sort_keys=True), fmt)
    mimetype = "application/pdf" if fmt == "pdf" else "image/png"
    name = f"tableref-markers-{board_id}.{fmt}"
    return Response(data, mimetype=mimetype, headers={"Cache-Control": "no-store",
                                                      "Content-Disposition": f'inline; filename="{name}"'})


@setup.get("/setup/markers.pdf")
def markers_pdf() -> Response:
    return _marker_file("pdf")


@setup.get("/setup/markers.png")
def markers_png() -> Response:
    return _marker_file("png")
