"""The shape of a table's TOML file as a JSON Schema: which sections and keys exist, their types and
ranges (``tableref.config`` checks a file against it first, then against what the parts need).
Keep it in step with ``examples/table.toml`` and docs/runtime.md, which describe each key.
"""

from __future__ import annotations

from typing import Any

_NUM = {"type": "number", "minimum": 0}
_PIN = {"oneOf": [{"type": "integer", "minimum": 0, "maximum": 27}, {"const": False}],
        "description": "a BCM pin number, or false when the part is not fitted"}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["game"],
    "properties": {
        "table": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "data_dir": {"type": "string", "minLength": 1},
                "store": {"type": "string", "minLength": 1},
            },
        },
        "game": {
            "type": "object",
            "additionalProperties": False,
            "required": ["id", "players"],
            "properties": {
                "id": {"type": "string"},
                "board": {"type": "string"},
                "players": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                "variants": {"type": "array", "items": {"type": "string"}},
                "names": {"type": "object", "additionalProperties": {"type": "string"}},
                "options": {"type": "object"},
            },
        },
        "referee": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "settle_seconds": _NUM,
                "complete_grace_seconds": _NUM,
                "quiet_timeout_seconds": _NUM,
                "max_busy_seconds": _NUM,
                "signal_ttl_seconds": _NUM,
                "signal_grace_seconds": _NUM,
                "close_on_complete": {"type": "boolean"},
                "camera_min_confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "priority": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            },
        },
        "devices": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "sensor_board": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "enabled": {"type": "boolean"},
                        "port": {"type": "string", "description": "serial device, or 'emulated'"},
                        "baudrate": {"type": "integer", "minimum": 1200},
                        "tags": {"type": "string", "description": "tag registry file (uid -> piece)"},
                        "antennas": {"type": "string", "description": "antenna map file (antenna -> space)"},
                    },
                },
                "camera": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "enabled": {"type": "boolean"},
                        "source": {"type": "string", "description": "picamera2, usb:N, synthetic, or a folder"},
                        "layout": {"type": "string"},
                        "mode": {"enum": ["colour", "marker"], "description": "colour: the table model; marker: piece tags"},
                        "model": {"type": "string", "minLength": 1,
                                  "description": "table model (.npz from the dashboard's camera enrolment), relative to the data dir"},
                        "tags": {"type": "string", "minLength": 1, "description": "marker mode: tag map JSON (default: the demo set)"},
                        "fps": {"type": "number", "exclusiveMinimum": 0, "maximum": 30},
                        "width": {"type": "integer", "minimum": 160},
                        "height": {"type": "integer", "minimum": 120},
                        "detail_width": {"type": "integer", "minimum": 160,
                                         "description": "a still of the same view this wide beside the watched frame "
                                                        "(the Pi camera's main stream), read where the watched frame has "
                                                        "too few pixels (values printed on counters); with detail_height"},
                        "detail_height": {"type": "integer", "minimum": 120},
                    },
                    "dependentRequired": {"detail_width": ["detail_height"], "detail_height": ["detail_width"]},
                },
                "card_reader": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "enabled": {"type": "boolean"},
                        "port": {"type": "string"},
                        "kind": {"type": "string"},
                        "cards": {"type": "string", "description": "card registry file (uid -> card colour)"},
                    },
                },
            },
        },
        "gpio": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enabled": {"type": "boolean"},
                "pin_factory": {"enum": ["mock", "lgpio", "rpigpio", "pigpio", "default"]},
                "turn_done": _PIN,
                "undo": _PIN,
                "confirm": _PIN,
                "alert_led": _PIN,
                "buzzer": _PIN,
                "status_led": _PIN,
            },
        },
        "web": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enabled": {"type": "boolean"},
                "host": {"type": "string"},
                "port": {"type": "integer", "minimum": 0, "maximum": 65535},
                "threads": {"type": "integer", "minimum": 2},
                "mdns": {"enum": [True, False, "auto"],
                         "description": "announce the dashboard over mDNS/DNS-SD (auto: when it listens beyond loopback)"},
                "mdns_host": {"type": "string", "description": "the .local host name tablets open (default tableref)"},
            },
        },
        "admin": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"pin_hash": {"type": "string"}},
        },
        "mqtt": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enabled": {"type": "boolean"},
                "host": {"type": "string", "minLength": 1},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                "topic_prefix": {"type": "string"},
                "table_id": {"type": "string"},
                "username": {"type": "string", "minLength": 1},
                "password": {"type": "string"},
                "tls": {"type": "boolean"},
                "ca_file": {"type": "string", "minLength": 1, "description": "CA certificate(s) for tls (default: the system's)"},
                "discovery": {"type": "boolean", "description": "announce the table to Home Assistant (default true)"},
                "discovery_prefix": {"type": "string"},
                "dashboard_url": {"type": "string", "pattern": "^https?://", "description": "the dashboard's address for the venue"},
            },
        },
    },
}
