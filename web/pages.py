"""HTML pages. They are thin: each renders a skeleton with the catalogue and the session's CSRF
token, and its script fills it from the JSON API and the live stream."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Response, make_response, redirect, render_template, request

from web import i18n
from web.app import ctx

pages = Blueprint("pages", __name__)

NAV = [
    ("scoreboard", "/", "nav.scoreboard"),
    ("board", "/board", "nav.board"),
    ("history", "/history", "nav.history"),
    ("new", "/new", "nav.new"),
    ("devices", "/devices", "nav.devices"),
    ("capture", "/capture", "nav.capture"),
    ("enrol", "/enrol", "nav.enrol"),
    ("settings", "/settings", "nav.settings"),
]


def _page(name: str, title_key: str, nav_page: str | None = None) -> Response:
    resp = make_response(render_template(f"{name}.html", page=name, nav_page=nav_page or name, title_key=title_key, nav=NAV,
                                         catalogue=i18n.catalogue(_lang()), next_path=request.path))
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _lang() -> str:
    from web.app import current_lang

    return current_lang()


@pages.get("/")
def scoreboard() -> Response:
    return _page("scoreboard", "nav.scoreboard")


@pages.get("/board")
def board() -> Response:
    return _page("board", "nav.board")


@pages.get("/history")
def history() -> Response:
    return _page("history", "nav.history")


@pages.get("/new")
def new_game() -> Response:
    return _page("new", "nav.new")


@pages.get("/devices")
def devices() -> Response:
    return _page("devices", "nav.devices")


@pages.get("/capture")
def capture() -> Response:
    return _page("capture", "nav.capture")


@pages.get("/capture/<game>")
def capture_game(game: str) -> Response:
    """Board capture of another game: what it places comes from the game's board kit (GET /api/capture/spec)."""
    return _page("capture_game", "nav.capture", nav_page="capture")


@pages.get("/enrol")
def enrol() -> Response:
    return _page("enrol", "nav.enrol")


@pages.get("/enrol/camera")
def camera_enrol() -> Response:
    return _page("camera_enrol", "nav.camera_enrol", nav_page="devices")  # reached from the Devices card


@pages.get("/settings")
def settings() -> Response:
    return _page("settings", "nav.settings")


@pages.get("/login")
def login() -> Response:
    return _page("login", "nav.login" if ctx().pins.is_set() else "login.setup_title")


def _local_path(target: str | None) -> str:
    """Only paths on this site: no scheme, no host, no '//' (an open redirect otherwise)."""
    if not target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


@pages.get("/lang/<code>")
def switch_language(code: str) -> Response:
    """Remember the chosen language for a year (a viewer's preference: no PIN needed)."""
    resp = redirect(_local_path(request.args.get("next")), code=303)
    if code in i18n.LANGUAGES:
        resp.set_cookie(i18n.COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax", httponly=False)
    return resp
