"""The GPIO panel through gpiozero's mock pin factory: buttons, alert LED, buzzer, status LED."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.gpio import GpioError, GpioPanel, GpioPins, Health, health_from_sources, make_pin_factory

PINS = GpioPins(turn_done=17, undo=27, confirm=22, alert_led=23, buzzer=24, status_led=25)


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()
    f.close()


def wait_for(cond, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


def toggled(factory: MockFactory, pin: int, since: int) -> bool:
    states = [s.state for s in factory.pin(pin).states[since:]]
    return True in states and False in states


def test_buttons_call_their_callbacks(factory: MockFactory) -> None:
    calls: list[str] = []
    with GpioPanel(PINS, pin_factory=factory, bounce_time=None, on_turn_done=lambda: calls.append("done"),
                   on_undo=lambda: calls.append("undo"), on_confirm=lambda: calls.append("confirm")) as panel:
        for pin in (17, 27, 22):
            factory.pin(pin).drive_low()
            factory.pin(pin).drive_high()
        assert calls == ["done", "undo", "confirm"]
        assert panel.status()["presses"] == {"turn_done": 1, "undo": 1, "confirm": 1}


def test_alert_blinks_and_beeps_until_cleared_and_the_buzzer_can_be_silenced(factory: MockFactory) -> None:
    with GpioPanel(PINS, pin_factory=factory) as panel:
        n_led, n_buz = len(factory.pin(23).states), len(factory.pin(24).states)
        panel.set_alert(True)
        assert wait_for(lambda: toggled(factory, 23, n_led) and toggled(factory, 24, n_buz))
        panel.set_alert(True, silenced=True)
        assert wait_for(lambda: factory.pin(24).state is False)
        n_led = len(factory.pin(23).states)
        assert wait_for(lambda: toggled(factory, 23, n_led))  # the LED keeps warning
        assert panel.buzzer._blink_thread is None and not panel.buzzer.is_active  # stopped, not between beeps
        panel.set_alert(False)
        assert wait_for(lambda: factory.pin(23).state is False)
        assert panel.status()["alert"] is False


def test_status_led_shows_health(factory: MockFactory) -> None:
    with GpioPanel(PINS, pin_factory=factory) as panel:
        panel.set_health(Health.OK)
        assert wait_for(lambda: factory.pin(25).state is True)
        assert panel.status_led._blink_thread is None  # steady, not blinking
        panel.set_health(Health.DOWN)
        n = len(factory.pin(25).states)
        assert wait_for(lambda: toggled(factory, 25, n))
        assert panel.status()["health"] == "down"


def test_parts_not_fitted_are_skipped(factory: MockFactory) -> None:
    pins = GpioPins(turn_done=5, undo=None, confirm=None, alert_led=None, buzzer=None, status_led=None)
    with GpioPanel(pins, pin_factory=factory) as panel:
        panel.set_alert(True)
        panel.set_health(Health.OK)
        assert panel.status()["pins"] == {"turn_done": 5}


def test_bad_pins_and_factories_are_clear_errors(factory: MockFactory) -> None:
    with pytest.raises(GpioError, match="already used"):
        GpioPanel(GpioPins(turn_done=17, undo=17), pin_factory=factory)
    with pytest.raises(GpioError, match="BCM"):
        GpioPanel(GpioPins(turn_done=40), pin_factory=factory)
    with pytest.raises(GpioError, match="unknown GPIO pin factory"):
        make_pin_factory("nonsense")
    assert isinstance(GpioError("x"), OSError)


def test_close_is_idempotent_and_frees_the_pins(factory: MockFactory) -> None:
    panel = GpioPanel(PINS, pin_factory=factory)
    panel.close()
    panel.close()
    panel.set_alert(True)  # ignored after close, no error
    GpioPanel(PINS, pin_factory=factory).close()  # the pins can be claimed again


def test_health_from_sources() -> None:
    live = {"live": True, "spaces": 10}
    down = {"live": False, "spaces": 0}
    assert health_from_sources([live, live], 2) == Health.OK
    assert health_from_sources([live, down], 2) == Health.DEGRADED
    assert health_from_sources([down], 2) == Health.DOWN
    assert health_from_sources([], 0) == Health.DOWN
