"""Validate JSON documents against the project's JSON Schemas with one-line, field-naming errors."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

import jsonschema

from scorer.core.types import InvalidRecord


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    """A schema shipped in ``scorer/schemas/<name>.schema.json``."""
    text = resources.files("scorer.schemas").joinpath(f"{name}.schema.json").read_text("utf-8")
    return json.loads(text)


def field_path(path: Any) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def validate(document: Any, schema: Mapping[str, Any], what: str) -> None:
    """Raise ``InvalidRecord`` naming the first bad field (the deepest, most specific error)."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: (-len(e.absolute_path), str(e.absolute_path)))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        raise InvalidRecord(f"{best.message}", where=f"{what} {field_path(best.absolute_path)}")


def read_json(path: str, what: str) -> Any:
    """Read a JSON file; a missing file or bad JSON becomes ``InvalidRecord`` with line/column."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise InvalidRecord("file not found", where=f"{what} {path}") from None
    except IsADirectoryError:
        raise InvalidRecord("is a directory, not a file", where=f"{what} {path}") from None
    except UnicodeDecodeError as exc:
        raise InvalidRecord(f"not UTF-8 text ({exc.reason})", where=f"{what} {path}") from None
    except json.JSONDecodeError as exc:
        raise InvalidRecord(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", where=f"{what} {path}") from None
