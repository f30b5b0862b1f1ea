"""Per-table colour calibration.

Two things make colour recognition work under a real lamp: the empty board's own appearance
(so anything that differs from it is foreground), and the colours of the pieces as this camera
sees them under this light. Both come from reference frames: the empty board (as at the start of
a game of China) and, optionally, a frame with known pieces on known spaces. Without the second,
the layout's nominal piece colours are mapped into the camera's colour space through the white
balance measured on the board itself. A frame is later compared with the reference after
correcting for the light (global white balance times a smooth brightness field), so a lamp
switched on or a cloud passing does not change the reading.

The default calibration (no reference frame) is the layout's printed artwork as the renderer
draws it: right for synthetic frames, and a starting point only for a real board.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Board
from vision.errors import CalibrationError
from vision.layout import Layout

PX_PER_MM = 1.0
SHADES = (1.0, 0.82, 0.66, 0.52)  # lit top face and walls turned away from the light
UNKNOWN = -1


@dataclass(frozen=True)
class ColourModel:
    """Prototype colours (8-bit Lab, as OpenCV scales it) and the class each belongs to.
    Classes are player colours and, for neutral pieces, ``neutral:<kind>``."""

    classes: tuple[str, ...]
    protos: np.ndarray  # (N, 3) float32
    proto_class: np.ndarray  # (N,) int

    def to_json(self) -> dict[str, object]:
        return {"classes": list(self.classes), "protos": np.round(self.protos, 2).tolist(),
                "proto_class": self.proto_class.tolist()}

    @classmethod
    def from_json(cls, d: Mapping[str, object]) -> "ColourModel":
        return cls(tuple(d["classes"]), np.asarray(d["protos"], np.float32), np.asarray(d["proto_class"], np.int32))  # type: ignore[arg-type]


def _lab(rgb: Sequence[float]) -> np.ndarray:
    px = np.clip(np.asarray(rgb[::-1], np.float32), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB).reshape(3).astype(np.float32)


def nominal_model(layout: Layout, wb: Sequence[float] = (1.0, 1.0, 1.0)) -> ColourModel:
    """Prototypes from the layout's nominal piece colours, multiplied by the white balance
    ``wb`` (R, G, B gains measured on the board) and by the shades of lit and unlit faces."""
    classes: list[str] = []
    protos: list[np.ndarray] = []
    owners: list[int] = []
    entries: list[tuple[str, Sequence[int]]] = [(p, rgb) for p, rgb in layout.players.items()]
    entries += [(f"neutral:{k}", spec.rgb or (30, 30, 30)) for k, spec in layout.pieces.items() if spec.neutral]
    for name, rgb in entries:
        ci = len(classes)
        classes.append(name)
        for s in SHADES:
            protos.append(_lab([rgb[i] * wb[i] * s for i in range(3)]))
            owners.append(ci)
    return ColourModel(tuple(classes), np.vstack(protos), np.asarray(owners, np.int32))


@dataclass(frozen=True)
class Calibration:
    layout_id: str
    px_per_mm: float
    reference: np.ndarray  # rectified empty board, BGR uint8
    model: ColourModel
    source: str = "default"
    notes: tuple[str, ...] = ()
    reference_lab: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reference_lab", cv2.cvtColor(self.reference, cv2.COLOR_BGR2LAB))

    def save(self, path: str | Path) -> None:
        meta = {"layout": self.layout_id, "px_per_mm": self.px_per_mm, "source": self.source,
                "notes": list(self.notes), "model": self.model.to_json()}
        ok, png = cv2.imencode(".png", self.reference)
        with open(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), reference=png)

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        try:
            with np.load(path) as z:
                meta = json.loads(bytes(z["meta"]).decode())
                ref = cv2.imdecode(z["reference"], cv2.IMREAD_COLOR)
        except (OSError, ValueError, KeyError) as exc:
            raise CalibrationError(f"cannot read calibration {path}: {exc}") from None
        if ref is None:
            raise CalibrationError(f"calibration {path} has no reference image")
        return cls(meta["layout"], float(meta["px_per_mm"]), ref, ColourModel.from_json(meta["model"]),
                   meta.get("source", "file"), tuple(meta.get("notes", ())))


def rectified_size(layout: Layout, px_per_mm: float) -> tuple[int, int]:
    return int(round(layout.size[0] * px_per_mm)), int(round(layout.size[1] * px_per_mm))


def rectify(frame: np.ndarray, homography: np.ndarray, layout: Layout, px_per_mm: float,
            flags: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The board as if seen from straight above, ``px_per_mm`` pixels per millimetre."""
    S = np.diag([px_per_mm, px_per_mm, 1.0])
    return cv2.warpPerspective(frame, S @ np.linalg.inv(homography), rectified_size(layout, px_per_mm), flags=flags,
                               borderMode=cv2.BORDER_REPLICATE)


def default_calibration(layout: Layout, px_per_mm: float = PX_PER_MM) -> Calibration:
    from vision.render_texture import board_texture

    tex = board_texture(layout)
    ref = cv2.resize(tex, rectified_size(layout, px_per_mm), interpolation=cv2.INTER_AREA)
    ref = cv2.GaussianBlur(ref, (0, 0), 0.6)
    return Calibration(layout.id, px_per_mm, ref, nominal_model(layout), "default",
                       ("synthetic board artwork; calibrate with a photo of the real board",))


def board_white_balance(reference: np.ndarray, layout: Layout) -> tuple[float, float, float]:
    """R, G, B gains that map the layout's nominal board colour to the camera's: measured on the
    plain board (the median over the board, which is mostly background)."""
    med = np.median(reference.reshape(-1, 3), axis=0)[::-1]  # RGB
    nominal = np.asarray(layout.background_rgb, float)
    return tuple(float(m / max(n, 1.0)) for m, n in zip(med, nominal))  # type: ignore[return-value]


def calibrate(layout: Layout, empty_rectified: np.ndarray, px_per_mm: float = PX_PER_MM,
              samples_rectified: np.ndarray | None = None, samples_board: Board | None = None) -> Calibration:
    """Build a table's calibration from a rectified frame of the empty board and, optionally, a
    rectified frame of the same board with known pieces (``samples_board``). Each sample space
    should hold pieces of one class only; its foreground pixels become that class's prototypes.
    """
    want = rectified_size(layout, px_per_mm)
    if (empty_rectified.shape[1], empty_rectified.shape[0]) != want:
        raise CalibrationError("reference frame does not match the layout size")
    ref = cv2.GaussianBlur(empty_rectified, (0, 0), 0.6)
    wb = board_white_balance(ref, layout)
    model = nominal_model(layout, wb)
    notes = [f"board white balance R,G,B = {wb[0]:.3f}, {wb[1]:.3f}, {wb[2]:.3f}"]
    if samples_rectified is not None and samples_board is not None:
        model, more = _learn_prototypes(layout, ref, samples_rectified, samples_board, px_per_mm, model)
        notes += more
    return Calibration(layout.id, px_per_mm, ref, model, "reference-frame", tuple(notes))


def _learn_prototypes(layout: Layout, ref: np.ndarray, sample: np.ndarray, board: Board, s: float,
                      fallback: ColourModel) -> tuple[ColourModel, list[str]]:
    ref_lab = cv2.cvtColor(ref, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab = cv2.cvtColor(cv2.GaussianBlur(sample, (0, 0), 0.6), cv2.COLOR_BGR2LAB).astype(np.float32)
    diff = np.sqrt(((lab - ref_lab) ** 2).sum(axis=2))
    per_class: dict[str, list[np.ndarray]] = {}
    for space in board.spaces():
        content = board.pieces(space)
        classes = {str(p.owner) if not layout.pieces[p.kind].neutral else f"neutral:{p.kind}" for p in content}
        if len(classes) != 1:
            continue
        sp = layout.space(space)
        m = np.zeros(diff.shape, np.uint8)
        cv2.fillPoly(m, [np.round(np.asarray(sp.polygon) * s * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        m = cv2.dilate(m, np.ones((int(10 * s) | 1, int(10 * s) | 1), np.uint8))
        sel = (m > 0) & (diff > 25)
        if sel.sum() >= 20:
            per_class.setdefault(classes.pop(), []).append(lab[sel])
    protos, owners, notes = [], [], []
    for ci, name in enumerate(fallback.classes):
        if name in per_class:
            px = np.vstack(per_class[name])
            # light and dark parts of the piece: a few quantiles of lightness
            order = np.argsort(px[:, 0])
            for q in (0.9, 0.65, 0.4, 0.15):
                sel = px[order[int(q * (len(order) - 1))]]
                lo, hi = int(max(0, (q - 0.1) * len(order))), int(min(len(order), (q + 0.1) * len(order)) + 1)
                protos.append(np.median(px[order[lo:hi]], axis=0))
                owners.append(ci)
            notes.append(f"{name}: learned from {len(px)} pixels")
        else:
            sel = fallback.proto_class == ci
            protos.extend(fallback.protos[sel])
            owners.extend([ci] * int(sel.sum()))
    return ColourModel(fallback.classes, np.vstack(protos).astype(np.float32), np.asarray(owners, np.int32)), notes
