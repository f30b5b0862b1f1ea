"""The dashboard as a tablet kiosk: the web app manifest, so a tablet adds it to its home screen
and opens it full screen (the icons are made by ``scripts/make_icons.py``). Keeping the screen on
during a game is the page's part (``static/js/kiosk.js``, Screen Wake Lock API)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, json

from web import i18n
from web.app import ctx, current_lang

kiosk = Blueprint("kiosk", __name__)

BACKGROUND = "#121418"  # app.css --bg: the splash screen matches the pages
ICONS = [
    {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
    {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
    {"src": "/static/icons/icon-maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
]


def install(app: Flask) -> None:
    app.register_blueprint(kiosk)


def manifest(lang: str, table_name: str) -> dict[str, Any]:
    """The manifest for one language and table (the home-screen label carries the table's name)."""
    name = f"tableref · {table_name}" if table_name else "tableref"
    return {
        "id": "/",
        "name": name,
        "short_name": table_name[:12] if table_name else "tableref",
        "description": i18n.translate(lang, "kiosk.description"),
        "lang": lang,
        "dir": "ltr",
        "start_url": "/",
        "scope": "/",
        # full screen where the browser can, else a standalone window without the address bar
        "display": "fullscreen",
        "display_override": ["fullscreen", "standalone"],
        "orientation": "any",
        "background_color": BACKGROUND,
        "theme_color": BACKGROUND,
        "icons": ICONS,
    }


@kiosk.get("/manifest.webmanifest")
def webmanifest() -> Response:
    body = json.dumps(manifest(current_lang(), ctx().settings.get()["table_name"]), ensure_ascii=False)
    return Response(body, mimetype="application/manifest+json", headers={"Cache-Control": "no-cache"})
