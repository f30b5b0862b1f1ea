"""One TOML file per table: game, board side, players and colours, devices, pins, ports, admin PIN.

Read with ``tomllib``, checked against a JSON Schema (``jsonschema``) for shape and types, then
against what the parts need (the game accepts the set-up, pins are distinct, the PIN hash is in a
known format). Every problem is reported as one clear line naming the file and the key.

Relative paths in the file (data directory, tag registry ...) are relative to the file itself.
See ``examples/table.toml`` for a complete, commented example and docs/runtime.md for each key;
the schema itself is ``tableref.config_schema``.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from typing import Any, Mapping

import jsonschema

from scorer.core import safejson
from scorer.core.types import TableRefError
from scorer.referee.reconciler import ReconcilerSettings
from tableref.config_schema import SCHEMA
from tableref.mqtt import MqttError, MqttSettings, check_topic, table_id_from_name

PIN_METHOD = "scrypt"
DEFAULT_TABLE_MODEL = "table-model.npz"  # in the data folder: the camera enrolment's model


class ConfigError(TableRefError, ValueError):
    """The table configuration cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class SensorBoardConfig:
    enabled: bool = False
    port: str = "emulated"
    baudrate: int = 115200
    tags: str | None = None
    antennas: str | None = None


@dataclass(frozen=True, slots=True)
class CameraConfig:
    enabled: bool = False
    source: str = "synthetic"
    layout: str | None = None
    fps: float = 4.0
    width: int = 960
    height: int = 720
    mode: str = "colour"
    model: str | None = None  # absolute path of the table model (colour mode), when configured
    tags: str | None = None  # marker mode: tag map file
    detail: tuple[int, int] | None = None  # (width, height) of the still beside each watched frame, if any


@dataclass(frozen=True, slots=True)
class CardReaderConfig:
    enabled: bool = False
    port: str | None = None
    kind: str = "rdm6300"
    cards: str | None = None


@dataclass(frozen=True, slots=True)
class GpioConfig:
    enabled: bool = True
    pin_factory: str | None = None
    turn_done: int | None = 17
    undo: int | None = 27
    confirm: int | None = 22
    alert_led: int | None = 23
    buzzer: int | None = 24
    status_led: int | None = 25


@dataclass(frozen=True, slots=True)
class WebConfig:
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8080
    threads: int = 16
    mdns: bool | str = "auto"  # true, false or "auto" (tableref.mdns)
    mdns_host: str = "tableref"


@dataclass(frozen=True, slots=True)
class TableConfig:
    path: str
    name: str
    data_dir: str
    store: str
    game_id: str
    setup: dict[str, Any]
    player_names: dict[str, str]
    settle: float
    priority: tuple[str, ...]
    min_confidence: float
    reconciler: ReconcilerSettings
    sensor_board: SensorBoardConfig
    camera: CameraConfig
    card_reader: CardReaderConfig
    gpio: GpioConfig
    web: WebConfig
    pin_hash: str | None = None
    mqtt: MqttSettings | None = None  # None: no [mqtt] section (or enabled = false)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def store_path(self) -> str:
        return os.path.join(self.data_dir, self.store)

    @property
    def camera_model_path(self) -> str:
        """Where the table model is read from (if it exists) and where the dashboard saves it."""
        return self.camera.model or os.path.join(self.data_dir, DEFAULT_TABLE_MODEL)

    def check_pin(self, pin: str) -> bool:
        return self.pin_hash is not None and verify_pin(pin, self.pin_hash)


# -- admin PIN ------------------------------------------------------------------------------------
# The same format the dashboard's PIN store uses (werkzeug.security): "scrypt:N:r:p$SALT$HASH" or
# "pbkdf2:sha256:ITERATIONS$SALT$HASH". Make one with `tableref config hash-pin`.

def hash_pin(pin: str, *, method: str = PIN_METHOD) -> str:
    from werkzeug.security import generate_password_hash

    if not pin or not pin.strip():
        raise ConfigError("the admin PIN must not be empty")
    return generate_password_hash(pin, method=method)


def _check_pin_hash(text: str) -> None:
    parts = text.split("$")
    if len(parts) != 3 or not parts[0].startswith(("scrypt:", "pbkdf2:")) or not parts[1] or not parts[2]:
        raise ValueError("expected 'scrypt:N:r:p$SALT$HASH' or 'pbkdf2:sha256:N$SALT$HASH' (make one with `tableref config hash-pin`)")


def verify_pin(pin: str, pin_hash: str) -> bool:
    from werkzeug.security import check_password_hash

    try:
        _check_pin_hash(pin_hash)
        return check_password_hash(pin_hash, str(pin))
    except ValueError:
        return False


# -- loading ------------------------------------------------------------------------------------------

def _where(error: jsonschema.ValidationError) -> str:
    path = [str(p) for p in error.absolute_path]
    if not path:
        return "top level"
    head, *rest = path
    return f"[{head}]" + ("" if not rest else " " + ".".join(rest))


def load_config(path: str) -> TableConfig:
    try:
        with open(path, "rb") as fh:
            doc = safejson.loads_toml(fh.read().decode("utf-8"), path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except safejson.TooDeep as exc:
        raise ConfigError(str(exc)) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    return config_from_dict(doc, path)


def config_from_dict(doc: Mapping[str, Any], path: str = "<config>") -> TableConfig:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = sorted(validator.iter_errors(doc), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    if errors:
        e = errors[0]
        raise ConfigError(f"{path}: {_where(e)}: {e.message}")
    base = os.path.dirname(os.path.abspath(path)) if os.path.exists(path) else os.getcwd()

    def rel(p: str | None) -> str | None:
        if p is None:
            return None
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(base, p))

    table = doc.get("table", {})
    game = doc["game"]
    setup: dict[str, Any] = {"players": list(game["players"])}
    if "board" in game:
        setup["board"] = game["board"]
    if game.get("variants"):
        setup["variants"] = list(game["variants"])
    setup.update(game.get("options", {}))
    _check_game(path, game["id"], setup)

    ref = doc.get("referee", {})
    try:
        reconciler = ReconcilerSettings(
            complete_grace=float(ref.get("complete_grace_seconds", 1.0)),
            quiet_timeout=float(ref.get("quiet_timeout_seconds", 10.0)),
            max_busy=float(ref.get("max_busy_seconds", 5.0)),
            signal_ttl=float(ref.get("signal_ttl_seconds", 5.0)),
            signal_grace=float(ref.get("signal_grace_seconds", 1.0)),
            close_on_complete=bool(ref.get("close_on_complete", True)),
        )
    except ValueError as exc:
        raise ConfigError(f"{path}: [referee]: {exc}") from None

    devices = doc.get("devices", {})
    sb = devices.get("sensor_board", {})
    cam = devices.get("camera", {})
    cr = devices.get("card_reader", {})
    sensor_board = SensorBoardConfig(
        enabled=sb.get("enabled", bool(sb)), port=sb.get("port", "emulated"), baudrate=sb.get("baudrate", 115200),
        tags=rel(sb.get("tags")), antennas=rel(sb.get("antennas")),
    )
    data_dir = rel(table.get("data_dir", "data")) or "data"
    model = cam.get("model")
    if model is not None:
        model = model if os.path.isabs(model) else os.path.normpath(os.path.join(data_dir, model))
    camera = CameraConfig(
        enabled=cam.get("enabled", bool(cam)), source=cam.get("source", "synthetic"), layout=cam.get("layout"),
        fps=float(cam.get("fps", 4.0)), width=int(cam.get("width", 960)), height=int(cam.get("height", 720)),
        detail=(int(cam["detail_width"]), int(cam["detail_height"])) if "detail_width" in cam else None,
        mode=cam.get("mode", "colour"), model=model, tags=rel(cam.get("tags")),
    )
    if camera.source not in ("synthetic", "picamera2") and not camera.source.startswith("usb:"):
        src = rel(camera.source)
        if src is None or not os.path.isdir(src):
            raise ConfigError(f"{path}: [devices] camera.source: {camera.source!r} is not picamera2, usb:N, synthetic or a folder")
        camera = dataclasses.replace(camera, source=src)
    if camera.detail is not None:
        if camera.source not in ("synthetic", "picamera2"):
            raise ConfigError(f"{path}: [devices] camera.detail_width: source {camera.source!r} has no detail stream "
                              "(picamera2 and synthetic have one)")
        if camera.detail[0] < camera.width or camera.detail[1] < camera.height:
            raise ConfigError(f"{path}: [devices] camera.detail_width: the still ({camera.detail[0]}x{camera.detail[1]}) "
                              f"must be at least the watched frame ({camera.width}x{camera.height})")
    if camera.mode == "marker" and camera.model is not None:
        raise ConfigError(f"{path}: [devices] camera.model: a table model is for colour mode, not mode = \"marker\"")
    if camera.mode != "marker" and camera.tags is not None:
        raise ConfigError(f"{path}: [devices] camera.tags: a tag map is for mode = \"marker\"")
    if camera.enabled and camera.model is not None and not os.path.isfile(camera.model):
        raise ConfigError(f"{path}: [devices] camera.model: file {camera.model} does not exist (it is relative to the data "
                          "folder; enrol the table on the dashboard's camera enrolment page, or remove the key)")
    card_reader = CardReaderConfig(enabled=cr.get("enabled", bool(cr)), port=cr.get("port"), kind=cr.get("kind", "rdm6300"),
                                   cards=rel(cr.get("cards")))
    if card_reader.enabled and not card_reader.port:
        raise ConfigError(f"{path}: [devices] card_reader.port: a card reader needs a serial port")
    for name, file in (("sensor_board.tags", sensor_board.tags), ("sensor_board.antennas", sensor_board.antennas),
                       ("card_reader.cards", card_reader.cards), ("camera.tags", camera.tags)):
        if file is not None and not os.path.exists(file):
            raise ConfigError(f"{path}: [devices] {name}: file {file} does not exist")

    g = doc.get("gpio", {})
    defaults = GpioConfig()
    gpio = GpioConfig(enabled=g.get("enabled", True), pin_factory=g.get("pin_factory"),
                      **{k: (None if g.get(k) is False else g.get(k, getattr(defaults, k)))
                         for k in ("turn_done", "undo", "confirm", "alert_led", "buzzer", "status_led")})
    if gpio.enabled:
        seen: dict[int, str] = {}
        for k in ("turn_done", "undo", "confirm", "alert_led", "buzzer", "status_led"):
            pin = getattr(gpio, k)
            if pin is None:
                continue
            if pin in seen:
                raise ConfigError(f"{path}: [gpio] {k}: pin {pin} is already used by {seen[pin]}")
            seen[pin] = k

    w = doc.get("web", {})
    web = WebConfig(enabled=w.get("enabled", True), host=w.get("host", "127.0.0.1"), port=w.get("port", 8080), threads=w.get("threads", 16),
                    mdns=w.get("mdns", "auto"), mdns_host=w.get("mdns_host", "tableref"))
    try:
        from tableref.mdns import check_host_label

        check_host_label(web.mdns_host)
    except ValueError as exc:
        raise ConfigError(f"{path}: [web] mdns_host: {exc}") from None

    pin_hash = doc.get("admin", {}).get("pin_hash")
    if pin_hash is not None:
        try:
            _check_pin_hash(pin_hash)
        except ValueError as exc:
            raise ConfigError(f"{path}: [admin] pin_hash: {exc}") from None

    mqtt = _mqtt_settings(path, doc.get("mqtt"), table.get("name", "table"), rel)

    priority = tuple(ref.get("priority", ("sensor-board", "camera")))
    names = dict(game.get("names", {}))
    unknown = sorted(set(names) - set(setup["players"]))
    if unknown:
        raise ConfigError(f"{path}: [game] names: {', '.join(unknown)} is not a player colour of this table")
    return TableConfig(
        path=os.path.abspath(path) if os.path.exists(path) else path,
        name=table.get("name", "table"),
        data_dir=data_dir,
        store=table.get("store", "table.sqlite"),
        game_id=game["id"],
        setup=setup,
        player_names=names,
        settle=float(ref.get("settle_seconds", 0.5)),
        priority=priority,
        min_confidence=float(ref.get("camera_min_confidence", 0.5)),
        reconciler=reconciler,
        sensor_board=sensor_board,
        camera=camera,
        card_reader=card_reader,
        gpio=gpio,
        web=web,
        pin_hash=pin_hash,
        mqtt=mqtt,
        raw=dict(doc),
    )


def _mqtt_settings(path: str, m: Mapping[str, Any] | None, table_name: str, rel: Any) -> MqttSettings | None:
    """``[mqtt]``: off when absent or ``enabled = false``; topics checked here, not at the broker."""
    if m is None or not m.get("enabled", True):
        return None
    if "host" not in m:
        raise ConfigError(f"{path}: [mqtt] host: the broker's address is required (or enabled = false)")
    if "password" in m and "username" not in m:
        raise ConfigError(f"{path}: [mqtt] password: a password needs a username")
    if "ca_file" in m and not m.get("tls", False):
        raise ConfigError(f"{path}: [mqtt] ca_file: only used with tls = true")
    try:
        prefix = check_topic(m.get("topic_prefix", "tableref"), what="topic_prefix", allow_slash=True)
        table_id = check_topic(m["table_id"], what="table_id", allow_slash=False) if "table_id" in m \
            else table_id_from_name(table_name)
        discovery_prefix = check_topic(m.get("discovery_prefix", "homeassistant"), what="discovery_prefix", allow_slash=True)
    except MqttError as exc:
        raise ConfigError(f"{path}: [mqtt] {exc}") from None
    ca_file = rel(m.get("ca_file"))
    if ca_file is not None and not os.path.exists(ca_file):
        raise ConfigError(f"{path}: [mqtt] ca_file: file {ca_file} does not exist")
    return MqttSettings(host=m["host"], port=m.get("port", 1883), topic_prefix=prefix, table_id=table_id,
                        username=m.get("username"), password=m.get("password"), tls=m.get("tls", False), ca_file=ca_file,
                        discovery=m.get("discovery", True), discovery_prefix=discovery_prefix, dashboard_url=m.get("dashboard_url"))


def _check_game(path: str, game_id: str, setup: dict[str, Any]) -> None:
    """The game exists and accepts this set-up (schema, then the engine's own checks)."""
    from scorer.core.game import SetupOptions
    from scorer.core.registry import UnknownGame, get_game

    try:
        game = get_game(game_id)
    except UnknownGame as exc:
        raise ConfigError(f"{path}: [game] id: {exc}") from None
    validator = jsonschema.Draft202012Validator(dict(game.setup_schema()))
    errors = list(validator.iter_errors(setup))
    if errors:
        e = errors[0]
        where = ".".join(str(p) for p in e.absolute_path) or "players"
        raise ConfigError(f"{path}: [game] {where}: {e.message}")
    try:
        game.setup(SetupOptions.from_json(setup))
    except TableRefError as exc:
        raise ConfigError(f"{path}: [game]: {exc}") from None
