"""Wiring a ``Runtime`` from a table configuration (``tableref run``): one place that turns the
checked ``tableref.config.TableConfig`` into the referee's settings and the devices it enables
(sensor board, card reader, camera, GPIO panel, MQTT), each imported only when enabled so that a
table without a part does not need its packages.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from tableref.runtime import Device, Runtime, RuntimeError_
from tableref.table import TableSettings


def table_settings(config: Any) -> TableSettings:
    return TableSettings(settle=config.settle, priority=config.priority, min_confidence=config.min_confidence,
                         reconciler=config.reconciler, name=config.name,
                         player_names=tuple(sorted(config.player_names.items())))


def build_runtime(config: Any, *, clock: Callable[[], float] = time.monotonic) -> Runtime:
    """Every device the configuration enables, joined to one runtime (not started yet)."""
    from tableref.devices import CardReaderDevice, GpioDevice, SensorBoardDevice

    registry = None
    tags = config.sensor_board.tags or config.card_reader.cards
    if config.sensor_board.enabled or config.card_reader.enabled:
        from hardware.tag_registry import TagRegistry

        if tags is None:
            raise RuntimeError_(f"{config.path}: [devices] the sensor board and card reader need a tag registry (sensor_board.tags)")
        registry = TagRegistry.load(tags)
    runtime = Runtime(store_path=config.store_path, game_id=config.game_id, setup=config.setup,
                      settings=table_settings(config), clock=clock, registry=registry)
    sources = 0
    if config.sensor_board.enabled:
        from firmware_bridge.board import SensorBoard
        from firmware_bridge.link import SensorLink
        from firmware_bridge.transport import PortSpec
        from firmware_bridge.wiring import WiringMap

        if config.sensor_board.antennas is None:
            raise RuntimeError_(f"{config.path}: [devices] sensor_board.antennas: the wiring map (antenna -> space) is required")
        wiring = WiringMap.load(config.sensor_board.antennas)
        port = config.sensor_board.port
        emulator = None
        if port == "emulated":
            from firmware_bridge.emulator import EmulatedSensorBoard

            emulator = EmulatedSensorBoard(antennas=max(a for a, _ in wiring.antennas) + 1)
            port = emulator.device_path
        spec = PortSpec(path=None if port == "auto" else port, baudrate=config.sensor_board.baudrate)
        board = SensorBoard(SensorLink(spec, clock=clock), wiring, registry, clock=clock)
        runtime.add_device(SensorBoardDevice(board, emulator=emulator, owns_emulator=emulator is not None))
        sources += 1
    if config.card_reader.enabled:
        from hardware.card_reader import SerialCardReader

        runtime.add_device(CardReaderDevice(SerialCardReader(config.card_reader.port, registry, clock=clock)))
    if config.camera.enabled:
        sources += 1
        runtime.add_device(build_camera_device(config, clock))
    if config.gpio.enabled:
        from hardware.gpio import GpioPins

        pins = GpioPins(**{k: getattr(config.gpio, k) for k in ("turn_done", "undo", "confirm", "alert_led", "buzzer", "status_led")})
        runtime.add_device(GpioDevice(pins, pin_factory=config.gpio.pin_factory, expected_sources=sources))
    if getattr(config, "mqtt", None) is not None:
        from tableref.mqtt import MqttPublisher

        runtime.add_device(MqttPublisher(config.mqtt))
    return runtime


def build_camera_device(config: Any, clock: Callable[[], float]) -> Device:
    from tableref.camera_device import camera_device_from_config

    return camera_device_from_config(config, clock)
