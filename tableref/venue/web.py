"""The venue's web pages and JSON API (docs/venue.md), on the dashboard's own foundations.

The venue app is a Flask app like the table's dashboard and reuses its parts unchanged: the
request guards (same-origin and CSRF token on every change), the admin PIN, login rate limiting
and session handling (``web.app``, ``web.security`` and the PIN views of ``web.api``), the error
answers, the message catalogue, the page skeleton (``base.html``, ``app.js``) and the live stream
(``web.stream``, here over the venue's event bus). So a change of the venue -- merging players,
importing a record, deleting a result, retiring a table -- needs the venue's admin PIN and the
CSRF token exactly as a change at a table does.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Mapping

from flask import Blueprint, Flask, Response, jsonify, make_response, render_template, request
from jinja2 import ChoiceLoader, FileSystemLoader
from werkzeug.exceptions import HTTPException

import web
from scorer.core import i18n as core_i18n
from scorer.core.types import Message
from tableref.venue.results import ResultsError
from tableref.venue.service import VenueService
from web import app as dashboard
from web import i18n, validation
from web.api import catalogue, health, login, logout, pin_change, pin_setup, session_info
from web.errors import BadInput, Conflict, NotFound, Unavailable, WebError
from web.pages import switch_language
from web.security import LoginLimiter, PinStore, load_secret_key
from web.stream import EncodedEvents, stream

HERE = Path(__file__).resolve().parent
WEB = Path(web.__file__).resolve().parent

venue = Blueprint("venue", __name__, static_folder="static", static_url_path="/venue-static")

NAV = [
    ("tables", "/", "venue.nav.tables"),
    ("standings", "/standings", "venue.nav.standings"),
]

MERGE = {"type": "object", "required": ["from", "into"], "additionalProperties": False,
         "properties": {"from": {"type": "string", "minLength": 1, "maxLength": 80},
                        "into": {"type": "string", "minLength": 1, "maxLength": 80}}}
UNMERGE = {"type": "object", "required": ["name"], "additionalProperties": False,
           "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 80}}}
IMPORT = {"type": "object", "required": ["record"], "additionalProperties": False,
          "properties": {"record": {"type": "object"}, "table": {"type": "string", "maxLength": 80},
                         "finished": {"type": "string", "maxLength": 40},
                         "names": {"type": "object", "maxProperties": 12,
                                   "additionalProperties": {"type": "string", "maxLength": 80}}}}


class _VenueSettings:
    """What the page skeleton reads from ``settings``: the venue's name and default language."""

    def __init__(self, name: str, default_language: str) -> None:
        self._values = {"table_name": name, "default_language": default_language}

    def get(self) -> dict[str, Any]:
        return dict(self._values)


def create_venue_app(service: VenueService, *, data_dir: str | Path, pin_store: PinStore | None = None,
                     clock: Callable[[], float] = time.time, config: Mapping[str, Any] | None = None,
                     initial_pin: str | None = None, default_language: str = "auto") -> Flask:
    """The venue screen for ``service``. ``data_dir`` holds its PIN hash and session key
    (``<data>/web/``); ``initial_pin`` sets the PIN when none is set yet."""
    data = Path(data_dir).resolve()
    (data / "web").mkdir(parents=True, exist_ok=True)
    app = Flask(__name__, root_path=str(HERE), static_folder=str(WEB / "static"), template_folder=str(HERE / "templates"))
    app.jinja_loader = ChoiceLoader([FileSystemLoader(str(HERE / "templates")), FileSystemLoader(str(WEB / "templates"))])
    app.config.update(dashboard.DEFAULT_CONFIG)
    if config:
        app.config.update(config)
    app.config.update(SECRET_KEY=load_secret_key(data / "web" / "secret.key"), SESSION_COOKIE_NAME="tableref_venue_session",
                      SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict", PERMANENT_SESSION_LIFETIME=timedelta(days=30))
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    pins = pin_store or PinStore(data / "web" / "admin.json", method=app.config["PIN_HASH_METHOD"])
    if initial_pin is not None and not pins.is_set():
        pins.set_pin(initial_pin)
    limiter = LoginLimiter(clock, max_failures=app.config["LOGIN_MAX_FAILURES"], window=app.config["LOGIN_WINDOW"],
                           lockout=app.config["LOGIN_LOCKOUT"], max_lockout=app.config["LOGIN_MAX_LOCKOUT"],
                           global_max=app.config["LOGIN_GLOBAL_MAX"])
    settings = _VenueSettings(service.name, default_language)
    app.extensions["tableref"] = dashboard.WebContext(service, data, pins, limiter, None, settings, clock,  # type: ignore[arg-type]
                                                      encoded=EncodedEvents())
    app.register_blueprint(venue)
    app.register_blueprint(stream)  # GET /api/stream: the venue bus, with Last-Event-ID replay
    from web import kiosk

    kiosk.install(app)  # the web app manifest: a TV or tablet opens the venue page full screen
    app.before_request(dashboard._before)  # the table dashboard's CSRF and same-origin guard
    app.after_request(dashboard._security_headers)
    app.register_error_handler(WebError, dashboard._web_error)
    app.register_error_handler(HTTPException, dashboard._http_error)
    app.context_processor(dashboard._template_globals)
    return app


def _service() -> VenueService:
    return dashboard.ctx().service  # type: ignore[return-value]


def _refusal(exc: ResultsError) -> WebError:
    kind = {"not_found": NotFound, "conflict": Conflict, "unavailable": Unavailable}.get(exc.code, BadInput)
    return kind(exc.message)


# -- the dashboard's own views, shared ------------------------------------------------------------

for rule, view, methods in [("/api/health", health, ["GET"]), ("/api/session", session_info, ["GET"]),
                            ("/api/pin/setup", pin_setup, ["POST"]), ("/api/login", login, ["POST"]),
                            ("/api/logout", logout, ["POST"]), ("/api/pin/change", pin_change, ["POST"]),
                            ("/api/i18n/<lang>", catalogue, ["GET"]), ("/lang/<code>", switch_language, ["GET"])]:
    venue.add_url_rule(rule, view.__name__, view, methods=methods)


# -- pages ----------------------------------------------------------------------------------------

def _page(name: str, title_key: str) -> Response:
    resp = make_response(render_template(f"{name}.html", page=name, nav_page=name, title_key=title_key, nav=NAV,
                                         catalogue=i18n.catalogue(dashboard.current_lang()), next_path=request.path))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@venue.get("/")
def tables_page() -> Response:
    return _page("venue", "venue.nav.tables")


@venue.get("/standings")
def standings_page() -> Response:
    return _page("standings", "venue.nav.standings")


@venue.get("/login")
def login_page() -> Response:
    return _page("login", "nav.login" if dashboard.ctx().pins.is_set() else "login.setup_title")


# -- reading (open on the venue's network) ----------------------------------------------------------

@venue.get("/api/venue")
def view() -> Response:
    return jsonify(_service().view())


@venue.get("/api/scores")
def playing() -> Response:
    """What the kiosk script (web/static/js/kiosk.js) polls to keep the screen on: the venue
    counts as playing while any table has a game going."""
    going = [t for t in _service().hall.tiles() if t.get("game") and not t.get("over") and t.get("online") is not False]
    return jsonify({"game": "venue" if going else None, "outcome": None, "tables_playing": len(going)})


@venue.get("/api/venue/status")
def status() -> Response:
    return jsonify(_service().status())


def _game_filter() -> str | None:
    game = request.args.get("game") or None
    if game is not None and (len(game) > 32 or not game.replace("_", "").isalnum()):
        raise BadInput(Message.t('tableref.venue.web.game_must_be_a_game'), field="game")
    return game


def _game_names(ids: list[str]) -> dict[str, Any]:
    from scorer.core.registry import get_game

    out = {}
    for game_id in ids:
        try:
            out[game_id] = get_game(game_id).name.to_json()
        except KeyError:  # a game this installation does not know (an imported record from elsewhere)
            out[game_id] = {"en": game_id, "zh": game_id}
    return out


@venue.get("/api/venue/standings")
def standings() -> Response:
    results = _service().results
    ids = results.game_ids()
    return jsonify({"game": _game_filter(), "games": ids, "game_names": _game_names(ids),
                    "rows": results.standings(_game_filter()), "recorded": results.count()})


@venue.get("/api/venue/games")
def games() -> Response:
    try:
        limit = int(request.args.get("limit", "50"))
    except ValueError:
        raise BadInput(Message.t('tableref.venue.web.limit_must_be_a_whole'), field="limit") from None
    if not 1 <= limit <= 1000:
        raise BadInput(Message.t('tableref.venue.web.limit_must_be_1_to'), field="limit")
    service = _service()
    urls = {t["id"]: t.get("dashboard_url") for t in service.hall.tiles()}
    rows = service.results.games(limit, _game_filter())
    for row in rows:  # a finished game of a table still here can be replayed on its dashboard
        url = urls.get(row["table_id"]) if row["table_id"] else None
        row["replay_url"] = f"{url.rstrip('/')}/board?replay={row['game_no']}" if url and row["game_no"] is not None else None
        row["finished_text"] = core_i18n.date_texts(row["finished"])  # as each language writes a date (Babel)
    return jsonify({"games": rows})


@venue.get("/api/venue/players")
def players() -> Response:
    return jsonify({"players": _service().results.players()})


@venue.get("/api/venue/results.csv")
def results_csv() -> Response:
    resp = Response(_service().results.csv(), mimetype="text/csv; charset=utf-8")
    resp.headers["Content-Disposition"] = "attachment; filename=venue-results.csv"
    return resp


# -- the organiser's changes (admin PIN + CSRF) ------------------------------------------------------

def _body(schema: dict[str, Any]) -> dict[str, Any]:
    data = request.get_json(silent=True)
    if data is None:
        raise BadInput(Message.t('tableref.venue.web.send_a_json_object_content'))
    return validation.check(data, schema)


@venue.post("/api/venue/players/merge")
def merge() -> Response:
    actor = dashboard.require_admin()
    body = _body(MERGE)
    try:
        out = _service().merge(body["from"], body["into"], actor)
    except ResultsError as exc:
        raise _refusal(exc) from None
    return jsonify({"ok": True, "merge": out, "message": Message.t('tableref.venue.web.now_counts_as', from_=body['from'], out=out['name']).to_json()})


@venue.post("/api/venue/players/unmerge")
def unmerge() -> Response:
    dashboard.require_admin()
    body = _body(UNMERGE)
    if not _service().unmerge(body["name"]):
        raise NotFound(Message.t('tableref.venue.web.was_not_merged', body=body['name']))
    return jsonify({"ok": True})


@venue.post("/api/venue/results/import")
def import_record() -> Response:
    dashboard.require_admin()
    body = _body(IMPORT)
    try:
        out = _service().import_record(body["record"], table=body.get("table"), names=body.get("names"),
                                       finished=body.get("finished"))
    except ResultsError as exc:
        raise _refusal(exc) from None
    msg = Message.t('tableref.venue.web.this_game_was_already_in') if out["duplicate"] else \
        Message.t('tableref.venue.web.game_added_to_the_results', table=out['table'])
    return jsonify({"ok": True, "result": out, "message": msg.to_json()})


@venue.post("/api/venue/results/<int:game_id>/delete")
def delete_result(game_id: int) -> Response:
    dashboard.require_admin()
    _body(validation.EMPTY)
    if not _service().delete_result(game_id):
        raise NotFound(Message.t('tableref.venue.web.no_result', game_id=game_id))
    return jsonify({"ok": True})


@venue.post("/api/venue/tables/<table_id>/retire")
def retire(table_id: str) -> Response:
    dashboard.require_admin()
    _body(validation.EMPTY)
    try:
        out = _service().retire(table_id)
    except ResultsError as exc:
        raise _refusal(exc) from None
    return jsonify({"ok": True, "retired": out})
