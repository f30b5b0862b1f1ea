"""Dice in the dice tray, read from the overhead camera (pure logic, no I/O).

``DiceReader.read(frame, homography)`` looks at the layout's dice space (kind ``dice``) through
the plane of a die's top face (``vision.dice_view``), finds each die by where the tray differs
from the table's empty board (``vision.dice_tray``), fits its top face (``vision.dice_face``) and
counts its pips (``vision.dice_pips``); by default a small network (``vision.dice_classifier``)
overrules or completes the pip fits when it is sure. The result is a ``DiceReading``: a state (``read``,
``empty``, ``occluded``, ``unreadable``) and per die its value (None when it cannot be read), confidence, place and size; a state a player should
know about carries a reason in every language of the catalogues.

A die is as the layout's ``pieces`` say (the kinds its dice spaces hold: size, height, colour);
a table's enrolment (``vision.enrolment.TableModel``) gives the empty board seen through this
camera and, when the die was enrolled, its measured size. Nothing about a die's look is fixed in
code but what makes a die a die: a cube whose faces carry the standard pip patterns.

``DiceWatch`` turns a stream of readings into rolls: a die is *settled* when two consecutive
reads agree on its value and place with no hand over the tray; each landing is reported once.
"""

from __future__ import annotations

import enum
import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import cv2
import numpy as np

from scorer.core.types import Message
from vision.dice_classifier import CLASSES, DiceClassifier, combine, committed_dice_classifier, die_crop
from vision.dice_face import Face, fit_face
from vision.dice_pips import PATCH_SPAN, PIP_SITES, locate, pip_centre, pip_depth, read_pips, unexplained_pips
from vision.dice_tray import Blob, foreground, merge_near
from vision.dice_view import DEFAULT_FOV_DEG, camera_pose, frame_resolution, reference_view, top_view

__all__ = ["PIP_SITES", "DiceReader", "DiceReading", "DiceState", "DiceWatch", "DieLook", "DieRead", "Roll",
           "die_kinds", "die_look", "dice_space"]

VIEW_PX_PER_MM = 6.0  # at most, the view a die is read in (three view px per frame px)
DETECT_PX_PER_MM = 2.0  # at most, the view the tray is searched in
MARGIN_MM = 12.0  # the view around the tray
TRAY_INSET_MM = 1.5  # the tray is searched inside its printed edge (a line no camera draws the same twice)
MIN_CONFIDENCE = 0.999  # below this a die is unreadable
MIN_CONTRAST = 6.0  # pip darkness against the fit's noise
MIN_QUALITY = 0.7  # share of the face's variation explained
MAX_BLUR = 0.1  # a face that only a blur wider than this share of its side explains is not resolved: no value
MIN_FACE_PX = 12.0  # a face narrower than this many frame pixels is not read (pips about 3 px apart)
MIN_FACE_PX_ONE = 15.0  # nor read as a 1 below this: one pip of a 2 or a 4 taken for a 1 is hard to tell then
HAND_DICE = 2.5  # a blob larger than this many die silhouettes is a hand (or its shadow)
HAND_AT_EDGE = 0.6  # ... or this many, when it comes in over the tray's edge
HAND_THICK_MM = 5.0  # a hand, even a finger tip seen edge on, is at least this thick
HAND_NEAR = 0.15  # ... or this many, when it comes in over the edge to within half a die of a die
NO_DIE_BESIDE_A_DIE = 0.5  # a blob the network finds more likely no die than any value is dropped beside a die read
FACE_CANDIDATES = 3  # places the silhouette suggests for the top face, best first
GOOD_PIP_FIT = 0.6  # a place where a pip pattern explains this share of the face is read
BOARD_PIPS = 0.5  # pips the empty board shows at least this dark (of the view's) there are print, not a die's
ALIAS_REACH = 1.2  # a 1 with another face-bright pip this close (of the nominal side) is one pip of a 2 or a 4
MIN_PEAK = 8.0  # a die differs from the empty tray by this many noise units somewhere
EDGE_DIE_PEAK = 2 * MIN_PEAK  # ... and twice that to be taken for a die, not a hand, at the tray's edge
SETTLE_MM = 1.5  # a die that moved less than this between two reads lies still
UNCHANGED_LEVELS = 12.0  # a tray whose view changed less than this (grey levels) is not read again
READERS = ("classical", "learned")  # pip fits alone; pip fits and the network (vision.dice_classifier)


class DiceState(enum.StrEnum):
    READ = "read"  # every die in the tray read
    EMPTY = "empty"  # no die in the tray
    OCCLUDED = "occluded"  # a hand over the tray: nothing is read
    UNREADABLE = "unreadable"  # a die is there but its face cannot be read
    MOVING = "moving"  # (DiceWatch) the dice have not come to rest
    NOT_REGISTERED = "not_registered"  # the board is not registered in this frame


def _reason(state: "DiceState", face_px: float = 0.0) -> Message | None:
    """What the players are told about a reading (None: nothing to tell)."""
    if state == DiceState.OCCLUDED:
        return Message.t("vision.dice.occluded")
    if state == DiceState.MOVING:
        return Message.t("vision.dice.moving")
    if state == DiceState.NOT_REGISTERED:
        return Message.t("vision.dice.not_registered")
    if state == DiceState.UNREADABLE:
        if 0 < face_px < MIN_FACE_PX:
            return Message.t("vision.dice.too_small", px=f"{face_px:.0f}")
        return Message.t("vision.dice.unreadable")
    return None


@dataclass(frozen=True, slots=True)
class DieRead:
    """One die: ``value`` 1-6 (None: seen but not read), ``confidence`` of the value, where its top
    face's centre lies (board mm), its edges' angle (modulo 90 degrees) and its side (mm)."""

    value: int | None
    confidence: float
    centre_mm: tuple[float, float]
    angle_deg: float
    size_mm: float

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "confidence": round(self.confidence, 4),
                "centre_mm": [round(v, 1) for v in self.centre_mm], "angle_deg": round(self.angle_deg, 1),
                "size_mm": round(self.size_mm, 1)}


@dataclass(frozen=True, slots=True)
class DiceReading:
    """What the camera sees in the dice tray in one frame."""

    state: DiceState
    dice: tuple[DieRead, ...] = ()
    reason: Message | None = None
    space: str = "dice-tray"
    at: float | None = None
    timings_ms: Mapping[str, float] = field(default_factory=dict)

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(sorted(d.value for d in self.dice if d.value is not None))

    def to_json(self) -> dict[str, Any]:
        return {"state": str(self.state), "space": self.space, "values": list(self.values),
                "dice": [d.to_json() for d in self.dice], "reason": self.reason.to_json() if self.reason else None}


def _blob_centre_mm(det: Any, blob: Blob) -> np.ndarray:
    """Where a die's blob lies (its pixels' mean), in mm of the die-top plane (``det``: the coarse view)."""
    ys, xs = np.nonzero(blob.mask)
    return det.mm(np.array([xs.mean() + blob.box[0], ys.mean() + blob.box[1]]))


def _reading(state: DiceState, dice: tuple[DieRead, ...] = (), space: str = "dice-tray", at: float | None = None,
             timings: Mapping[str, float] | None = None, face_px: float = 0.0) -> DiceReading:
    return DiceReading(state, dice, _reason(state, face_px), space, at, dict(timings or {}))


# -------------------------------------------------------------------------------- the die's look

def die_kinds(layout: Any) -> tuple[str, ...]:
    """The piece kinds that are dice: those the layout's dice spaces (kind ``dice``) hold."""
    return tuple(layout.holds.get("dice", ()))


def dice_space(layout: Any) -> Any | None:
    """The layout's dice tray (its first space of kind ``dice``), or None."""
    return next((s for s in layout.spaces if s.kind == "dice"), None)


@dataclass(frozen=True, slots=True)
class DieLook:
    kind: str
    size_mm: float  # the side of the cube
    height_mm: float
    rgb: tuple[int, int, int] | None
    enrolled: bool


def die_look(layout: Any, model: Any = None) -> DieLook | None:
    """The die as the layout describes it, with its size as the table's enrolment measured it
    (when the die was enrolled). None: the layout has no die."""
    kinds = die_kinds(layout)
    if not kinds:
        return None
    spec = layout.pieces[kinds[0]]
    size, height, enrolled = float(spec.min_width), float(spec.height), False
    sizes = getattr(model, "sizes", None) or {}
    for piece, measured in sizes.items():
        if piece.kind == spec.kind and getattr(measured, "enrolled", False) and measured.area_mm2 > 0:
            side = math.sqrt(measured.area_mm2)
            height, size, enrolled = height * side / size, side, True
            break
    return DieLook(spec.kind, size, height, spec.rgb, enrolled)


# -------------------------------------------------------------------------------- the reader

class DiceReader:
    """Reads the dice in one layout's dice tray. ``reference``: the empty board rectified at
    ``reference_px_per_mm`` (board plane), as ``TableModel.reference``; ``model`` gives both (and
    the die's enrolled size). Without either: the layout's own artwork (rendered frames only)."""

    def __init__(self, layout: Any, *, model: Any = None, reference: np.ndarray | None = None,
                 reference_px_per_mm: float = 1.0, fov_deg: float = DEFAULT_FOV_DEG,
                 px_per_mm: float = VIEW_PX_PER_MM, reader: str = "learned",
                 classifier: DiceClassifier | None = None) -> None:
        """``reader``: ``learned`` (the default: the pip fits and the network,
        ``vision.dice_classifier.combine``) or ``classical`` (the pip fits alone); ``classifier``
        the network (default: the committed one; when it is missing or damaged the reader logs a
        warning and reads as ``classical``)."""
        if reader not in READERS:
            raise ValueError(f"unknown dice reader {reader!r} (one of {', '.join(READERS)})")
        tray = dice_space(layout)
        look = die_look(layout, model)
        if tray is None or look is None:
            raise ValueError(f"layout {layout.id!r} has no dice tray (a space of kind 'dice' and the die it holds)")
        if reference is None and model is not None:
            reference, reference_px_per_mm = model.reference, float(model.px_per_mm)
        if reference is None:
            from vision.calibration import default_calibration

            cal = default_calibration(layout, 1.0)
            reference, reference_px_per_mm = cal.reference, 1.0
        self.layout = layout
        self.tray = tray
        self.look = look
        self.reference = reference
        self.reference_px_per_mm = reference_px_per_mm
        self.fov_deg = fov_deg
        self.px_per_mm = px_per_mm
        self._last: tuple[np.ndarray, DiceReading, float] | None = None  # the last full read: view, reading, noise
        self.last_fit: Any = None  # what decided the last die read (diagnostics: bench --pickle)
        self.last_dice: list[dict[str, Any]] = []  # per die of the last read: each reader's say (diagnostics)
        if reader == "learned" and classifier is None:
            classifier = committed_dice_classifier()  # None (logged): the pip fits alone
        self.classifier = classifier if reader == "learned" else None
        self.reader = "learned" if self.classifier is not None else "classical"
        poly = np.asarray(tray.polygon, float)
        self.box = (float(poly[:, 0].min() - MARGIN_MM), float(poly[:, 1].min() - MARGIN_MM),
                    float(poly[:, 0].max() + MARGIN_MM), float(poly[:, 1].max() + MARGIN_MM))

    def read(self, frame: np.ndarray, homography: np.ndarray | None, *, origin: tuple[int, int] = (0, 0),
             frame_size: tuple[int, int] | None = None, at: float | None = None, occluded: bool = False) -> DiceReading:
        """Read the tray in ``frame`` (BGR). ``homography``: board mm -> pixels of the whole frame
        (None: not registered); ``frame`` may be a crop of it starting at ``origin``, and
        ``frame_size`` the whole frame's (width, height) (default: ``frame``'s). ``occluded``: the
        board reader already saw a hand over the tray."""
        t0 = time.perf_counter()
        self.last_dice = []
        found = self.find(frame, homography, origin=origin, frame_size=frame_size, at=at, occluded=occluded)
        if isinstance(found, DiceReading):
            return found
        pose, det, blobs, res, noise = found
        space, look = self.tray.id, self.look
        face_px = look.size_mm * res
        least = MIN_FACE_PX if self.classifier is None else min(MIN_FACE_PX, self.classifier.min_face_px)
        if face_px < least:  # seen, but no die can be read at this resolution
            dice = tuple(DieRead(None, 0.0, tuple(float(v) for v in det.mm(np.array([(b.box[0] + b.box[2]) / 2,
                                                                                      (b.box[1] + b.box[3]) / 2]))),
                                 0.0, look.size_mm) for b in blobs)
            return self._keep(_reading(DiceState.UNREADABLE, dice, space, at, face_px=face_px), det.image, noise)
        # ... and read each in a fine view around it
        t_fg = time.perf_counter()
        out = _without_no_dice([self._read_one(frame, pose, det, b, origin, res) for b in blobs],
                               None if self.classifier is None else NO_DIE_BESIDE_A_DIE)
        timings = {"foreground": (t_fg - t0) * 1e3, "total": (time.perf_counter() - t0) * 1e3}
        if any(d.value is None for d in out):
            return self._keep(_reading(DiceState.UNREADABLE, tuple(out), space, at, timings), det.image, noise)
        return self._keep(_reading(DiceState.READ, tuple(out), space, at, timings), det.image, noise)

    def find(self, frame: np.ndarray, homography: np.ndarray | None, *, origin: tuple[int, int] = (0, 0),
             frame_size: tuple[int, int] | None = None, at: float | None = None, occluded: bool = False
             ) -> "DiceReading | tuple[Any, Any, list[Blob], float, float]":
        """The dice in the tray, not yet read: (pose, coarse view, die blobs, frame px per mm at
        the tray, the view's noise); or the reading itself when there is nothing to read (a hand,
        an empty or unchanged tray, no registration)."""
        t0 = time.perf_counter()
        space = self.tray.id
        if homography is None or occluded:
            self._last = None
            return _reading(DiceState.OCCLUDED if occluded else DiceState.NOT_REGISTERED, space=space, at=at)
        size = frame_size or (frame.shape[1], frame.shape[0])
        pose = camera_pose(homography, size, self.fov_deg)
        if pose is None:
            return _reading(DiceState.NOT_REGISTERED, space=space, at=at)
        look = self.look
        res = frame_resolution(pose, look.height_mm, self.tray.centre)  # frame px per mm at the tray
        # find the dice in a coarse view of the whole tray ...
        coarse = float(np.clip(1.5 * res, 1.0, DETECT_PX_PER_MM))
        det = top_view(frame, pose, self.box, look.height_mm, coarse, origin)
        ref = reference_view(self.reference, self.reference_px_per_mm, det, det.image.shape[:2])
        fg = foreground(det.image, ref, coarse, res, self.reference_px_per_mm, self._inside(det, -TRAY_INSET_MM),
                        self._inside(det, -2 * TRAY_INSET_MM))
        t_fg = time.perf_counter()
        if self._unchanged(det.image):
            last = self._last[1]
            return DiceReading(last.state, last.dice, last.reason, last.space, at, {"total": (t_fg - t0) * 1e3})
        self._last = None
        if not fg.light_ok:
            return _reading(DiceState.OCCLUDED, space=space, at=at)  # a hand (its colour) over most of the tray
        silhouette = (look.size_mm * 1.3) ** 2 * 2.5  # top, walls and shadow of the largest die
        hands = [b for b in fg.blobs if b.thickness_mm >= HAND_THICK_MM]  # lines of print left over are thinner
        reach = 3.0 * look.size_mm * coarse  # a die, its walls and shadow span less than this
        bodies = {id(b): _body(b, HAND_THICK_MM * coarse, reach) for b in hands}
        if any(_hand_sized(b, silhouette, reach, bodies[id(b)]) for b in hands):
            return _reading(DiceState.OCCLUDED, space=space, at=at)  # a hand, an arm, their shadow (not kept)
        parts = tuple(b for b in (bodies.get(id(b), b) for b in fg.blobs) if _span(b) <= reach
                      and (b.peak >= MIN_PEAK or b.area_mm2 >= 0.25 * look.size_mm**2))
        blobs = [b for b in merge_near(parts, 0.6 * look.size_mm * coarse, reach)
                 if b.area_mm2 >= 0.4 * look.size_mm**2 and b.peak >= MIN_PEAK
                 and _span(b) <= reach]
        # a hand coming in over the tray's edge up to a die: the die may be in its fingers
        arms = [b for b in hands if b.touches_edge and b.area_mm2 > HAND_NEAR * silhouette]
        near = 0.5 * look.size_mm * coarse
        if any(_gap(a, b) <= near for a in arms for b in blobs if not _is_part(bodies[id(a)], b)):
            return _reading(DiceState.OCCLUDED, space=space, at=at)
        if not blobs:
            return self._keep(_reading(DiceState.EMPTY, space=space, at=at,
                                       timings={"total": (time.perf_counter() - t0) * 1e3}), det.image, fg.noise)
        return pose, det, blobs, res, fg.noise

    def crop(self, frame: np.ndarray, pose: Any, det: Any, blob: Blob, origin: tuple[int, int] = (0, 0),
             turn_deg: float = 0.0, scale: float = 1.0, shift_mm: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """The learned reader's input for the die of ``blob`` (``vision.dice_classifier.die_crop``,
        centred on the blob; ``turn_deg``, ``scale``, ``shift_mm``: a jitter, for training)."""
        c = _blob_centre_mm(det, blob) + np.asarray(shift_mm, float)
        return die_crop(frame, pose, c, self.look.size_mm, self.look.height_mm, self.reference,
                        self.reference_px_per_mm, origin, turn_deg, scale)

    def _read_one(self, frame: np.ndarray, pose: Any, det: Any, blob: Blob, origin: tuple[int, int], res: float
                  ) -> tuple[DieRead, float]:
        """One die: by its pip fits (``_read_die``), and, with a classifier, by the network too
        (``combine``); what decided is kept in ``last_dice`` (diagnostics: bench). With it, the
        network's probability that the blob is no die to read (0.0 without a classifier)."""
        look = self.look
        if look.size_mm * res >= MIN_FACE_PX:
            classical = self._read_die(frame, pose, det, blob, origin, res)
        else:
            c = _blob_centre_mm(det, blob)
            classical = DieRead(None, 0.0, (float(c[0]), float(c[1])), 0.0, look.size_mm)
        if self.classifier is None:
            self.last_dice.append({"classical": classical.value})
            return classical, 0.0
        t0 = time.perf_counter()
        guess = self.classifier.guess(self.crop(frame, pose, det, blob, origin), look.size_mm * res)
        value, conf = combine(classical.value, classical.confidence, guess, self.classifier)
        self.last_dice.append({"classical": classical.value, "probabilities": guess.probabilities,
                               "face_px": look.size_mm * res, "net_ms": (time.perf_counter() - t0) * 1e3})
        no_die = guess.probabilities[CLASSES.index(0)]
        if value == classical.value:
            return classical, no_die
        return DieRead(value, round(conf, 6), classical.centre_mm, classical.angle_deg, classical.size_mm), no_die

    def _keep(self, reading: DiceReading, view: np.ndarray, noise: float) -> DiceReading:
        self._last = (view, reading, noise)
        return reading

    def _unchanged(self, view: np.ndarray) -> bool:
        """The tray looks as it did at the last full read (a die lying still, fresh sensor noise),
        judged by that read's noise: a hand over the tray raises this frame's."""
        if self._last is None or self._last[0].shape != view.shape:
            return False
        diff = cv2.absdiff(cv2.GaussianBlur(view, (5, 5), 0), cv2.GaussianBlur(self._last[0], (5, 5), 0)).max(axis=2)
        return float(np.percentile(diff, 99.9)) <= max(UNCHANGED_LEVELS, 3 * self._last[2])

    def _read_die(self, frame: np.ndarray, pose: Any, det: Any, blob: Blob, origin: tuple[int, int], res: float
                  ) -> DieRead:
        look = self.look
        s = self.px_per_mm
        x0, y0, x1, y1 = blob.box
        lo = det.mm(np.array([x0, y0], float)) - look.size_mm * 0.8
        hi = det.mm(np.array([x1, y1], float)) + look.size_mm * 0.8
        s = float(np.clip(3.0 * res, 2.5, self.px_per_mm))  # finer than the frame, no finer than needed
        view = top_view(frame, pose, (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])), look.height_mm, s, origin)
        # the blob's mask in the fine view
        k = s / det.px_per_mm
        off = np.round(view.px(det.mm(np.array([x0, y0], float)))).astype(int)
        mask = cv2.resize(blob.mask.astype(np.uint8), (max(1, int(round((x1 - x0) * k))), max(1, int(round((y1 - y0) * k)))),
                          interpolation=cv2.INTER_NEAREST).astype(bool)
        fine = Blob((int(off[0]), int(off[1]), int(off[0]) + mask.shape[1], int(off[1]) + mask.shape[0]), mask,
                    blob.area_mm2, blob.touches_edge, blob.peak, blob.thickness_mm)
        ys, xs = np.nonzero(blob.mask)
        c = det.mm(np.array([xs.mean() + x0, ys.mean() + y0]))
        ref = reference_view(self.reference, self.reference_px_per_mm, view, view.image.shape[:2]).astype(np.float32)
        around = ~cv2.dilate(_paint(fine, view.image.shape[:2]), np.ones((9, 9), np.uint8)).astype(bool)
        gain = np.median(view.image[around].astype(np.float32) + 4, axis=0) / np.median(ref[around] + 4, axis=0) \
            if around.sum() > 50 else np.ones(3, np.float32)
        expected = np.minimum(ref * gain, 255.0)
        faces = fit_face(view.image, expected, fine, look.size_mm * s, view.parallax(c, 1.0), FACE_CANDIDATES)
        if not faces:
            return DieRead(None, 0.0, (float(c[0]), float(c[1])), 0.0, look.size_mm)
        # places for the top face: centred on the pips seen on the die's brightest surface, and the
        # silhouette's best; each moved to where a pip pattern fits it best
        centre = pip_centre(view.image, fine, look.size_mm * s)
        if centre is not None:
            faces = [Face(centre, faces[0].angle_deg, faces[0].side, faces[0].score)] + faces
        located = sorted((locate(view.image, f) for f in faces), key=lambda fr: -fr[1])
        good = [f for f, r2 in located if r2 >= GOOD_PIP_FIT]
        located = [f for f, _ in located]
        # every place where a pattern fits well is read; if they disagree the die is ambiguous (one
        # pip of a 2 or a 4, taken for the middle of a face, is a perfect 1): no value
        reads = [(f, read_pips(view.image, f, (f.side / s * res * PATCH_SPAN) ** 2)) for f in (good or located[:1])]
        reach = ALIAS_REACH * look.size_mm * s
        lean_px = view.parallax(c, 1.0)  # view px per px of height (both at the view's scale)
        reads = [(f, fit) for f, fit in reads if not unexplained_pips(view.image, f, fit, reach, lean_px)]
        if not reads:
            return DieRead(None, 0.0, (float(c[0]), float(c[1])), 0.0, look.size_mm)
        face, fit = max(reads, key=lambda r: r[1].quality)
        self.last_fit = (face, fit, res, blob)
        printed = pip_depth(expected, face, fit) >= BOARD_PIPS * pip_depth(view.image, face, fit)
        centre_mm = view.mm(np.asarray(face.centre))
        size_mm = face.side / s
        agreed = len({r[1].value for r in reads}) == 1
        value = None
        if (agreed and not printed and fit.confidence >= MIN_CONFIDENCE and fit.contrast >= MIN_CONTRAST
                and fit.quality >= MIN_QUALITY and fit.blur <= MAX_BLUR
                and (fit.value != 1 or size_mm * res >= MIN_FACE_PX_ONE)):
            value = fit.value
        return DieRead(value, round(fit.confidence, 6), (float(centre_mm[0]), float(centre_mm[1])), face.angle_deg,
                       size_mm)

    def _inside(self, view: Any, grow_mm: float) -> np.ndarray:
        """The tray, grown by ``grow_mm`` (shrunk when negative)."""
        h, w = view.image.shape[:2]
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [np.round(view.px(np.asarray(self.tray.polygon))).astype(np.int32)], 1)
        g = int(round(abs(grow_mm) * view.px_per_mm))
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1))
        m = cv2.dilate(m, k) if grow_mm > 0 else cv2.erode(m, k)
        return m.astype(bool)


def _hand_sized(blob: Blob, silhouette_mm2: float, reach_px: float, body: Blob | None = None) -> bool:
    """Whether a thick blob is a hand by its size: larger than ``HAND_DICE`` die silhouettes, or,
    coming in over the tray's edge, larger than ``HAND_AT_EDGE`` of one and wider than a die's
    ``reach``. A die lying at the edge, its shadow or walls over it, touches the edge too and is
    as large as a hand's finger tips would be there: what fits in a die's reach is left to the
    face and pip fits (a finger shows no pip pattern; a hand near a die is judged by ``_gap``), if
    it stands out as clearly as a die's face does (a hand over the tray that the light's fit took
    in differs only faintly). The reach is measured on the blob's ``body`` (``_body``) when given."""
    if blob.area_mm2 > silhouette_mm2 * HAND_DICE:
        return True
    die_like = _span(body or blob) <= reach_px and blob.peak >= EDGE_DIE_PEAK
    return blob.touches_edge and blob.area_mm2 > silhouette_mm2 * HAND_AT_EDGE and not die_like


def _span(blob: Blob) -> int:
    """The larger side of the blob's box (px)."""
    return max(blob.box[2] - blob.box[0], blob.box[3] - blob.box[1])


def _body(blob: Blob, thick_px: float, reach_px: float) -> Blob:
    """A blob wider than a die's reach less its parts thinner than ``thick_px`` (a hand's least
    thickness): a faint strand along the tray's printed edge, or a shadow's, joined to a die lying
    there made die and strand one blob wider than any die, taken for a hand coming in over the edge
    (tools/dice_eval tuning rolls at 2560 px: 21 of 405 dice in view, no hand in the frame); no part
    of a hand is that thin. The blob itself when it fits in the reach, or when nothing that thick is
    left."""
    r = int(round(thick_px / 2))
    if r < 1 or _span(blob) <= reach_px:
        return blob
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    body = cv2.morphologyEx(np.pad(blob.mask.astype(np.uint8), r), cv2.MORPH_OPEN, disc)[r:-r, r:-r].astype(bool)
    ys, xs = np.nonzero(body)
    if len(xs) == 0:
        return blob
    x0, y0, x1, y1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
    bx, by = blob.box[0], blob.box[1]
    area = float(body.sum()) / float(blob.mask.sum()) * blob.area_mm2
    return replace(blob, box=(bx + x0, by + y0, bx + x1, by + y1), mask=body[y0:y1, x0:x1], area_mm2=area)


def _without_no_dice(read: list[tuple[DieRead, float]], drop_at: float | None) -> list[DieRead]:
    """The dice read, less the blobs the network finds at least ``drop_at`` likely to be no die to read
    -- the print beside a die, a patch of its shadow -- when another blob was read with a value: such a
    blob made the whole tray unreadable (tools/dice_eval tuning rolls at 2560 px: 17 trays, the die read
    right beside blobs the network gave "no die" 0.91-0.998). ``NO_DIE_BESIDE_A_DIE`` (0.5: more likely
    no die than any value) since the twenty-eighth sitting; the network's ``min_probability`` (0.95)
    before, which left 4 more of those trays unread (0.86-0.95). Where no blob has a value nothing is
    dropped (a die the network took for none must not make the tray empty). Measured on one-die rolls
    only (Zhang Yi rolls one): of two dice, one the network takes for none would be dropped."""
    dice = [d for d, _ in read]
    if drop_at is None:
        return dice
    kept = [d for d, no_die in read if d.value is not None or no_die < drop_at]
    return kept if any(d.value is not None for d in kept) else dice


def _gap(a: Blob, b: Blob) -> float:
    """How far apart two blobs' boxes are (px; 0 when they overlap)."""
    dx = max(a.box[0] - b.box[2], b.box[0] - a.box[2], 0)
    dy = max(a.box[1] - b.box[3], b.box[1] - a.box[3], 0)
    return math.hypot(dx, dy)


def _is_part(a: Blob, b: Blob) -> bool:
    """``a`` is the bulk of die blob ``b`` (a die lying at the tray's edge), not a hand beside it."""
    inside = a.box[0] >= b.box[0] and a.box[1] >= b.box[1] and a.box[2] <= b.box[2] and a.box[3] <= b.box[3]
    return inside and a.area_mm2 >= 0.6 * b.area_mm2


def _paint(blob: Blob, shape: tuple[int, int]) -> np.ndarray:
    """The blob's mask on a canvas of ``shape``."""
    out = np.zeros(shape, np.uint8)
    x0, y0, x1, y1 = blob.box
    X0, Y0, X1, Y1 = max(0, x0), max(0, y0), min(shape[1], x1), min(shape[0], y1)
    if X1 > X0 and Y1 > Y0:
        out[Y0:Y1, X0:X1] = blob.mask[Y0 - y0:Y1 - y0, X0 - x0:X1 - x0]
    return out


# -------------------------------------------------------------------------------- rolls over time

@dataclass(frozen=True, slots=True)
class Roll:
    """A die (or dice) come to rest: their values, or ``values == ()`` and a reason when the die
    that landed cannot be read."""

    values: tuple[int, ...]
    at: float | None
    reading: DiceReading

    @property
    def readable(self) -> bool:
        return bool(self.values)


class DiceWatch:
    """Rolls from a stream of ``DiceReading``: a landing is the first time the tray shows the
    same dice (values and places within ``SETTLE_MM``) twice in a row after it changed; each
    landing is reported once, as a ``Roll`` (readable or not). The die lying in the tray when
    watching starts is not a roll: nobody saw it land."""

    def __init__(self, settle_mm: float = SETTLE_MM) -> None:
        self.settle_mm = settle_mm
        self._last: DiceReading | None = None
        self._reported: DiceReading | None = None
        self._primed = False
        self.state = DiceState.EMPTY

    def update(self, reading: DiceReading) -> Roll | None:
        prev, self._last = self._last, reading
        if reading.state in (DiceState.OCCLUDED, DiceState.NOT_REGISTERED):
            self.state = reading.state
            self._primed = True  # the tray may change under a hand
            return None
        if reading.state == DiceState.EMPTY:
            self.state = DiceState.EMPTY
            self._reported = None
            self._primed = True
            return None
        if prev is None or not self._same(prev, reading):
            self.state = DiceState.MOVING
            if prev is not None:
                self._primed = True
            return None
        if self._reported is not None and self._same(self._reported, reading):
            self.state = reading.state
            return None
        self.state = reading.state
        self._reported = reading
        if not self._primed:
            return None  # lying there since before we watched
        return Roll(reading.values if reading.state == DiceState.READ else (), reading.at, reading)

    def _same(self, a: DiceReading, b: DiceReading) -> bool:
        if a.state != b.state or len(a.dice) != len(b.dice):
            return False
        left = list(b.dice)
        for d in a.dice:
            match = next((e for e in left if e.value == d.value
                          and math.dist(e.centre_mm, d.centre_mm) <= self.settle_mm), None)
            if match is None:
                return False
            left.remove(match)
        return True
