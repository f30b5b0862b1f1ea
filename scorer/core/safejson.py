"""Every JSON (and TOML) document that comes from outside goes through here: one loader with a
nesting limit, so a hostile or broken file ends in a one-line error, never a ``RecursionError``.

Python's parsers recurse once per nesting level: 100,000 ``[`` end in a ``RecursionError``
traceback, and a document just under the interpreter's limit still breaks whatever walks it next
(schema validation, ``SetupOptions``). The loader parses, turns a ``RecursionError`` into an
``InvalidRecord``, then measures the depth without recursion and refuses anything deeper than
``MAX_DEPTH`` -- far beyond any record, board, layout or configuration the project reads (they
nest at most about eight levels).
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

from scorer.core.types import InvalidRecord

MAX_DEPTH = 64


class TooDeep(InvalidRecord):
    """A document nested deeper than the limit."""


def depth_error(what: str, limit: int = MAX_DEPTH, where: str = "") -> TooDeep:
    if len(where) > 48:
        where = where[:48] + "..."
    at = f" (at {where})" if where else ""
    return TooDeep(f"nested more than {limit} levels deep{at}; refused", where=what)


def check_depth(doc: Any, what: str = "JSON document", limit: int = MAX_DEPTH) -> Any:
    """``doc`` itself if no list or object in it is nested deeper than ``limit``; else ``TooDeep``
    naming the first path that is. Iterative, so it never recurses however deep the input."""
    stack: list[tuple[Any, int, str]] = [(doc, 1, "$")]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, dict):
            children = [(v, f"{path}.{k}") for k, v in node.items()]
        elif isinstance(node, (list, tuple)):
            children = [(v, f"{path}[{i}]") for i, v in enumerate(node)]
        else:
            continue
        if depth > limit:
            raise depth_error(what, limit, path)
        stack.extend((v, depth + 1, p) for v, p in children if isinstance(v, (dict, list, tuple)))
    return doc


def loads(text: str | bytes, what: str = "JSON document", limit: int = MAX_DEPTH) -> Any:
    """Parse JSON text; malformed JSON (with line and column) or too deep a nesting becomes
    ``InvalidRecord`` whose message starts with ``what``."""
    try:
        doc = json.loads(text)
    except RecursionError:
        raise depth_error(what, limit) from None
    except UnicodeDecodeError as exc:
        raise InvalidRecord(f"not UTF-8 text ({exc.reason})", where=what) from None
    except json.JSONDecodeError as exc:
        raise InvalidRecord(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", where=what) from None
    return check_depth(doc, what, limit)


def load_file(path: str, what: str = "file", limit: int = MAX_DEPTH) -> Any:
    """Read and parse a JSON file; a missing file, a directory, non-UTF-8 text, malformed JSON or
    too deep a nesting becomes ``InvalidRecord`` naming ``what`` and the path."""
    where = f"{what} {path}"
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise InvalidRecord("file not found", where=where) from None
    except IsADirectoryError:
        raise InvalidRecord("is a directory, not a file", where=where) from None
    except UnicodeDecodeError as exc:
        raise InvalidRecord(f"not UTF-8 text ({exc.reason})", where=where) from None
    except OSError as exc:
        raise InvalidRecord(f"cannot read ({exc.strerror or exc})", where=where) from None
    return loads(text, where, limit)


def loads_toml(text: str, what: str = "TOML document", limit: int = MAX_DEPTH) -> dict[str, Any]:
    """Parse TOML with the same nesting limit (``tomllib`` recurses on nested arrays and inline
    tables); ``tomllib.TOMLDecodeError`` is left to the caller, which knows how to word it."""
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise depth_error(what, limit) from None
    return check_depth(doc, what, limit)
