"""Buttons, LEDs and the buzzer through lgpio (docs/hil.md, "Buttons and lights"): the same
``GpioPanel`` the service uses, on the real pins, with a person pressing and looking."""

from __future__ import annotations

import threading

import pytest

from hil_rig import ask, setting, wait_until


@pytest.fixture
def panel():
    from hardware.gpio import GpioPanel, GpioPins, make_pin_factory

    pins = GpioPins(**{name: int(setting(f"PIN_{name.upper()}", str(default)))
                       for name, default in GpioPins().used().items()})
    pressed: dict[str, threading.Event] = {n: threading.Event() for n in ("turn_done", "undo", "confirm")}
    p = GpioPanel(pins, pin_factory=make_pin_factory("lgpio"),
                  on_turn_done=pressed["turn_done"].set, on_undo=pressed["undo"].set, on_confirm=pressed["confirm"].set)
    p.pressed = pressed  # type: ignore[attr-defined]
    yield p
    p.close()


def test_the_lgpio_pin_factory_opens_the_gpio_chip() -> None:
    from hardware.gpio import make_pin_factory

    factory = make_pin_factory("lgpio")
    assert factory is not None
    factory.close()


@pytest.mark.parametrize("button", ["turn_done", "undo", "confirm"])
def test_each_button_press_is_seen_once(panel, button: str) -> None:
    ask(f"Press the {button.replace('_', ' ')} button once")
    assert panel.pressed[button].wait(float(setting("WAIT", "30"))), f"no press of {button} on BCM {getattr(panel.pins, button)}"
    assert wait_until(lambda: panel.presses[button] >= 1, 1.0)
    others = {k: v for k, v in panel.presses.items() if k != button}
    assert panel.presses[button] == 1 and not any(others.values()), f"presses {panel.presses}: bounce or crossed wires"


def test_the_alert_led_and_buzzer_follow_a_flag_and_the_status_led_the_sources(panel) -> None:
    from hardware.gpio import Health

    panel.set_alert(True)
    ask("The alert LED blinks and the buzzer beeps; press confirm if so, undo if not")
    assert wait_until(lambda: panel.presses["confirm"] or panel.presses["undo"])
    assert panel.presses["confirm"] == 1, "the person saw no blinking or heard no beep"
    panel.set_alert(False)
    panel.set_health(Health.OK)
    assert panel.status_led.is_lit
    ask("The alert LED and the buzzer are off and the status LED is steadily on; press confirm if so, undo if not")
    before = dict(panel.presses)
    assert wait_until(lambda: panel.presses != before)
    assert panel.presses["confirm"] == before["confirm"] + 1
