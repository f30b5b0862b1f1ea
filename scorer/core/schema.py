"""Validate JSON documents against the project's JSON Schemas with one-line, field-naming errors."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

import jsonschema

from scorer.core import safejson
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
    """Read a JSON file; a missing file, bad JSON (with line/column) or a document nested too deep
    becomes ``InvalidRecord`` (``scorer.core.safejson``: one loader for every outside document)."""
    return safejson.load_file(path, what)
