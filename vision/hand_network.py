"""A learned outline of the hand, as a veto on the hand test's: board the network sees no hand near is no hand.

The hand test (``vision.occlusion``) takes a fifth to a third more board than the hand covers (shadows, a
piece's blur, print lost to glare), and those pixels are the false occlusion flags, the largest loss on every
photoreal set (docs/vision.md, "The hand's true outline, measured"). A small U-Net, trained on the true outlines
of the photoreal tuning sets and of the project's own renders (``tools/train_hand_segmentation.py``), outlines the
hand from the light-corrected board and the table's empty board; the reader keeps of its own hand the parts the
network sees a hand in, trimmed to ``keep_mm`` of the network's hand but for what reaches the board's edge (an arm):
``vetoed``. Of the spaces the kept hand touches, those on which the network's output nowhere exceeds the model's
``space_threshold`` (0.02, far under its hand threshold) and which no kept arm touches are read again
(``unseen_spaces``): the hand test's margin round a hand, on which no hand lies. The network never adds a hand: a
hand the hand test does not find stays unfound, and where the test finds none the network is not run.

The model is a folder (``vision/models/hand_outline/``): ``model.json`` (format, scale, threshold, the veto's
distances, how it was trained) and ``hand.onnx``, one for every layout (its inputs are the board and the empty board, no
layout's artwork). Reading needs only OpenCV. A missing or damaged model raises ``HandNetworkError`` naming the
file; ``committed_hand_network`` then warns once and the reader keeps its own hand whole, as before the network.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

from vision.errors import CalibrationError
from vision.model_files import read_model_json, read_onnx
from vision.occlusion import border_band

log = logging.getLogger(__name__)

FORMAT = "tableref-hand-outline/1"
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "hand_outline"
ALIGN = 8  # the network halves its input three times: sides a multiple of this
CONTEXT_MM = 64.0  # the board round the reader's hand the network sees (its view reaches ~40 mm each way)


class HandNetworkError(CalibrationError):
    """A hand outline model that is missing or damaged."""


def network_input(board: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Board and empty board (HxWx3 uint8 BGR each, same scale) -> 7xHxW float32: both in 0..1 and their
    lightness difference. Training (``tools/train_hand_segmentation``) and reading share this."""
    f = board.astype(np.float32) / 255.0
    r = reference.astype(np.float32) / 255.0
    return np.concatenate([f, r, f.mean(-1, keepdims=True) - r.mean(-1, keepdims=True)], -1).transpose(2, 0, 1)


def padded(x: np.ndarray) -> np.ndarray:
    """CxHxW padded (reflecting) at the bottom and right to sides a multiple of ``ALIGN``."""
    _, h, w = x.shape
    ph, pw = -h % ALIGN, -w % ALIGN
    if not (ph or pw):
        return x
    return np.pad(x, ((0, 0), (0, ph), (0, pw)), mode="reflect" if min(h, w) > max(ph, pw) else "edge")


def at_scale(image: np.ndarray, px_per_mm: float, mm_per_px: float) -> np.ndarray:
    """``image`` (board px at ``px_per_mm``) brought to ``mm_per_px`` by area averaging."""
    h, w = image.shape[:2]
    size = (max(1, int(round(w / px_per_mm / mm_per_px))), max(1, int(round(h / px_per_mm / mm_per_px))))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def vetoed(hand: np.ndarray, seen: np.ndarray, px_per_mm: float, support_mm2: float, keep_mm: float | None,
           join_mm: float = 0.0, edge_mm: float | None = None) -> np.ndarray:
    """Of ``hand`` (bool: the hand test's) the parts holding at least ``support_mm2`` of ``seen`` (bool: the network's
    hand), parts less than ``join_mm`` apart counted as one (a fingertip the hand test found apart from its palm);
    with ``keep_mm`` only what of them lies that close to ``seen``, but with ``edge_mm`` what trimming would take
    that reaches within ``edge_mm`` of the board's edge is kept (an arm coming in, in a sleeve the network does not
    take for a hand). Both at ``px_per_mm``. Pure: the reader (``HandNetwork.outline``) and the training tool's
    comparison share it."""
    near, arm = vetoed_parts(hand, seen, px_per_mm, support_mm2, keep_mm, join_mm, edge_mm)
    return near | arm


def vetoed_parts(hand: np.ndarray, seen: np.ndarray, px_per_mm: float, support_mm2: float, keep_mm: float | None,
                 join_mm: float = 0.0, edge_mm: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``vetoed``'s hand in two parts: what lies near the network's hand, and the arms kept only for reaching the
    board's edge (empty without ``keep_mm`` or ``edge_mm``)."""
    j = int(round(join_mm * px_per_mm / 2))
    joined = hand.astype(np.uint8)
    if j > 0:
        joined = cv2.dilate(joined, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * j + 1,) * 2))
    n, parts = cv2.connectedComponents(joined, connectivity=8)
    support = np.bincount(parts[seen & hand], minlength=n) >= support_mm2 * px_per_mm ** 2
    support[0] = False
    kept = support[parts] & hand
    no_arm = np.zeros_like(kept)
    if keep_mm is None:
        return kept, no_arm
    # within keep_mm of the network's hand: a distance transform, as a dilation by a 40 mm disc costs ~15 ms
    near = cv2.distanceTransform((~seen).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE) <= keep_mm * px_per_mm
    far = kept & ~near
    if edge_mm is None or not far.any():
        return kept & near, no_arm
    band = border_band(hand.shape, max(1, int(round(edge_mm * px_per_mm))))
    m, pieces = cv2.connectedComponents(far.astype(np.uint8), connectivity=8)
    arm = np.zeros(m, bool)
    arm[np.unique(pieces[band & far])] = True
    arm[0] = False
    return kept & near, arm[pieces]


def unseen_spaces(hit: Iterable[int], space_masks: Sequence[tuple[tuple[int, int, int, int], np.ndarray]],
                  probability: np.ndarray, arm: np.ndarray, threshold: float) -> frozenset[int]:
    """Of the spaces ``hit`` (indices into ``space_masks``: (box, mask) per space, board px) those on whose outline
    the network's ``probability`` (board px) nowhere exceeds ``threshold`` and which no kept arm (``arm``, bool)
    touches: no hand lies on them, only the hand test's margin round one. Pure, for the reader and its tests."""
    out = set()
    for i in hit:
        (x0, y0, x1, y1), m = space_masks[i]
        inside = m > 0
        if not (arm[y0:y1, x0:x1] & inside).any() and not (probability[y0:y1, x0:x1][inside] > threshold).any():
            out.add(i)
    return frozenset(out)


@dataclass(frozen=True)
class HandOutline:
    """The hand test's hand as the network leaves it: ``kept`` (bool, board px; what ``vetoed`` keeps), of it the
    ``arm`` kept only for reaching the board's edge, and the network's ``probability`` of a hand (board px, 0
    beyond where it looked)."""
    kept: np.ndarray
    arm: np.ndarray
    probability: np.ndarray


@dataclass
class HandNetwork:
    net: "cv2.dnn.Net"
    mm_per_px: float
    threshold: float  # network output (0..1) taken for a hand
    support_mm2: float  # a part of the hand test's hand is kept whole when the network sees this much hand in it
    keep_mm: float | None  # ... and of it only what lies this close to the network's hand (None: all of it)
    join_mm: float  # parts of the hand test's hand this close are one part
    edge_mm: float | None  # what trimming would take within this of the board's edge is kept (an arm); None: trimmed
    source: str
    # a space the kept hand touches stays occluded only where the network's output on it exceeds this (not on an arm
    # kept for the edge); None: every space it touches (unseen_spaces)
    space_threshold: float | None = None

    @classmethod
    def load(cls, path: Path = DEFAULT_MODEL) -> "HandNetwork":
        meta_path, meta = read_model_json(Path(path), FORMAT, "hand outline", HandNetworkError)
        try:
            mm, th, support = float(meta["mm_per_px"]), float(meta["threshold"]), float(meta["support_mm2"])
            keep = None if meta["keep_mm"] is None else float(meta["keep_mm"])
            join = float(meta["join_mm"])
            edge = None if meta.get("edge_mm") is None else float(meta["edge_mm"])
            space_th = None if meta.get("space_threshold") is None else float(meta["space_threshold"])
            onnx = meta_path.parent / str(meta["onnx"])
        except (KeyError, TypeError, ValueError) as exc:
            raise HandNetworkError(f"{meta_path}: bad or missing field ({exc})") from None
        if not (mm > 0 and 0 < th < 1 and support > 0 and (keep is None or keep >= 0) and join >= 0
                and (edge is None or edge > 0) and (space_th is None or 0 < space_th < 1)):
            raise HandNetworkError(f"{meta_path}: mm_per_px, threshold, support_mm2, keep_mm, join_mm, edge_mm or "
                                   "space_threshold out of range")
        net = read_onnx(onnx, "hand outline", HandNetworkError)
        return cls(net, mm, th, support, keep, join, edge, str(meta_path.parent), space_th)

    def probability(self, board: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """Per pixel of ``board`` (already at ``mm_per_px``, with its empty board) the chance it is a hand."""
        x = padded(network_input(board, reference))[None]
        self.net.setInput(np.ascontiguousarray(x))
        logits = self.net.forward()[0, 0, :board.shape[0], :board.shape[1]]
        return 1.0 / (1.0 + np.exp(-logits))

    def outline(self, hand: np.ndarray, board: np.ndarray, reference: np.ndarray, px_per_mm: float) -> HandOutline:
        """Of ``hand`` (bool, board px at ``px_per_mm``: the hand test's, margin included) what ``vetoed`` keeps,
        with this model's distances, given the hand the network sees in ``board`` (the light-corrected board, BGR;
        ``reference``: the table's empty board); with the arm part of it and the network's probability map (all
        board px). The network looks only round the hand's bounding box (``CONTEXT_MM``)."""
        if not hand.any():
            return HandOutline(hand, np.zeros_like(hand), np.zeros(hand.shape, np.float32))
        probability = self.probability_near(hand, board, reference, px_per_mm)
        near, arm = vetoed_parts(hand, probability > self.threshold, px_per_mm, self.support_mm2, self.keep_mm,
                                 self.join_mm, self.edge_mm)
        return HandOutline(near | arm, arm, probability)

    def occluded(self, outline: HandOutline, hit: frozenset[int],
                 space_masks: Sequence[tuple[tuple[int, int, int, int], np.ndarray]]) -> frozenset[int]:
        """Of the spaces ``hit`` by ``outline``'s kept hand, those that stay occluded: all but ``unseen_spaces`` with
        this model's ``space_threshold`` (all of them without one)."""
        if self.space_threshold is None:
            return hit
        return hit - unseen_spaces(hit, space_masks, outline.probability, outline.arm, self.space_threshold)

    def seen(self, hand: np.ndarray, board: np.ndarray, reference: np.ndarray, px_per_mm: float) -> np.ndarray:
        """The hand the network sees (bool, board px), looked for within ``CONTEXT_MM`` of ``hand``'s bounding box."""
        return self.probability_near(hand, board, reference, px_per_mm) > self.threshold

    def probability_near(self, hand: np.ndarray, board: np.ndarray, reference: np.ndarray,
                         px_per_mm: float) -> np.ndarray:
        """The network's probability of a hand (float32, board px, nearest network pixel) within ``CONTEXT_MM`` of
        ``hand``'s bounding box; 0 beyond."""
        ys, xs = np.nonzero(hand)
        scale = px_per_mm * self.mm_per_px  # board px per network px
        h, w = hand.shape
        small_h, small_w = int(round(h / scale)), int(round(w / scale))
        ctx = CONTEXT_MM / self.mm_per_px
        x0, y0 = max(0, int(xs.min() / scale - ctx)), max(0, int(ys.min() / scale - ctx))
        x1, y1 = min(small_w, int(xs.max() / scale + ctx) + 1), min(small_h, int(ys.max() / scale + ctx) + 1)
        small_board = at_scale(board, px_per_mm, self.mm_per_px)[y0:y1, x0:x1]
        small_ref = at_scale(reference, px_per_mm, self.mm_per_px)[y0:y1, x0:x1]
        small = np.zeros((small_h, small_w), np.float32)
        small[y0:y1, x0:x1] = self.probability(small_board, small_ref)[:y1 - y0, :x1 - x0]
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST)


_committed: dict[str, HandNetwork | None] = {}


def committed_hand_network() -> HandNetwork | None:
    """The committed model, loaded once per process; None (with a warning in the log, once) when it is missing or
    damaged: the reader then keeps its hand test's hand whole."""
    if "model" not in _committed:
        try:
            _committed["model"] = HandNetwork.load(DEFAULT_MODEL)
        except HandNetworkError as exc:
            log.warning("learned hand outline not used, the hand test's hand kept whole: %s", exc)
            _committed["model"] = None
    return _committed["model"]


def set_committed(model: HandNetwork | None) -> None:
    """Use ``model`` as the committed one in this process (None: no network, the hand test's hand kept whole):
    for tests, and for measuring the hand test on its own (``tools/train_hand_segmentation``)."""
    _committed["model"] = model
