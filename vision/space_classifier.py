"""The learned per-space classifier: a small CNN per space kind, run by OpenCV's ``dnn`` module.

What a space can hold comes from the layout (``holds``): a kind of which only one fits on the
space (China's house, fortress on a site) is one **single** choice among the combinations that
occur (empty, a house of each colour, the fortress, the fortress under a house); a kind of which
several fit (emissaries on a dragon space) is **counted** per owner. ``Vocabulary`` turns that
into the network's outputs and back into pieces.

The model is a folder (``vision/models/space_classifier/``, China's; another layout's own in
``vision/models/space_classifier-<layout id>/``): ``model.json`` (format, owners in
channel order, per space kind its ONNX file, crop and outputs, and how it was trained) and the
ONNX files. Training (torch) lives in ``tools/train_space_classifier``; reading needs only
OpenCV. A missing or damaged model raises ``ClassifierError`` naming the file.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.errors import CalibrationError
from vision.model_files import read_model_json, read_onnx
from vision.layout import Layout
from vision.space_crops import CropSpec, channels

log = logging.getLogger(__name__)

FORMAT = "tableref-space-classifier/1"
MODELS = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL = MODELS / "space_classifier"  # China's (china-a; china-b has the same pieces and space kinds)
SEVERAL_FIT = 3.0  # a piece kind whose footprint fits this many times in a space is counted there
STAND_IN = Piece("neutral", "tile")  # a head's one class for several printed kinds (``Head.stands_in``)
MAX_COUNT = 6  # most pieces of one owner counted on one space, unless the layout says (piece ``per_space``)


class ClassifierError(CalibrationError):
    """A space classifier model that is missing, damaged or made for other pieces."""


@dataclass(frozen=True)
class Head:
    """What the network of one space kind outputs. ``single``: one softmax over ``classes``
    (each a tuple of pieces). ``counts``: one softmax of 0..``max_count`` per piece in ``groups``.
    ``stands_in``: piece kinds that a single class names as one stand-in piece, ``STAND_IN`` (a printed
    tile, whichever it is: its face tells which, not the network; ``vision.scarab_network``)."""

    space_kind: str
    mode: str  # "single" | "counts"
    classes: tuple[tuple[Piece, ...], ...] = ()
    groups: tuple[Piece, ...] = ()
    max_count: int = MAX_COUNT
    stands_in: tuple[str, ...] = ()

    @property
    def outputs(self) -> int:
        return len(self.classes) if self.mode == "single" else len(self.groups) * (self.max_count + 1)

    def target(self, pieces: Sequence[Piece]) -> np.ndarray | None:
        """Training target of a space holding ``pieces``: the class index (single, shape (1,)) or
        a count per group (counts, shape (groups,)); None when the head cannot say it."""
        if self.mode == "single":
            key = tuple(sorted((STAND_IN if p.kind in self.stands_in else p for p in pieces), key=_piece_key))
            try:
                return np.array([self.classes.index(key)], np.int64)
            except ValueError:
                return None
        counts = np.zeros(len(self.groups), np.int64)
        for p in pieces:
            if p not in self.groups:
                return None
            counts[self.groups.index(p)] += 1
        return None if counts.max(initial=0) > self.max_count else counts

    def decode(self, logits: np.ndarray) -> tuple[tuple[tuple[Piece, int], ...], float]:
        """One space's outputs -> (pieces with counts, confidence)."""
        if self.mode == "single":
            p = _softmax(logits)
            k = int(np.argmax(p))
            counts: dict[Piece, int] = {}
            for piece in self.classes[k]:
                counts[piece] = counts.get(piece, 0) + 1
            return tuple(sorted(counts.items(), key=lambda kv: _piece_key(kv[0]))), float(p[k])
        p = _softmax(logits.reshape(len(self.groups), self.max_count + 1))
        n = p.argmax(axis=1)
        conf = float(np.prod(p[np.arange(len(n)), n]))
        pieces = tuple((g, int(c)) for g, c in zip(self.groups, n) if c > 0)
        return tuple(sorted(pieces, key=lambda kv: _piece_key(kv[0]))), conf

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"space_kind": self.space_kind, "mode": self.mode}
        if self.mode == "single":
            out["classes"] = [[_name(p) for p in c] for c in self.classes]
            if self.stands_in:
                out["stands_in"] = list(self.stands_in)
        else:
            out["groups"] = [_name(p) for p in self.groups]
            out["max_count"] = self.max_count
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, object]) -> "Head":
        if d["mode"] == "single":
            return cls(str(d["space_kind"]), "single", tuple(tuple(_piece(s) for s in c) for c in d["classes"]),  # type: ignore[union-attr]
                       stands_in=tuple(str(k) for k in d.get("stands_in", ())))  # type: ignore[union-attr]
        return cls(str(d["space_kind"]), "counts", groups=tuple(_piece(s) for s in d["groups"]),  # type: ignore[union-attr]
                   max_count=int(d["max_count"]))  # type: ignore[arg-type]


def _piece_key(p: Piece) -> tuple[int, str, str]:
    return (0 if str(p.owner) == "neutral" else 1, p.kind, str(p.owner))


def _name(p: Piece) -> str:
    return f"{p.owner}:{p.kind}"


def _piece(s: str) -> Piece:
    owner, kind = s.split(":", 1)
    return Piece(owner, kind)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def count_limit(layout: Layout, kinds: Sequence[str]) -> int:
    """Most pieces of one owner a counts head says on one space: the largest of the ``kinds``'
    layout ``per_space``, ``MAX_COUNT`` for a kind that does not say."""
    return max((layout.pieces[k].per_space or MAX_COUNT for k in kinds), default=MAX_COUNT)


def heads_for(layout: Layout) -> dict[str, Head]:
    """The outputs each space kind needs, from the layout's ``holds``, piece footprints and
    ``per_space`` (``count_limit``)."""
    players = list(layout.players)
    heads: dict[str, Head] = {}
    for sk, kinds in layout.holds.items():
        spaces = [s for s in layout.spaces if s.kind == sk]
        if not spaces:
            continue
        area = min(s.area for s in spaces)
        counted = [k for k in kinds if layout.pieces[k].area * SEVERAL_FIT <= area]
        single = [k for k in kinds if k not in counted]
        if counted and single:
            raise ClassifierError(f"space kind {sk!r} holds both single and counted pieces: not supported")
        if counted:
            groups = tuple(Piece("neutral", k) if layout.pieces[k].neutral else Piece(o, k)
                           for k in counted for o in (["neutral"] if layout.pieces[k].neutral else players))
            heads[sk] = Head(sk, "counts", groups=groups, max_count=count_limit(layout, counted))
            continue
        neutral = [Piece("neutral", k) for k in single if layout.pieces[k].neutral]
        own = [Piece(o, k) for k in single if not layout.pieces[k].neutral for o in players]
        classes: list[tuple[Piece, ...]] = [()]
        classes += [(p,) for p in own] + [(n,) for n in neutral]
        classes += [tuple(sorted((n, p), key=_piece_key)) for n in neutral for p in own]  # a piece stands on a neutral one
        heads[sk] = Head(sk, "single", tuple(classes))
    return heads


class SpaceClassifier:
    """The committed networks, one per space kind, and what their outputs mean."""

    def __init__(self, meta: Mapping[str, object], nets: Mapping[str, "cv2.dnn.Net"], heads: Mapping[str, Head],
                 crops: Mapping[str, CropSpec], source: str):
        self.meta = meta
        self.nets = dict(nets)
        self.heads = dict(heads)
        self.crops = dict(crops)
        self.owners: tuple[str, ...] = tuple(meta["owners"])  # type: ignore[arg-type]
        self.source = source

    @classmethod
    def load(cls, path: str | Path | None = None, layout: Layout | None = None) -> "SpaceClassifier":
        """Read ``path`` (a model folder, or its ``model.json``; None: the committed one for
        ``layout``, ``model_dir_for``); with ``layout``, check that the model was made for its
        pieces and space kinds."""
        path = model_dir_for(layout) if path is None else Path(path)
        meta_path, meta = read_model_json(path, FORMAT, "space classifier", ClassifierError)
        nets, heads, crops = {}, {}, {}
        try:
            for sk, d in meta["heads"].items():
                nets[sk] = read_onnx(meta_path.parent / d["onnx"], "space classifier", ClassifierError)
                heads[sk] = Head.from_json(d["head"])
                crops[sk] = CropSpec(float(d["crop"]["size_mm"]), int(d["crop"]["px"]))
            owners = tuple(meta["owners"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ClassifierError(f"space classifier model {meta_path} is incomplete: {exc!r}") from None
        model = cls(meta, nets, heads, crops, str(meta_path))
        if layout is not None:
            model.check(layout)
        for sk in heads:  # a damaged network shows here rather than in the middle of a game
            blob = np.zeros((1, channels(len(owners)), crops[sk].px, crops[sk].px), np.float32)
            out = model.forward(sk, blob)
            if out.shape != (1, heads[sk].outputs):
                raise ClassifierError(f"space classifier network for {sk!r} gives {out.shape[1:]} outputs, "
                                      f"its head needs {heads[sk].outputs}")
        return model

    def check(self, layout: Layout) -> None:
        want = heads_for(layout)
        for sk, head in want.items():
            if sk not in self.heads:
                raise ClassifierError(f"the space classifier has no network for {sk!r} spaces of layout {layout.id}")
            if self.heads[sk] != head:
                raise ClassifierError(f"the space classifier's outputs for {sk!r} spaces are not layout "
                                      f"{layout.id}'s pieces: retrain it for this layout")

    def forward(self, space_kind: str, blob: np.ndarray) -> np.ndarray:
        """The network's outputs (n, outputs) for the crops ``blob`` (n, channels, px, px), run one
        crop at a time: ``cv2.dnn`` keeps every layer's buffers at the largest batch it has seen
        (52 of China's sites at once held 23 MB), and the outputs are the same either way."""
        net = self.nets[space_kind]
        out = []
        for crop in np.ascontiguousarray(blob, np.float32):
            net.setInput(crop[None])
            out.append(np.asarray(net.forward(), np.float32).reshape(-1))
        return np.array(out, np.float32) if out else np.zeros((0, self.heads[space_kind].outputs), np.float32)


def own_model_dir(layout_id: str) -> Path:
    """Where a layout's own model lives (its game's pieces and space kinds)."""
    return MODELS / f"space_classifier-{layout_id}"


def model_dir_for(layout: Layout | None) -> Path:
    """The committed model folder of a layout: its own (``own_model_dir``) when there is one, else
    ``DEFAULT_MODEL``."""
    if layout is not None and (own_model_dir(layout.id) / "model.json").is_file():
        return own_model_dir(layout.id)
    return DEFAULT_MODEL


_committed: dict[str, SpaceClassifier | None] = {}


def committed_classifier(layout: Layout) -> SpaceClassifier | None:
    """The committed model for ``layout``, loaded once per process; None (with a warning in the
    log, once) when it is missing, damaged or made for other pieces: the reader then counts
    colour blobs as before it had a model."""
    if layout.id not in _committed:
        try:
            _committed[layout.id] = SpaceClassifier.load(model_dir_for(layout), layout)
        except ClassifierError as exc:
            log.warning("learned space classifier not used for layout %s, reading by colour counting: %s",
                        layout.id, exc)
            _committed[layout.id] = None
    return _committed[layout.id]
