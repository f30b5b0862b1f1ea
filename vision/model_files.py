"""Reading a learned model's folder (``model.json`` beside its ONNX files): one way for every model, so a
missing, unreadable or foreign file always gives the same clear error naming it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_model_json(path: Path, fmt: str, what: str, error: type[Exception]) -> tuple[Path, dict[str, Any]]:
    """``path``: a model folder or its ``model.json``. Returns (the json's path, its contents); raises
    ``error`` ("no <what> model at ...", "cannot read ...", "... is not a <what> model") otherwise."""
    meta_path = path / "model.json" if path.is_dir() or not path.suffix else path
    try:
        meta = json.loads(meta_path.read_text("utf-8"))
    except FileNotFoundError:
        raise error(f"no {what} model at {meta_path}") from None
    except (OSError, ValueError) as exc:
        raise error(f"cannot read {what} model {meta_path}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        raise error(f"{meta_path} is not a {what} model ({fmt})")
    return meta_path, meta
