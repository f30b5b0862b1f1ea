"""Starting the web dashboard for a running table (``tableref run`` and ``tableref demo``).

``start_dashboard`` serves the ``web`` package's app over a ``Runtime`` when that package is
installed; ``ConfigPins`` is its PIN store when the admin PIN comes from the table configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from scorer.core.types import Message
from tableref.runtime import Runtime, RuntimeError_


class ConfigPins:
    """The dashboard's PIN store when the PIN comes from the table configuration ([admin] pin_hash):
    checked with the same hash format, changed only by editing the configuration."""

    def __init__(self, pin_hash: str) -> None:
        self.pin_hash = pin_hash

    def is_set(self) -> bool:
        return True

    @property
    def epoch(self) -> int:
        return 1

    def verify(self, pin: str) -> bool:
        from tableref.config import verify_pin

        return isinstance(pin, str) and verify_pin(pin, self.pin_hash)

    def set_pin(self, pin: str) -> None:
        msg = Message.t('tableref.runtime.the_admin_pin_is_set')
        try:
            from web.errors import BadInput
        except ImportError:
            raise RuntimeError_(msg.en) from None
        raise BadInput(msg)


@dataclass
class Dashboard:
    server: Any
    url: str

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving within ``timeout`` seconds (web.server.Server.stop)."""
        self.server.stop(timeout=timeout)


def start_dashboard(runtime: Runtime, *, host: str, port: int, data_dir: str, threads: int = 16,
                    pin_hash: str | None = None, initial_pin: str | None = None,
                    on_restore: Callable[[Any], None] | None = None, backup_dir: str | None = None) -> tuple[Dashboard | None, str]:
    """Start the web dashboard if the ``web`` package is installed; returns (dashboard, note).
    ``backup_dir`` is the folder the dashboard's backups take (default ``data_dir``); ``on_restore``
    receives a checked backup archive to restore (None: the dashboard offers no restore)."""
    try:
        from web import create_app
        from web.server import make_server
    except ImportError as exc:
        return None, f"dashboard not started: the web package is not available ({exc})"
    kwargs: dict[str, Any] = {"data_dir": data_dir, "backup_dir": backup_dir or data_dir, "on_restore": on_restore}
    if pin_hash is not None:
        kwargs["pin_store"] = ConfigPins(pin_hash)
    elif initial_pin is not None:
        kwargs["initial_pin"] = initial_pin
    app = create_app(runtime, **kwargs)
    try:
        server = make_server(app, host, port, threads=max(threads, 10))
    except OSError as exc:
        raise RuntimeError_(f"cannot serve the dashboard on {host}:{port}: {exc.strerror or exc}") from None
    server.start()
    if not server.wait_ready(15.0):
        server.stop()
        raise RuntimeError_(f"the dashboard on {host}:{port} did not answer")
    return Dashboard(server, server.url), "dashboard ready"
