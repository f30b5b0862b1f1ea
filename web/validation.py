"""Checking request bodies: JSON Schemas with answers that name the field, in both languages."""

from __future__ import annotations

from typing import Any, Mapping

import jsonschema

from scorer.core.schema import field_path
from scorer.core.types import Message
from web import i18n
from web.errors import BadInput

COLOURS = ["blue", "green", "violet", "red", "yellow"]

LOGIN = {"type": "object", "required": ["pin"], "additionalProperties": False,
         "properties": {"pin": {"type": "string", "maxLength": 64}}}
PIN_SETUP = {"type": "object", "required": ["pin", "confirm"], "additionalProperties": False,
             "properties": {"pin": {"type": "string", "maxLength": 64}, "confirm": {"type": "string", "maxLength": 64}}}
PIN_CHANGE = {"type": "object", "required": ["old", "new", "confirm"], "additionalProperties": False,
              "properties": {k: {"type": "string", "maxLength": 64} for k in ("old", "new", "confirm")}}
NEW_GAME = {
    "type": "object",
    "required": ["game", "players"],
    "additionalProperties": False,
    "properties": {
        "game": {"type": "string", "pattern": "^[a-z_]{1,32}$"},
        "board": {"type": "string", "maxLength": 48},
        "players": {"type": "array", "minItems": 1, "maxItems": 8, "items": {"type": "string", "maxLength": 16}},
        "variants": {"type": "array", "maxItems": 16, "items": {"type": "string", "maxLength": 48}},
        "cards": {"type": "string", "maxLength": 16},  # the game's own choices (checked_setup)
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
        "confirm": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 48}},
        "neutral_colour": {"type": "string", "maxLength": 16},
    },
}
DECLARE = {"type": "object", "required": ["move"], "additionalProperties": False,
           "properties": {"move": {"type": "object"}}}
EMPTY = {"type": "object", "additionalProperties": False, "properties": {}}
# A capture is either the files themselves (China's page builds its board file) or what was placed
# on the photo ("capture"), from which the game's board kit builds them (docs/boards.md).
CAPTURE = {"type": "object", "additionalProperties": False,
           "anyOf": [{"required": ["board"]}, {"required": ["capture"]}, {"required": ["layout"]}],
           "properties": {"game": {"type": "string", "pattern": "^[a-z_]{1,32}$"},
                          "board": {"type": ["object", "null"]}, "layout": {"type": ["object", "null"]},
                          "capture": {"type": "object"}, "overwrite": {"type": "boolean"}}}
ENROL = {
    "type": "object",
    "required": ["uid", "item"],
    "additionalProperties": False,
    "properties": {
        "uid": {"type": "string", "pattern": "^[0-9A-Fa-f:]{4,40}$"},
        "item": {  # as hardware.tag_registry stores it: a piece, or a card
            "oneOf": [
                {"type": "object", "required": ["owner", "kind"], "additionalProperties": False,
                 "properties": {"owner": {"enum": COLOURS + ["neutral"]},
                                "kind": {"type": "string", "pattern": "^[a-z_]{1,24}$"}}},
                {"type": "object", "required": ["card"], "additionalProperties": False,
                 "properties": {"card": {"type": "string", "pattern": "^[a-z_]{1,24}$"}}},
            ]
        },
    },
}
CAMERA_ENROL = {"type": "object", "required": ["step"], "additionalProperties": False,
                "properties": {"step": {"enum": ["empty", "pieces", "save", "cancel"]}}}
def settings_schema() -> dict[str, Any]:
    """The settings body; the language choices are the catalogues' languages at the time of the request."""
    return {"type": "object", "additionalProperties": False, "minProperties": 1,
            "properties": {"table_name": {"type": "string", "maxLength": 40},
                           "default_language": {"enum": ["auto", *i18n.LANGUAGES]}}}


def check(body: Any, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The body if it fits the schema; else ``BadInput`` naming the first bad field."""
    if not isinstance(body, dict):
        raise BadInput(Message.t('web.validation.send_a_json_object'))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(body), key=lambda e: (-len(e.absolute_path), str(e.absolute_path)))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        where = field_path(best.absolute_path)
        raise BadInput(Message.t('web.validation.text', where=where, message=best.message),
                       field=".".join(str(p) for p in best.absolute_path) or None)
    return body
