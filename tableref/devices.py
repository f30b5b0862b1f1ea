"""Device adapters: each joins one device of ``firmware_bridge``/``hardware``/``vision`` to the
runtime (``tableref.runtime.Runtime``) and nothing else.

The camera's adapter is ``tableref.camera_device.CameraDevice``.

An adapter has a ``name`` (``sensor_board``, ``camera``, ``card_reader``, ``gpio``), ``start(runtime)``,
an idempotent ``close()`` and ``status()`` for the dashboard's device page. Adapters push into the
runtime's inbox (observations, source health, commands) and read the bus; they never touch the
referee's state.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from typing import TYPE_CHECKING, Any

from scorer.core.types import Message

if TYPE_CHECKING:
    from tableref.runtime import Runtime

log = logging.getLogger(__name__)


class _Poller:
    """A background loop with a stop event and a bounded join (gpiozero-style lifecycle)."""

    def __init__(self, name: str, interval: float, fn: Any) -> None:
        self._stop = threading.Event()
        self._fn = fn
        self._interval = interval
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._fn()
            except Exception:
                log.warning("%s: poll failed", self._thread.name, exc_info=True)
            self._stop.wait(self._interval)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)


# -- sensor board --------------------------------------------------------------------------------

class SensorBoardDevice:
    """``firmware_bridge.board.SensorBoard`` -> observations + the ``sensor-board`` source's health.

    The link's state decides whether the source is live: anything but LIVE (cable pulled, board
    rebooting, resync) takes it down, so its readings are dropped and the camera covers the table.
    When it is live again the latest table is sent once more, restamped: the board itself only
    publishes changes, and a resync that found nothing new publishes nothing.
    """

    name = "sensor_board"
    source = "sensor-board"

    def __init__(self, board: Any, *, emulator: Any = None, owns_emulator: bool = False, poll: float = 0.1,
                 startup_grace: float = 3.0) -> None:
        self.board = board
        self.owns_emulator = owns_emulator
        self.startup_grace = startup_grace
        self.emulator = emulator
        self.emulated = emulator is not None
        self._poll_interval = poll
        self._poller: _Poller | None = None
        self._runtime: Runtime | None = None
        self._live: bool | None = None
        self._closed = False

    def start(self, runtime: "Runtime") -> None:
        self._runtime = runtime
        self.board.subscribe(self._on_observation)
        self.board.start()
        self._poller = _Poller("sensor-board-health", self._poll_interval, self._check)
        self._poller.start()

    def _on_observation(self, obs: Any) -> None:
        if self._runtime is not None and self._live:
            self._runtime.submit_observation(obs)

    def _check(self) -> None:
        from firmware_bridge.link import LinkState

        assert self._runtime is not None
        health = self.board.health()
        live = health.state == LinkState.LIVE
        if live == self._live:
            return
        if self._live is None and not live:
            # still coming up: only a board that stays away is reported as down
            now = self._runtime.clock()
            self._first_down = getattr(self, "_first_down", None) or now
            if now - self._first_down < self.startup_grace:
                return
        self._live = live
        if live:
            self._runtime.set_source(self.source, True)
            latest = self.board.latest()
            if latest is not None:
                self._runtime.submit_observation(dataclasses.replace(latest, at=self._runtime.clock()))
        else:
            why = health.last_error or str(health.state)
            self._runtime.set_source(self.source, False, Message.t('tableref.devices.sensor_board_link', state=health.state, why=why))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._poller is not None:
            self._poller.stop()
        self.board.close()
        if self.owns_emulator and self.emulator is not None:
            self.emulator.close()

    def status(self) -> dict[str, Any]:
        h = self.board.health().to_json()
        state = {"live": "connected", "stopped": "stopped"}.get(str(h["state"]), str(h["state"]))
        return {**h, "link_state": h["state"], "state": state, "emulated": self.emulated}


# -- card reader ---------------------------------------------------------------------------------

class CardReaderDevice:
    """``hardware.card_reader.CardReader`` -> a tapped card is part of the turn's payment and closes
    the turn once it pays (``Table.tap_card``); an unknown card is offered for enrolment."""

    name = "card_reader"

    def __init__(self, reader: Any, *, emulated: bool = False) -> None:
        self.reader = reader
        self.emulated = emulated
        self._runtime: Runtime | None = None
        self._closed = False

    def start(self, runtime: "Runtime") -> None:
        self._runtime = runtime
        self.reader.subscribe(self._on_tap)
        self.reader.start()

    def _on_tap(self, tap: Any) -> None:
        rt = self._runtime
        if rt is None:
            return
        card = tap.card
        if card is None:
            rt.unknown_tag(tap.uid, "card-reader")
            return
        rt.submit(lambda t: t.tap_card(card.card, f"card-reader:{tap.reader}"))

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.reader.close()

    def status(self) -> dict[str, Any]:
        h = self.reader.health().to_json()
        return {**h, "state": "connected" if h.get("connected") else "disconnected", "emulated": self.emulated}


# -- GPIO ----------------------------------------------------------------------------------------

class GpioDevice:
    """The button/LED panel (``hardware.gpio``): buttons become commands on the worker; the alert
    LED and buzzer follow the open flag, the status LED the sensors' health."""

    name = "gpio"

    def __init__(self, pins: Any, *, pin_factory: str | None = None, expected_sources: int = 1) -> None:
        self.pins = pins
        self.pin_factory_name = pin_factory
        self.emulated = pin_factory == "mock"
        self.expected_sources = expected_sources
        self.factory: Any = None
        self.panel: Any = None
        self._runtime: Runtime | None = None
        self._sub: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.results: list[Any] = []

    def start(self, runtime: "Runtime") -> None:
        from hardware.gpio import GpioPanel, make_pin_factory

        self._runtime = runtime
        self.factory = make_pin_factory(self.pin_factory_name)
        self.panel = GpioPanel(
            self.pins, pin_factory=self.factory,
            on_turn_done=lambda: self._command(lambda t: t.turn_done("button:turn_done")),
            on_undo=lambda: self._command(lambda t: t.arm_undo("button:undo")),
            on_confirm=lambda: self._command(lambda t: t.confirm("button:confirm")),
        )
        self._sub = runtime.events().subscribe()
        self._apply(runtime.snapshot())
        self._thread = threading.Thread(target=self._run, name="gpio-panel", daemon=True)
        self._thread.start()

    def _command(self, fn: Any) -> None:
        assert self._runtime is not None
        future = self._runtime.submit(fn)
        future.add_done_callback(lambda f: self.results.append(f.result() if not f.exception() else f.exception()))

    def _apply(self, snap: dict[str, Any]) -> None:
        from hardware.gpio import health_from_sources

        if not snap or self.panel is None:
            return
        alert = snap.get("alert") or {}
        self.panel.set_alert(bool(alert.get("active")), bool(alert.get("silenced")))
        sources = (snap.get("sensors") or {}).get("sources", [])
        self.panel.set_health(health_from_sources(sources, self.expected_sources))

    def _run(self) -> None:
        while not self._stop.is_set():
            event = self._sub.get(timeout=0.2)
            if event is not None and event.type == "state":
                self._apply(event.data)

    def press(self, button: str) -> None:
        """Press and release a button through the mock pin factory (demo and tests)."""
        pin = getattr(self.pins, button)
        if pin is None or self.factory is None:
            raise ValueError(f"no {button} button fitted")
        mock = self.factory.pin(pin)
        mock.drive_low()
        mock.drive_high()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        if self._sub is not None:
            self._sub.close()
        if self.panel is not None:
            self.panel.close()
        if self.factory is not None and hasattr(self.factory, "close"):
            try:
                self.factory.close()
            except Exception:
                pass

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": "ok" if self.panel is not None else "stopped", "pin_factory": self.pin_factory_name or "default",
                               "emulated": self.emulated}
        if self.panel is not None:
            st = self.panel.status()
            out.update(st)
            out["alert_led"] = st["alert"]
            out["buzzer"] = st["alert"] and not st["buzzer_silenced"]
            out["buttons"] = {k: v for k, v in st["pins"].items() if k in ("turn_done", "undo", "confirm")}
        return out
