"""The learned die reader: a small CNN that tells a die's top value from a crop of the reader's own
view around the die, run by OpenCV's ``dnn`` module (no torch at runtime).

``die_crop`` cuts the crop the network sees: the tray rectified on the plane of the die's top face
(``vision.dice_view``), centred on the die's blob (``vision.dice_tray``), ``CROP_SIDES`` die sides
wide at ``CROP_PX`` pixels, turned so that the die's walls lean towards the crop's bottom (towards
the point under the camera); channels: the view's colour and its difference from the empty tray
(the table's enrolment seen the same way, its light matched at the crop's border), standardised
per crop. It does not depend on where the top face is exactly (the classical face fit's weak point).

The model is a folder (``vision/models/dice_classifier/``): ``model.json`` (format, crop, classes,
the probability a value needs, how it was trained) and the ONNX file. Training:
``tools/train_dice_classifier.py``. A missing or damaged model raises ``DiceClassifierError``
naming the file; ``committed_dice_classifier()`` logs a warning and gives None (the reader then
reads as before it had a model).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import cv2
import numpy as np

from vision.dice_view import Pose, reference_seen
from vision.errors import CalibrationError
from vision.model_files import read_model_json, read_onnx

log = logging.getLogger(__name__)

FORMAT = "tableref-dice-classifier/1"
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "dice_classifier"
CROP_PX = 48  # the network's input, pixels a side
CROP_SIDES = 2.4  # ... spanning this many die sides: the top face, its walls and shadow, whatever the blob's centre
CHANNELS = 4  # B, G, R of the view; its grey difference from the empty tray
OVERSAMPLE = 2  # the view is cut at this many times the crop's scale, then averaged down (no aliasing)
CLASSES = (0, 1, 2, 3, 4, 5, 6)  # 0: no die to read (a hand's finger, a covered die, print)


class DiceClassifierError(CalibrationError):
    """A dice classifier model that is missing or damaged."""


def die_crop(frame: np.ndarray, pose: Pose, centre_mm: np.ndarray, side_mm: float, height_mm: float,
             reference: np.ndarray, reference_px_per_mm: float, origin: tuple[int, int] = (0, 0),
             turn_deg: float = 0.0, scale: float = 1.0) -> np.ndarray:
    """The network's input for the die around ``centre_mm`` (board mm, on the top face's plane):
    (CHANNELS, CROP_PX, CROP_PX) float32. ``turn_deg``, ``scale``: a jitter (training only)."""
    c = np.asarray(centre_mm, float)
    n = CROP_PX * OVERSAMPLE
    s = n / (CROP_SIDES * side_mm * scale)  # crop px per mm
    nadir = np.asarray(pose.centre[:2], float)
    u = nadir - c
    d = float(np.hypot(*u))
    u = u / d if d > 1e-6 else np.array([0.0, 1.0])
    t = math.radians(turn_deg)
    u = np.array([math.cos(t) * u[0] - math.sin(t) * u[1], math.sin(t) * u[0] + math.cos(t) * u[1]])
    e1, e2 = np.array([u[1], -u[0]]), u  # crop x, crop y (walls lean down the crop)
    half = (n - 1) / 2
    A = np.array([[e1[0] / s, e2[0] / s, c[0] - (e1[0] + e2[0]) * half / s],
                  [e1[1] / s, e2[1] / s, c[1] - (e1[1] + e2[1]) * half / s], [0, 0, 1.0]])  # crop px -> mm
    shift = np.array([[1, 0, -origin[0]], [0, 1, -origin[1]], [0, 0, 1.0]])
    to_frame = shift @ pose.plane(height_mm) @ A
    view = cv2.warpPerspective(frame, to_frame, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    # the empty tray seen the same way (enlarged about the nadir)
    ref = reference_seen(reference, reference_px_per_mm, nadir, pose.height, height_mm, A, (n, n))
    view = cv2.resize(view, (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA).astype(np.float32)
    ref = cv2.resize(ref, (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA).astype(np.float32)
    return normalise(view, ref)


def normalise(view: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """(CHANNELS, px, px): the view's colour and its grey difference from the empty tray (its
    light matched on the crop's border, where the die rarely is), standardised by the view's spread."""
    border = np.ones(view.shape[:2], bool)
    b = max(2, view.shape[0] // 10)
    border[b:-b, b:-b] = False
    gain = (np.median(view[border], axis=0) + 4) / (np.median(ref[border], axis=0) + 4)
    expected = np.minimum(ref * gain, 255.0)
    grey = view.mean(axis=2)
    m, sd = float(view.mean()), float(view.std()) + 4.0
    out = np.empty((CHANNELS, *view.shape[:2]), np.float32)
    out[:3] = ((view - m) / sd).transpose(2, 0, 1)
    out[3] = (grey - expected.mean(axis=2)) / sd
    return out


@dataclass(frozen=True)
class DieGuess:
    """What the network says of one die: the value (None: none sure enough), its probability, and
    every class's (index 0: no die to read)."""

    value: int | None
    probability: float
    probabilities: tuple[float, ...]


class DiceClassifier:
    """The committed network and the probability a value needs (``min_probability``)."""

    def __init__(self, meta: Mapping[str, Any], net: "cv2.dnn.Net", source: str):
        self.meta = dict(meta)
        self.net = net
        self.source = source
        self.min_probability = float(meta.get("min_probability", 0.99))
        self.veto_probability = float(meta.get("veto_probability", 1.01))  # > 1: never vetoes
        self.min_face_px = float(meta.get("min_face_px", 12.0))  # no value for a face narrower (frame px)
        self.small_face_px = float(meta.get("small_face_px", 0.0))  # a face narrower than this ...
        self.min_probability_small = float(meta.get("min_probability_small", self.min_probability))  # ... needs this

    @classmethod
    def load(cls, path: str | Path | None = None) -> "DiceClassifier":
        """Read ``path`` (a model folder or its ``model.json``; None: the committed one)."""
        path = DEFAULT_MODEL if path is None else Path(path)
        meta_path, meta = read_model_json(path, FORMAT, "dice classifier", DiceClassifierError)
        try:
            crop = meta["crop"]
            if int(crop["px"]) != CROP_PX or float(crop["sides"]) != CROP_SIDES or int(crop["channels"]) != CHANNELS:
                raise DiceClassifierError(f"dice classifier model {meta_path} was trained on other crops ({crop}): "
                                          f"retrain it (tools/train_dice_classifier.py)")
            if [int(c) for c in meta["classes"]] != list(CLASSES):
                raise DiceClassifierError(f"dice classifier model {meta_path} has other classes: {meta['classes']}")
            onnx = meta_path.parent / str(meta["onnx"])
        except (KeyError, TypeError, ValueError) as exc:
            raise DiceClassifierError(f"dice classifier model {meta_path} is incomplete: {exc!r}") from None
        model = cls(meta, read_onnx(onnx, "dice classifier", DiceClassifierError), str(onnx))
        try:  # a damaged network shows here rather than in the middle of a game
            out = model.logits(np.zeros((CHANNELS, CROP_PX, CROP_PX), np.float32))
        except cv2.error as exc:
            raise DiceClassifierError(f"dice classifier network {onnx} does not run: "
                                      f"{str(exc).strip().splitlines()[-1]}") from None
        if out.shape != (len(CLASSES),) or not np.all(np.isfinite(out)):
            raise DiceClassifierError(f"dice classifier network {onnx} gives {out.shape} outputs, "
                                      f"needs {len(CLASSES)}")
        return model

    def logits(self, crop: np.ndarray) -> np.ndarray:
        self.net.setInput(np.ascontiguousarray(crop, np.float32)[None])
        return np.asarray(self.net.forward(), np.float32).reshape(-1)

    def guess(self, crop: np.ndarray, face_px: float = math.inf) -> DieGuess:
        """The network's value for a crop (``die_crop``) of a die whose face spans ``face_px``
        frame pixels: None unless its probability reaches ``min_probability`` (a face narrower
        than ``small_face_px``: ``min_probability_small``; narrower than ``min_face_px``: never)."""
        z = self.logits(crop).astype(np.float64)
        p = np.exp(z - z.max())
        p /= p.sum()
        k = int(np.argmax(p))
        need = self.min_probability_small if face_px < self.small_face_px else self.min_probability
        value = CLASSES[k] if CLASSES[k] != 0 and p[k] >= need and face_px >= self.min_face_px else None
        return DieGuess(value, float(p[k]), tuple(float(v) for v in p))


def combine(classical: int | None, confidence: float, guess: DieGuess, model: "DiceClassifier"
            ) -> tuple[int | None, float]:
    """One die's value from both readers: the pip fits' value unless the network is sure of
    another (``veto_probability``: then no value); else the network's when it is sure
    (``min_probability``). A die neither is sure of stays unread."""
    p = guess.probabilities
    k = int(np.argmax(p))
    if classical is not None:
        if k != classical and p[k] >= model.veto_probability:
            return None, 0.0
        return classical, confidence
    if guess.value is not None:
        return guess.value, guess.probability
    return None, confidence


_committed: list[DiceClassifier | None] = []


def committed_dice_classifier() -> DiceClassifier | None:
    """The committed model, loaded once per process; None (with a warning in the log) when it is
    missing or damaged: the dice reader then reads by its pip fits alone."""
    if not _committed:
        try:
            _committed.append(DiceClassifier.load(DEFAULT_MODEL))
        except DiceClassifierError as exc:
            log.warning("learned dice classifier not used, reading dice by their pip fits alone: %s", exc)
            _committed.append(None)
    return _committed[0]
