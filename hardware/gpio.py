"""The table's buttons and lights through gpiozero: one small panel object, any pin factory.

* Buttons: **turn done** (close the current turn), **undo** (arm taking back the last move),
  **confirm** (carry out an armed undo, or silence the buzzer of an open flag).
* **Alert LED** blinks and the **buzzer** beeps while a flag is raised (the buzzer can be
  silenced; the LED keeps blinking until the table is legal again).
* **Status LED** shows sensor health: steady = every source live, slow blink = degraded (one
  source down or no source yet), fast blink = no source at all.

Every pin is configurable and optional (``None`` = not fitted). The pin factory is chosen by
configuration: ``"mock"`` (gpiozero's ``MockFactory``, used by tests and the demo), ``"lgpio"``
(Pi 5 / Bookworm), ``"rpigpio"``, or ``None`` for gpiozero's own default. Button callbacks run on
gpiozero's thread and must not block for long (the runtime hands them to its worker queue).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, Callable

from scorer.core.types import TableRefError

Callback = Callable[[], None]


class GpioError(TableRefError, OSError):
    """The GPIO panel cannot be set up (no pin factory, a pin in use, a bad pin number)."""


class Health(StrEnum):
    OK = "ok"
    DEGRADED = "degraded"
    DOWN = "down"


@dataclass(frozen=True, slots=True)
class GpioPins:
    """BCM pin numbers; ``None`` means the part is not fitted."""

    turn_done: int | None = 17
    undo: int | None = 27
    confirm: int | None = 22
    alert_led: int | None = 23
    buzzer: int | None = 24
    status_led: int | None = 25

    def used(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    def check(self) -> None:
        used = self.used()
        seen: dict[int, str] = {}
        for name, pin in used.items():
            if not isinstance(pin, int) or not 0 <= pin <= 27:
                raise GpioError(f"gpio.{name}: {pin!r} is not a BCM pin number (0-27)")
            if pin in seen:
                raise GpioError(f"gpio.{name}: pin {pin} is already used by gpio.{seen[pin]}")
            seen[pin] = name


def make_pin_factory(name: str | None) -> Any:
    """The gpiozero pin factory named in the configuration (None: gpiozero's default)."""
    if name is None or name == "default":
        return None
    try:
        if name == "mock":
            from gpiozero.pins.mock import MockFactory

            return MockFactory()
        if name == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        if name == "rpigpio":
            from gpiozero.pins.rpigpio import RPiGPIOFactory

            return RPiGPIOFactory()
        if name == "pigpio":
            from gpiozero.pins.pigpio import PiGPIOFactory

            return PiGPIOFactory()
    except Exception as exc:  # ImportError, or the library cannot reach the chip
        raise GpioError(f"GPIO pin factory {name!r} is not available here: {exc}") from exc
    raise GpioError(f"unknown GPIO pin factory {name!r} (mock, lgpio, rpigpio, pigpio, default)")


class GpioPanel:
    """Buttons, alert LED, buzzer and status LED. ``close()`` is idempotent; a context manager."""

    def __init__(self, pins: GpioPins, *, pin_factory: Any = None, bounce_time: float | None = 0.05,
                 on_turn_done: Callback | None = None, on_undo: Callback | None = None,
                 on_confirm: Callback | None = None) -> None:
        from gpiozero import LED, Button, Buzzer
        from gpiozero.exc import GPIOZeroError

        pins.check()
        self.pins = pins
        self._lock = threading.Lock()
        self._closed = False
        self._devices: list[Any] = []
        self._alert: tuple[bool, bool] = (False, False)
        self._health = Health.DOWN
        self.presses = {"turn_done": 0, "undo": 0, "confirm": 0}
        kw = {"pin_factory": pin_factory}
        try:
            self.turn_done = self._button(Button, pins.turn_done, bounce_time, on_turn_done, "turn_done", kw)
            self.undo = self._button(Button, pins.undo, bounce_time, on_undo, "undo", kw)
            self.confirm = self._button(Button, pins.confirm, bounce_time, on_confirm, "confirm", kw)
            self.alert_led = self._add(LED(pins.alert_led, **kw)) if pins.alert_led is not None else None
            self.buzzer = self._add(Buzzer(pins.buzzer, **kw)) if pins.buzzer is not None else None
            self.status_led = self._add(LED(pins.status_led, **kw)) if pins.status_led is not None else None
        except GPIOZeroError as exc:
            self.close()
            raise GpioError(f"cannot set up the GPIO panel: {exc} (for a machine without GPIO set gpio.pin_factory = \"mock\")") from exc
        self.set_health(Health.DOWN)

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def _button(self, cls: Any, pin: int | None, bounce: float | None, cb: Callback | None, name: str, kw: dict[str, Any]) -> Any:
        if pin is None:
            return None
        button = self._add(cls(pin, pull_up=True, bounce_time=bounce, **kw))

        def pressed() -> None:
            self.presses[name] += 1
            if cb is not None:
                cb()

        button.when_pressed = pressed
        return button

    # -- outputs -------------------------------------------------------------------------------
    def set_alert(self, active: bool, silenced: bool = False) -> None:
        """Warn while a flag is raised: blink the alert LED, beep unless silenced."""
        with self._lock:
            if self._closed or self._alert == (active, silenced):
                return
            self._alert = (active, silenced)
            if self.alert_led is not None:
                if active:
                    self.alert_led.blink(on_time=0.25, off_time=0.25)
                else:
                    self.alert_led.off()
            if self.buzzer is not None:
                if active and not silenced:
                    self.buzzer.beep(on_time=0.15, off_time=0.85)
                else:
                    self.buzzer.off()

    def set_health(self, health: Health) -> None:
        with self._lock:
            if self._closed:
                return
            self._health = health
            if self.status_led is None:
                return
            if health == Health.OK:
                self.status_led.on()
            elif health == Health.DEGRADED:
                self.status_led.blink(on_time=1.0, off_time=1.0)
            else:
                self.status_led.blink(on_time=0.1, off_time=0.1)

    def status(self) -> dict[str, Any]:
        return {
            "pins": self.pins.used(),
            "alert": self._alert[0],
            "buzzer_silenced": self._alert[1],
            "health": self._health.value,
            "presses": dict(self.presses),
        }

    # -- lifecycle -----------------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            devices, self._devices = self._devices, []
        for d in reversed(devices):
            try:
                d.close()
            except Exception:
                pass

    def __enter__(self) -> "GpioPanel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def health_from_sources(sources: list[dict[str, Any]], expected: int) -> Health:
    """Status-LED level from the stabiliser's source list and how many sources are configured."""
    live = sum(1 for s in sources if s.get("live") and s.get("spaces", 0) > 0)
    if expected == 0 or live == 0:
        return Health.DOWN
    if live < expected:
        return Health.DEGRADED
    return Health.OK
