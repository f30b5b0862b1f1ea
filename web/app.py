"""The dashboard's Flask application: built by ``create_app`` from a ``TableService``.

No module globals: everything the views need hangs off ``app.extensions["tableref"]`` (a
``WebContext``), built here, so several apps (tests, benchmarks) live side by side.
"""

from __future__ import annotations

import hmac
import json
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from flask import Flask, current_app, g, jsonify, request, session
from werkzeug.exceptions import HTTPException

from scorer.core import safejson
from scorer.core.types import Message, TableRefError
from tableref.service import TableService
from web import i18n
from web.boards import BoardLibrary
from web.errors import CsrfFailed, PinRequired, WebError
from web.security import LoginLimiter, PinStore, load_secret_key, new_token, write_private

DEFAULT_CONFIG: dict[str, Any] = {
    "SSE_KEEPALIVE": 10.0,  # seconds between keepalive comments (a dead client is noticed on write)
    "SSE_RETRY_MS": 2000,  # how long a browser waits before reconnecting
    "SSE_MAX_STREAMS": 200,  # serve() lowers this to the thread pool size minus a reserve
    "ADMIN_SESSION_HOURS": 12.0,
    "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,
    "LOGIN_MAX_FAILURES": 5,
    "LOGIN_WINDOW": 600.0,
    "LOGIN_LOCKOUT": 30.0,
    "LOGIN_MAX_LOCKOUT": 900.0,
    "LOGIN_GLOBAL_MAX": 30,
    "PIN_HASH_METHOD": "scrypt",
}


class WebSettings:
    """Dashboard settings a table admin may change, in ``<data>/web/settings.json``."""

    DEFAULTS = {"table_name": "", "default_language": "auto"}

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._values = dict(self.DEFAULTS)
        if path.exists():
            stored = safejson.load_file(str(path), "dashboard settings")
            self._values.update({k: v for k, v in stored.items() if k in self.DEFAULTS})

    def get(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._values)

    def update(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._values.update({k: v for k, v in changes.items() if k in self.DEFAULTS})
            write_private(self.path, json.dumps(self._values, ensure_ascii=False, indent=1).encode("utf-8"))
            return dict(self._values)


@dataclass
class WebContext:
    service: TableService
    data_dir: Path
    pins: PinStore
    limiter: LoginLimiter
    boards: BoardLibrary
    settings: WebSettings
    clock: Callable[[], float]
    stopping: threading.Event = field(default_factory=threading.Event)
    streams: int = 0
    streams_lock: threading.Lock = field(default_factory=threading.Lock)
    stream_generation: int = 0
    encoded: Any = None  # web.stream.EncodedEvents, set by create_app

    def disconnect_streams(self) -> None:
        """End every open event stream (within half a second); browsers reconnect and replay."""
        with self.streams_lock:
            self.stream_generation += 1


def ctx() -> WebContext:
    return current_app.extensions["tableref"]


def create_app(service: TableService, *, data_dir: str | Path, pin_store: PinStore | None = None,
               clock: Callable[[], float] = time.time, config: Mapping[str, Any] | None = None,
               initial_pin: str | None = None, backup_dir: str | Path | None = None,
               on_restore: Callable[[Path], None] | None = None) -> Flask:
    """The dashboard for one table.

    ``data_dir`` is the only folder the dashboard writes to (PIN hash, session key, settings,
    captured boards and layouts). ``initial_pin`` sets the admin PIN when none is set yet (for
    ``tableref demo``); otherwise the first visitor is asked to choose one.
    """
    data = Path(data_dir).resolve()
    (data / "web").mkdir(parents=True, exist_ok=True)
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(DEFAULT_CONFIG)
    if config:
        app.config.update(config)
    app.config.update(
        SECRET_KEY=load_secret_key(data / "web" / "secret.key"),
        SESSION_COOKIE_NAME="tableref_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(days=30),
        JSON_SORT_KEYS=False,
    )
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    pins = pin_store or PinStore(data / "web" / "admin.json", method=app.config["PIN_HASH_METHOD"])
    if initial_pin is not None and not pins.is_set():
        pins.set_pin(initial_pin)
    limiter = LoginLimiter(clock, max_failures=app.config["LOGIN_MAX_FAILURES"], window=app.config["LOGIN_WINDOW"],
                           lockout=app.config["LOGIN_LOCKOUT"], max_lockout=app.config["LOGIN_MAX_LOCKOUT"],
                           global_max=app.config["LOGIN_GLOBAL_MAX"])
    from web.stream import EncodedEvents

    app.extensions["tableref"] = WebContext(service, data, pins, limiter, BoardLibrary(data),
                                            WebSettings(data / "web" / "settings.json"), clock, encoded=EncodedEvents())

    from web.api import api
    from web.pages import pages
    from web.stream import stream

    app.register_blueprint(api)
    app.register_blueprint(stream)
    app.register_blueprint(pages)
    from web.replay import replay

    app.register_blueprint(replay)  # the Board page's replay of stored games
    from web import backup

    backup.install(app, Path(backup_dir) if backup_dir is not None else data, on_restore)  # backup and restore (docs/web.md)
    from web import kiosk, setup_views
    from web.setup_state import SetupStore

    kiosk.install(app)  # manifest: the tablet as a kiosk
    setup_views.install(app, SetupStore(data / "web" / "setup.json"))  # the first-run wizard
    app.before_request(_before)
    app.after_request(_security_headers)
    app.register_error_handler(WebError, _web_error)
    app.register_error_handler(HTTPException, _http_error)
    app.context_processor(_template_globals)
    return app


# -- per request -------------------------------------------------------------------------------

def current_lang() -> str:
    lang = getattr(g, "lang", None)
    if lang is None:
        setting = ctx().settings.get()["default_language"]
        cookie = request.cookies.get(i18n.COOKIE)
        if cookie not in i18n.LANGUAGES and setting in i18n.LANGUAGES:
            cookie = setting
        lang = i18n.negotiate(cookie, list(request.accept_languages))
        g.lang = lang
    return lang


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = new_token()
        session["csrf"] = token
        session.permanent = True
    return token


def is_admin() -> bool:
    c = ctx()
    return (c.pins.is_set() and session.get("admin_epoch") == c.pins.epoch
            and float(session.get("admin_until", 0)) > c.clock())


def require_admin() -> str:
    """The actor name of the admin session; ``PinRequired`` otherwise."""
    if not is_admin():
        raise PinRequired(Message.t('web.app.this_needs_the_table_s'))
    return f"admin@{request.remote_addr or 'unknown'}"


def log_in() -> None:
    c = ctx()
    session["admin_epoch"] = c.pins.epoch
    session["admin_until"] = c.clock() + float(current_app.config["ADMIN_SESSION_HOURS"]) * 3600
    session["csrf"] = new_token()  # a fresh token after a privilege change
    session.permanent = True


def log_out() -> None:
    session.pop("admin_epoch", None)
    session.pop("admin_until", None)


def _same_origin(origin: str) -> bool:
    parts = urlsplit(origin)
    return bool(parts.netloc) and parts.netloc == request.host


def _before() -> None:
    current_lang()
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    origin = request.headers.get("Origin")
    if origin and origin != "null" and not _same_origin(origin):
        raise CsrfFailed(Message.t('web.app.request_from_another_site_refused'))
    expected = session.get("csrf")
    sent = request.headers.get("X-CSRF-Token", "")
    if not expected or not sent or not hmac.compare_digest(str(expected), sent):
        raise CsrfFailed(Message.t('web.app.the_page_is_out_of'))


def _security_headers(resp):  # type: ignore[no-untyped-def]
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    resp.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    )
    if request.path.startswith("/api/"):
        resp.headers.setdefault("Cache-Control", "no-store")
    return resp


def _web_error(exc: WebError):  # type: ignore[no-untyped-def]
    body = exc.to_json()
    problems = getattr(exc, "problems", None)
    if problems:
        body["error"]["problems"] = [p.to_json() for p in problems]  # type: ignore[index]
    resp = jsonify(body)
    resp.status_code = exc.status
    if exc.retry_after is not None:
        resp.headers["Retry-After"] = str(int(exc.retry_after + 0.999))
    return resp


_HTTP_MESSAGES = {
    400: Message.t('web.app.bad_request'),
    404: Message.t('web.app.not_found'),
    405: Message.t('web.app.method_not_allowed'),
    413: Message.t('web.app.the_request_is_too_large'),
}


def _http_error(exc: HTTPException):  # type: ignore[no-untyped-def]
    code = exc.code or 500
    msg = _HTTP_MESSAGES.get(code, Message.t("web.app.http_error", name=exc.name or "Error"))
    if request.path.startswith("/api/"):
        resp = jsonify({"ok": False, "error": {"code": f"http_{code}", "message": msg.to_json()}})
        resp.status_code = code
        return resp
    return exc


def _template_globals() -> dict[str, Any]:
    lang = current_lang()
    c = ctx()
    return {
        "lang": lang,
        "t": lambda key, **kw: i18n.translate(lang, key, **kw),
        "pick": lambda m: i18n.pick(lang, m),
        "languages": i18n.LANGUAGE_NAMES,
        "admin": is_admin(),
        "pin_set": c.pins.is_set(),
        "table_name": c.settings.get()["table_name"],
        "csrf": csrf_token(),
    }


def service_error(exc: TableRefError) -> WebError:
    """A service-side refusal (bad setup, bad move) as a bilingual 400."""
    from web.errors import BadInput

    return BadInput(Message.t("web.app.service_refused", reason=str(exc)))
