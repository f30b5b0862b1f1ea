"""``tableref config check TABLE.toml`` and ``tableref config hash-pin``."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys

from tableref.config import ConfigError, hash_pin, load_config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="check a table configuration or make an admin PIN hash",
                       description="Check a table's TOML configuration (exit 2 naming the file and key on a problem), "
                                   "or print the hash to put into [admin] pin_hash.")
    inner = p.add_subparsers(dest="config_command", metavar="ACTION")
    c = inner.add_parser("check", help="validate TABLE.toml and print what it sets up")
    c.add_argument("config", metavar="TABLE.toml")
    c.set_defaults(func=cmd_check)
    h = inner.add_parser("hash-pin", help="print the [admin] pin_hash for a PIN (asked for, or read from stdin)")
    h.add_argument("--stdin", action="store_true", help="read the PIN from the first line of standard input")
    h.set_defaults(func=cmd_hash_pin)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def cmd_check(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    summary = {
        "table": cfg.name,
        "store": cfg.store_path,
        "game": cfg.game_id,
        "setup": cfg.setup,
        "devices": {
            "sensor_board": cfg.sensor_board.port if cfg.sensor_board.enabled else None,
            "camera": cfg.camera.source if cfg.camera.enabled else None,
            "camera_model": None if not cfg.camera.enabled or cfg.camera.mode != "colour" else
            (cfg.camera_model_path if os.path.exists(cfg.camera_model_path) else
             f"none yet (the dashboard's camera enrolment saves {cfg.camera_model_path})"),
            "card_reader": cfg.card_reader.port if cfg.card_reader.enabled else None,
            "gpio": {"pin_factory": cfg.gpio.pin_factory or "default"} if cfg.gpio.enabled else None,
        },
        "web": f"{cfg.web.host}:{cfg.web.port}" if cfg.web.enabled else None,
        "admin_pin": "set" if cfg.pin_hash else "not set (the dashboard asks for one)",
        "mqtt": None if cfg.mqtt is None else {"broker": cfg.mqtt.broker, "topics": f"{cfg.mqtt.base}/{{events,state,status,info}}",
                                               "tls": cfg.mqtt.tls, "username": cfg.mqtt.username,
                                               "home_assistant": cfg.mqtt.discovery_prefix if cfg.mqtt.discovery else None},
    }
    print(json.dumps(summary, ensure_ascii=False, indent=2))
    return 0


def cmd_hash_pin(args: argparse.Namespace) -> int:
    if args.stdin:
        pin = sys.stdin.readline().strip()
    else:
        pin = getpass.getpass("admin PIN: ")
        if getpass.getpass("again: ") != pin:
            raise ConfigError("the two PINs differ")
    if not pin.isdigit() or not 4 <= len(pin) <= 12:
        raise ConfigError("the PIN must be 4 to 12 digits (the dashboard's keypad takes digits)")
    print(hash_pin(pin))
    return 0
