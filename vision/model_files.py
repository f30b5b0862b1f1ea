"""Reading a learned model's folder (``model.json`` beside its ONNX files): one way for every model, so a
missing, unreadable or foreign file always gives the same clear error naming it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2


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


def read_onnx(onnx: Path, what: str, error: type[Exception]) -> "cv2.dnn.Net":
    """The network in ``onnx``, run by OpenCV's classic ``dnn`` engine (it runs these small networks
    ~1.5x faster than the new one here; OpenCV 4.x has one engine); raises ``error`` ("<what> model file
    missing: ...", "cannot load <what> network ...: <OpenCV's last line>") otherwise."""
    if not onnx.is_file():
        raise error(f"{what} model file missing: {onnx}")
    try:
        engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
        return cv2.dnn.readNetFromONNX(str(onnx)) if engine is None else cv2.dnn.readNetFromONNX(str(onnx), engine)
    except cv2.error as exc:
        raise error(f"cannot load {what} network {onnx}: {str(exc).strip().splitlines()[-1]}") from None
