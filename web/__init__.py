"""The Flask dashboard: live scoreboard, board view, history, setup, devices, board capture and
tag enrolment, in Simplified Chinese and English.

    from web import create_app
    from web.server import make_server
    app = create_app(service, data_dir="data")
    server = make_server(app, "0.0.0.0", 8080, threads=64).start()
    server.wait_ready(); print(server.url)

See docs/web.md for the pages, the JSON API and what the dashboard needs from the service.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(*args: Any, **kwargs: Any) -> "Flask":
    from web.app import create_app as _create

    return _create(*args, **kwargs)


__all__ = ["create_app"]
