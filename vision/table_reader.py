"""Camera frame -> pieces per space, from what the table model learned (colour mode).

The steps, each in its own module: registration (``registration``), rectification to board mm,
light correction and foreground (``foreground``), colour classes (``colour_classes``), hands
(``occlusion``, its hand vetoed by a learned outline: ``hand_network``), counting (``counting``), and a
cheap "did anything move" test (``change``). Spaces under a hand are reported occluded and never read. With a
``SpaceClassifier`` the counting step is replaced by the learned per-space classifier (``space_classifier``, on
crops cut by ``space_crops``); everything before it, the hand test included, is the same. Last, a fortress read
under a house is kept only where this reader saw it before the house went on (``covered_pieces``).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import replace
from typing import Callable

import cv2
import numpy as np

from vision.appearance import AppearanceStep
from vision.calibration import PX_PER_MM, default_calibration
from vision.change import ChangeWatcher
from vision.colour_classes import ColourClassifier
from vision.counted_faces import CountedFaces
from vision.counting import Counter_, MassMeter, SpaceCount
from vision.detail_still import Detail, DetailStill, frame_view
from vision.detection import Detection, Mode, SpaceResult
from vision.enrolment import TableModel, camera_centre, check_model, nominal_model_for
from vision.enrolment_margins import table_raises
from vision import bright_bands
from vision.foreground import BLOCK, TINTED_PIECES_MM2, Foreground, ForegroundMaps, LightNormaliser, grow_pieces
from vision.frame_blur import BlurMeter
from vision.hand_evidence import masked as masked_for_hands
from vision.layout import Layout
from vision.covered_pieces import CoveredPieces
from vision.limited_pieces import Placements
from vision.hand_network import HandNetwork, committed_hand_network
from vision.scarab_network import ScarabNetwork
from vision.occlusion import Occlusion, OcclusionFinder
from vision.registration import Registrar, Registration
from vision.second_look import adopt, missed_spaces
from vision.table_registration import TableRegistration
from vision.space_classifier import ClassifierError, SpaceClassifier, committed_classifier
from vision.space_crops import bare_spaces, crops_by_kind, evidence_map, reference_crops
from vision.space_masks import heap_zones, space_map, space_masks
from vision.structure import PrintWatcher

log = logging.getLogger(__name__)

PARTIAL_REACH_MM = 30.0  # spaces this close to a change are read again (a leaning piece, a shadow)
PARTIAL_MARGIN_MM = 25.0  # the crop around them: whole pieces, with their fringe
PARTIAL_MAX_SHARE = 0.35  # of the board: a bigger crop is read as a full read
PARTIAL_HAND_SHARE = 0.5  # unexplained evidence of this many pieces' area in the crop: read everything


def board_grid_mm(w: int, h: int, px_per_mm: float) -> np.ndarray:
    """Each board pixel's position in board mm, (h, w, 2) float32: what the homography maps to the frame.
    Kept by the reader, as making it anew (and touching its fresh memory) cost more than the mapping."""
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32) / px_per_mm, np.arange(h, dtype=np.float32) / px_per_mm)
    return np.dstack([xs, ys])


class TableReader:
    """Reads one board from a stream of frames (or single images), as the table model says the
    pieces look. Without a model: the layout's nominal artwork and pieces (for rendered frames
    and the demo only)."""

    mode = Mode.COLOUR

    def __init__(self, layout: Layout, model: TableModel | None = None, *,
                 clock: Callable[[], float] = time.monotonic, registrar: Registrar | None = None,
                 classifier: SpaceClassifier | None | str = "committed",
                 hand_network: HandNetwork | None | str = "committed", scarab_network: str | None = "committed"):
        self.layout = layout
        if model is None:
            ref = default_calibration(layout, PX_PER_MM).reference
            model = nominal_model_for(layout, ref, PX_PER_MM, "no table model: the synthetic artwork")
        check_model(model, layout)
        self.model = model
        self.s = model.px_per_mm
        self.clock = clock
        self.registrar = registrar or Registrar(layout)
        self.registration = TableRegistration(self.registrar, model)
        h, w = model.reference.shape[:2]
        self.fg = Foreground(model.reference, self.s)
        self.colours = ColourClassifier(model)
        self.print_watcher = PrintWatcher(self.fg.ref[..., 0].astype(np.float32))
        self.space_masks = space_masks(layout, self.s, w, h)
        self.space_of = space_map(layout, self.s, w, h)
        biggest = max(sz.area_mm2 for sz in model.sizes.values())
        self.occlusion = OcclusionFinder(self.space_masks, (w, h), self.s, biggest, heap_zones(layout, self.s, w, h),
                                         list(layout.marker_corners_mm().values()), self.fg.ref)
        # how blurred a frame is, on the corner markers (the marker print the hand test leaves out, as the
        # faces' blur is measured on): asked by the faces and by the hand test of a frame it finds a hand in
        self.blur_meter = BlurMeter(model.reference, self.occlusion.marker_print)
        centres = np.array([sp.centre for sp in layout.spaces], float)
        usual = [layout.usual_kinds(sp) for sp in layout.spaces]
        limits = {k: spec.per_owner for k, spec in layout.pieces.items() if spec.per_owner}
        narrowest = min((layout.pieces[k].min_width for k in layout.player_kinds()), default=None)
        self.counter = Counter_(model, self.colours.owners, self.space_of, centres, self.s, usual, limits,
                                [sp.area for sp in layout.spaces], narrowest)
        # spaces whose pieces are all neutral (Cheops' tiles and treasures) are read by each kind's
        # look, printed face or colour, instead of counting (vision/appearance.py); None: no such space
        self.appearance = AppearanceStep(layout, model, self.space_of, self.blur_meter) or None
        # printed pieces counted by colour as plain ones (Zhang Yi's talents on their state's colour): then
        # told apart by face (vision/counted_faces.py); None: no such pieces, or none enrolled
        self.faces = CountedFaces(layout, model.faces, self.s, self.space_of, self.colours.owners, model.sizes) or None
        self._all_by_look = self.appearance is not None and len(self.appearance.indices) == len(layout.spaces)
        # what the look reads on Cheops' pyramid spaces asked of a network too (vision.scarab_network); None: no such
        # spaces, no model, or turned off (``scarab_network=None``)
        self.scarabs = (ScarabNetwork.for_reader(layout, self.space_masks, model.reference, self.s, self.colours)
                        if self.appearance is not None and scarab_network == "committed" else None)
        # a crowd of pieces takes its light from around it, a hand-sized one does not (it is a hand) -- but
        # a board read all by look is covered with printed tiles, tinted as a whole (Cheops): any size is tiles
        self.light = LightNormaliser(model.reference, model.px_per_mm,
                                     None if self._all_by_look else TINTED_PIECES_MM2)
        # how far a space reaches from its centre (a polygon's farthest corner): a change that near is on it
        self._reach = np.array([sp.radius if sp.radius is not None else
                                max(np.hypot(x - sp.centre[0], y - sp.centre[1]) for x, y in sp.polygon) for sp in layout.spaces])
        self.change = ChangeWatcher(layout.size)
        self._space_cells = bright_bands.space_cells(self.space_masks, BLOCK, self.light.small_size[::-1])
        self._owner_colours = [model.colours[o].mean(axis=0) for o in self.colours.owners]
        self._last: Detection | None = None
        self._maps: tuple | None = None
        self._board_mm = board_grid_mm(w, h, self.s)  # every board pixel's mm (for ``_remap_maps``): made once
        self._reference_crops: dict = {}  # the empty board's part of each space's crop (space_crops.crop_spaces)
        self._noise = 0.0  # the last full read's noise scale
        self._still = DetailStill(None)  # the read in progress's detail still (``read``)
        # the hand test's hand vetoed by the learned outline (vision.hand_network.vetoed); None: all of it kept
        self.hand_network = committed_hand_network() if hand_network == "committed" else hand_network
        self._explained: np.ndarray | None = None  # what the pieces read by look explained in the last read
        self._placements: Placements | None = None  # the last read's count's explanations (when counted: Ming's princes)
        # the learned step: a CNN per space kind reads each visible space instead of counting
        # colour blobs (registration, light, hands stay as they are). "committed": the model in
        # vision/models (colour counting, with a warning, when it cannot be used); None: counting
        committed = classifier == "committed"
        if committed:
            classifier = committed_classifier(layout)
        elif isinstance(classifier, str):
            raise ValueError(f"classifier must be a SpaceClassifier, None or 'committed', not {classifier!r}")
        if classifier is not None:
            try:
                classifier.check(layout)
            except ClassifierError as exc:
                if not committed:
                    raise
                # a layout with the same id but other pieces (a user's capture): count instead
                log.warning("learned space classifier not used for this layout, reading by colour counting: %s", exc)
                classifier = None
        self.classifier = classifier
        if classifier is not None:
            if classifier.owners != self.colours.owners:
                raise ClassifierError(f"the space classifier was trained for owners {classifier.owners}, "
                                      f"the table model has {self.colours.owners}")
        if classifier is not None:  # the same every frame: made now, not in the first read
            self._reference_crops = reference_crops(layout.spaces, classifier.crops, model.reference, self.s)
        # per space kind, the logits raised for this table's own pieces (vision.enrolment_margins)
        self._raises = table_raises(self) if classifier is not None else {}
        # a second look by counting where a one-piece head reads a space empty (vision.second_look)
        heads = classifier.heads if classifier is not None else {}
        self._single = [sp.kind in heads and heads[sp.kind].mode == "single" for sp in layout.spaces]
        self._holds = [frozenset(layout.held_kinds(sp)) for sp in layout.spaces]
        self._players = [k for k, o in enumerate(self.colours.owners) if k != self.colours.neutral]
        # a neutral piece read under a player's (a fortress under a house) only where it was seen before the
        # cover went on (vision.covered_pieces): a house's walls and shadow look like a fortress's rim
        self.covered = CoveredPieces.for_layout(layout)

    def reset(self) -> None:
        self.registration.reset()  # as a new reader
        self.change.reset()
        self.covered.reset()
        self._last = None

    # ------------------------------------------------------------------ per frame
    def _read_part(self, frame: np.ndarray, reg: Registration, thumb: np.ndarray, at: float, t0: float,
                   t_reg: float) -> Detection | None:
        """Only part of the board changed (a piece moved): read the spaces near the change again,
        in a crop, with the last full read's light and noise; keep the others. None: read it all
        (much changed, or anything in the crop that might be a hand: a full read judges it)."""
        if self._last is None or self._last.occluded:
            return None  # a hand was there: where it left, the full read sees it all again
        pts = self.change.changed_points_mm(thumb, reg)
        if pts is None or self.light.field is None or not len(pts):
            return None
        centres = self.counter.centres
        d = np.linalg.norm(pts[:, None, :] - centres[None, :, :], axis=2) - self._reach[None, :]
        redo = np.flatnonzero((d <= PARTIAL_REACH_MM).any(axis=0))
        if not len(redo):
            return None
        boxes = np.array([self.space_masks[i][0] for i in redo])
        h, w = self.model.reference.shape[:2]
        m = int(round(PARTIAL_MARGIN_MM * self.s))
        x0, y0 = np.maximum(boxes[:, :2].min(axis=0) - m, 0)
        x1, y1 = np.minimum(boxes[:, 2:].max(axis=0) + m, [w, h])
        if (x1 - x0) * (y1 - y0) > PARTIAL_MAX_SHARE * w * h:
            return None
        roi = (int(x0), int(y0), int(x1), int(y1))
        rect = self._rectify(frame, reg.homography, roi)
        corrected = cv2.multiply(rect, self.light.gain()[y0:y1, x0:x1], dtype=cv2.CV_8U)
        maps = self.fg.measure(corrected, roi, self._noise)
        if self.appearance is not None:
            return self._read_part_by_look(rect, corrected, maps, roi, redo, reg, frame.shape, thumb, at, t0, t_reg)
        strict = self.colours.classify(maps.lookup_lab, maps.strict)
        known = cv2.dilate((strict >= 0).astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        loose = (strict == -1) | (maps.weak_chroma & ~known)
        if loose.sum() > PARTIAL_HAND_SHARE * self.occlusion.piece_px:
            return None  # perhaps a hand: the full read decides
        raw = self.colours.classify(maps.lookup_lab, maps.piece)
        if self.classifier is not None:
            counts = self._classify(corrected, maps, redo, (x0, y0))
            missed = missed_spaces(counts, self._single, raw, self.space_masks, self._players, (x0, y0))
            if missed:
                counts = adopt(counts, self._count_part(raw, maps, roi, redo, reg, frame.shape), missed, self._holds)
        else:  # (with the kept spaces whose owner's prince the count placed elsewhere: vision.limited_pieces)
            counts = self._count_part(raw, maps, roi, redo, reg, frame.shape)
            redo = np.union1d(redo, np.fromiter(counts, int, len(counts)))
        return self._with_faces_part(frame, redo, counts, corrected, raw, (int(x0), int(y0)), reg, thumb, at, t0, t_reg)

    def _count_part(self, raw: np.ndarray, maps: ForegroundMaps, roi: tuple[int, int, int, int], redo: np.ndarray,
                    reg: Registration, frame_shape: tuple[int, ...]) -> dict[int, SpaceCount]:
        """The spaces ``redo`` counted by colour blobs in the part ``roi`` (``raw``: its owner labels),
        the pieces of the other spaces (as last read) using up their owners' limits."""
        assert self._last is not None
        h, w = self.model.reference.shape[:2]
        x0, y0, x1, y1 = roi
        labels = np.full((h, w), -2, np.int16)
        labels[y0:y1, x0:x1] = self._count_labels(raw, maps)
        lab = np.zeros((h, w, 3), np.float32)
        lab[y0:y1, x0:x1] = maps.lab
        cam = camera_centre(reg.homography, (frame_shape[1], frame_shape[0]))
        again = set(redo.tolist())
        others = frozenset(i for i in range(len(self.layout.spaces)) if i not in again)
        kept: Counter = Counter()  # pieces of the spaces not read again: they count against per-owner limits
        for i in others:
            for piece, n in self._last.spaces[i].pieces:
                kept[piece] += n
        counts, _ = self.counter.count(labels, np.zeros((h, w), bool), cam, others,
                                       MassMeter(lab, self.fg.ref, labels, self._owner_colours), kept, self._placements)
        if self._placements is not None:  # a counting reader's: kept for the next partial read
            self._placements = self.counter.placed
        return counts

    def _read_part_by_look(self, rect: np.ndarray, corrected: np.ndarray, maps: ForegroundMaps, roi: tuple[int, int, int, int],
                           redo: np.ndarray, reg: Registration, frame_shape: tuple[int, ...], thumb: np.ndarray, at: float,
                           t0: float, t_reg: float) -> Detection | None:
        """A part read on a board read by look (Cheops): the appearance step on the changed spaces only, the
        crop placed in board-sized images (its spaces' boxes are in board px), what the other spaces' tiles
        explained kept from the last read. None (read it all) when a space there is unsure or the crop holds
        evidence its pieces do not explain (perhaps a hand: the full read's hand test judges it)."""
        assert self.appearance is not None
        if self._explained is None or not self.appearance.ready:
            return None
        x0, y0, x1, y1 = roi
        h, w = self.model.reference.shape[:2]
        whole_rect = np.zeros((h, w, 3), np.uint8)
        whole_rect[y0:y1, x0:x1] = rect
        whole_corrected = np.zeros((h, w, 3), np.uint8)
        whole_corrected[y0:y1, x0:x1] = corrected
        piece = np.zeros((h, w), bool)
        piece[y0:y1, x0:x1] = maps.piece
        weak = np.zeros((h, w), bool)
        weak[y0:y1, x0:x1] = maps.weak
        again = {int(i) for i in redo}
        seen = self.appearance.read(whole_corrected, replace(maps, piece=piece, weak=weak),
                                    camera_centre(reg.homography, (frame_shape[1], frame_shape[0])), whole_rect, self.fg,
                                    only=again, explained_before=self._explained)
        if seen.unsure & again:
            return None
        # evidence on the spaces read again, or between spaces, that their pieces do not explain
        mine = np.isin(self.space_of[y0:y1, x0:x1], list(again)) | (self.space_of[y0:y1, x0:x1] < 0)
        loose = (maps.piece | maps.weak) & ~seen.explained[y0:y1, x0:x1] & mine
        if loose.sum() > PARTIAL_HAND_SHARE * self.occlusion.piece_px:
            return None
        if self.scarabs is not None and not self.scarabs.fits(redo, (x0, y0), corrected.shape):
            return None  # a dot's crop reaches beyond the part: the full read decides
        self._explained = seen.explained
        counts = seen.counts if self.scarabs is None else self.scarabs.apply(seen.counts, corrected, maps, redo, (x0, y0))
        return self._partial_detection(redo, counts, reg, thumb, at, t0, t_reg)

    def _with_faces_part(self, frame: np.ndarray, redo: np.ndarray, counts: dict, corrected: np.ndarray,
                         raw: np.ndarray, origin: tuple[int, int],
                         reg: Registration, thumb: np.ndarray, at: float, t0: float, t_reg: float) -> Detection | None:
        """A part read with its printed pieces told by face (``CountedFaces``; ``raw``: the part's owner
        labels); None when a face there is not sure (the full read decides)."""
        if self.faces is not None:
            counts, unsure = self.faces.apply(counts, corrected, raw, origin,
                                              [int(i) for i in redo], frame_view(frame, reg, self._still))
            if unsure:
                return None
        return self._partial_detection(redo, counts, reg, thumb, at, t0, t_reg)

    def _partial_detection(self, redo: np.ndarray, counts: dict, reg: Registration, thumb: np.ndarray, at: float,
                           t0: float, t_reg: float) -> Detection:
        prev = self._last
        assert prev is not None
        spaces = list(prev.spaces)
        for i in redo:
            spaces[i] = self._space_result(i, counts.get(int(i)))
        t_end = time.perf_counter()
        det = Detection(at, self.mode, reg, tuple(spaces), prev.off_space,
                        {"registration": (t_reg - t0) * 1e3, "total": (t_end - t0) * 1e3}, partial=len(redo))
        self._last = det
        self.change.remember(thumb)
        return det

    def space_logits(self, corrected: np.ndarray, maps: ForegroundMaps, indices, origin: tuple[int, int] = (0, 0)
                     ) -> tuple[set[int], dict[str, tuple[list[int], np.ndarray]]]:
        """The learned step's networks on the spaces ``indices``: the bare ones (``space_crops.bare_spaces``,
        empty without a network) and, per space kind, the others with their network's outputs (before
        this table's enrolment raises)."""
        assert self.classifier is not None
        bare = bare_spaces(self.space_masks, indices, maps.piece, self.s, origin)
        crops = crops_by_kind(self.layout.spaces, [i for i in indices if i not in bare], self.classifier.crops,
                              corrected, self.model.reference, maps.lookup_lab, evidence_map(maps), self.colours, self.s,
                              origin, self._reference_crops)
        return bare, {kind: (idx, self.classifier.forward(kind, blob)) for kind, (idx, blob) in crops.items()}

    def _classify(self, corrected: np.ndarray, maps: ForegroundMaps, indices, origin: tuple[int, int] = (0, 0)
                  ) -> dict[int, SpaceCount]:
        """The learned step: each space's crop through its kind's network (``space_classifier``), with
        this table's raises (``enrolment_margins``); a bare space is empty without one."""
        assert self.classifier is not None
        bare, logits = self.space_logits(corrected, maps, indices, origin)
        out: dict[int, SpaceCount] = {i: SpaceCount(Counter(), 1.0) for i in bare}
        for kind, (idx, rows) in logits.items():
            head = self.classifier.heads[kind]
            if kind in self._raises:
                rows = self._raises[kind].apply(rows)
            for i, row in zip(idx, rows):
                pieces, conf = head.decode(row)
                out[i] = SpaceCount(Counter(dict(pieces)), conf)  # empty too: its confidence is the network's
        return out

    def _space_result(self, i: int, c: SpaceCount | None) -> SpaceResult:
        sid = self.layout.spaces[i].id
        if c is None:
            return SpaceResult(sid, (), 1.0)
        return SpaceResult(sid, tuple(sorted(c.pieces.items(), key=lambda kv: (str(kv[0].owner), kv[0].kind))),
                           round(c.confidence, 3))

    def board_view(self, frame: np.ndarray) -> tuple[Registration, np.ndarray | None, ForegroundMaps | None]:
        """The frame registered, rectified and light-corrected, with its foreground maps (None,
        None when not registered): what a full read starts from. For training the learned
        classifier on exactly what the reader will show it."""
        reg = self.registration.register(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        if not reg.usable:
            return reg, None, None
        corrected = self.light.correct(self._rectify(frame, reg.homography))
        return reg, corrected, self.fg.measure(corrected)

    def _remap_maps(self, frame: np.ndarray, H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Board pixel -> frame pixel maps, cached while the homography stays."""
        if self._maps is None or self._maps[0] is not H or self._maps[1] != frame.shape:
            # the two-channel map converted as it is gives what its two planes, copied out, gave
            mapped = cv2.perspectiveTransform(self._board_mm, H.astype(np.float64))
            m1, m2 = cv2.convertMaps(mapped, None, cv2.CV_16SC2)
            self._maps = (H, frame.shape, m1, m2)
        return self._maps[2], self._maps[3]

    def to_board(self, image: np.ndarray, reg: Registration) -> np.ndarray:
        """``image`` (a frame's size: e.g. a hand's true outline) brought onto the board as the frame
        was (``Detection.hand_mask``'s pixels), without blending neighbouring pixels. Float maps, not the
        fixed-point ones ``_remap_maps`` caches for the frames (their nearest pixel is rounded down), and that
        cache is left to the frames."""
        assert reg.homography is not None
        mapped = cv2.perspectiveTransform(self._board_mm, reg.homography.astype(np.float64))
        return cv2.remap(image, mapped, None, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)

    def _rectify(self, frame: np.ndarray, H: np.ndarray,
                 roi: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """The board (or its ``roi``: x0, y0, x1, y1 in board pixels) as seen from above."""
        m1, m2 = self._remap_maps(frame, H)
        if roi is not None:
            x0, y0, x1, y1 = roi
            m1, m2 = m1[y0:y1, x0:x1], m2[y0:y1, x0:x1]
        return cv2.remap(frame, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def read(self, frame: np.ndarray, at: float | None = None, detail: Detail = None) -> Detection:
        """Read one frame (BGR). ``detail``: the same view at a higher resolution (a camera's main
        stream beside the watched low-resolution one), or a function that takes it, called only
        when the board is read and something needs more pixels than ``frame`` has (values printed
        on counters, ``vision.counted_values``, or on tokens, ``vision.card_detail``); everything
        else is read in ``frame``."""
        self._still = DetailStill(detail, Registrar(self.layout) if detail is not None else None)
        t0 = time.perf_counter()
        at = self.clock() if at is None else at
        if frame is None or frame.ndim != 3:
            raise ValueError("a frame must be a BGR image")
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        reg = self.registration.register(gray)
        t_reg = time.perf_counter()
        if not reg.usable:
            self._last = None
            self.change.reset()
            spaces = tuple(SpaceResult(sp.id, (), 0.0, True) for sp in self.layout.spaces)
            return Detection(at, self.mode, reg, spaces, timings_ms={"registration": (t_reg - t0) * 1e3})
        thumb = self.change.thumbnail(gray, reg)
        if self._last is not None and not reg.fresh and self.change.unchanged(thumb):
            prev = self._last
            return Detection(at, self.mode, reg, prev.spaces, prev.off_space,
                             {"registration": (t_reg - t0) * 1e3, "total": (time.perf_counter() - t0) * 1e3},
                             reused=True)
        if self._last is not None and not reg.fresh:
            partial = self._read_part(frame, reg, thumb, at, t0, t_reg)
            if partial is not None:
                self._last = partial = self._uncovered(partial)
                return partial
        det = self._uncovered(self._read_whole(frame, reg, at, t0, t_reg))
        self._last = det
        self.change.remember(thumb)
        return det

    def _uncovered(self, det: Detection) -> Detection:
        """``det`` with the bases first read under a cover dropped (``CoveredPieces``)."""
        if not self.covered:
            return det
        spaces = self.covered.apply(det.spaces)
        return det if spaces == det.spaces else replace(det, spaces=spaces)

    def _count_labels(self, raw: np.ndarray, maps: ForegroundMaps) -> np.ndarray:
        """Owner labels (``raw``) kept where connected to a sure pixel of their colour (``grow_pieces``), for counting."""
        return grow_pieces(raw, maps, len(self.colours.owners), self.colours.neutral, self.colours.grey)

    def _count_whole(self, labels: np.ndarray, maps: ForegroundMaps, occ, reg: Registration,
                     frame_shape: tuple[int, ...]) -> tuple[dict[int, SpaceCount], list[tuple[str, float, float]]]:
        """Every space not under the hand ``occ`` counted by colour blobs (``labels``: grown owner labels)."""
        cam = camera_centre(reg.homography, (frame_shape[1], frame_shape[0]))
        mass = MassMeter(maps.lab, self.fg.ref, labels, self._owner_colours)
        return self.counter.count(labels, occ.mask, cam, occ.spaces, mass)

    def _read_whole(self, frame: np.ndarray, reg: Registration, at: float, t0: float, t_reg: float) -> Detection:
        """Every space of a registered frame read afresh (``read`` keeps it as the last reading)."""
        rect = self._rectify(frame, reg.homography)
        corrected = self.light.correct(rect)
        t_rect = time.perf_counter()
        maps = self.fg.measure(corrected)
        self._noise = maps.noise
        raw = self.colours.classify(maps.lookup_lab, maps.piece)
        labels = self._count_labels(raw, maps) if self.classifier is None and not self._all_by_look else None
        t_cls = time.perf_counter()
        strict_labels = np.where(maps.strict, raw, np.int16(-2))  # strict is within piece: no second lookup
        print_loss = self.print_watcher.look(maps.lookup_lab[..., 0])
        lost = print_loss.lost
        seen = None
        if self.appearance is not None:  # pieces read by their look are explained: not a hand
            seen = self.appearance.read(corrected, maps, camera_centre(reg.homography, (frame.shape[1], frame.shape[0])),
                                        rect, self.fg)
            self._explained = seen.explained
            hand_maps, strict_labels, lost = masked_for_hands(maps, strict_labels, lost, seen.explained, seen.arm,
                                                                   self.s)
        occ = self.occlusion.find(maps if seen is None else hand_maps, strict_labels, lost,
                                  None if seen is None else seen.arm, None if seen is None else seen.explained > 0,
                                  lambda: print_loss.faded, lambda: self.blur_meter.sigma(corrected),
                                  None if seen is None else seen.oversized,
                                  None if seen is None else seen.unread_tiles)
        if seen is not None:  # a pale "piece" touching a hand may be its skin: unread, and it hides what the hand would
            touched = seen.touching(occ.mask, maps.lab, self.s)
            if touched:
                assert seen.blobs is not None  # touching found a blob
                occ = self.occlusion.joined(replace(occ, spaces=occ.spaces | touched),
                                            np.isin(seen.blobs, [i + 1 for i in touched]))
        if occ.spaces and self.hand_network is not None:  # vetoed by the learned outline (vision.hand_network)
            outline = self.hand_network.outline(occ.mask, corrected, self.model.reference, self.s)
            hit = self.occlusion.spaces_hit(outline.kept.astype(np.uint8))
            occ = Occlusion(outline.kept, self.hand_network.occluded(outline, hit, self.space_masks))
        t_occ = time.perf_counter()
        if self._all_by_look:
            counts, off = {}, []  # every space is read by its pieces' look (below)
        elif labels is None:
            visible = [i for i in range(len(self.layout.spaces)) if i not in occ.spaces]
            counts, off = self._classify(corrected, maps, visible), []
            missed = missed_spaces(counts, self._single, raw, self.space_masks, self._players)
            if missed:
                labels = self._count_labels(raw, maps)
                counts = adopt(counts, self._count_whole(labels, maps, occ, reg, frame.shape)[0], missed, self._holds)
        else:
            counts, off = self._count_whole(labels, maps, occ, reg, frame.shape)
        self._placements = self.counter.placed if labels is not None and self.classifier is None else None
        if seen is not None:
            counts = {**counts, **seen.counts}
            if self.scarabs is not None:
                counts = self.scarabs.apply(counts, corrected, maps, [i for i in seen.counts if i not in occ.spaces])
        face_unsure: set[int] = set()
        if self.faces is not None:  # a printed piece counted as a plain one of its colour: which it is, by face
            counts, face_unsure = self.faces.apply(counts, corrected, raw, view=frame_view(frame, reg, self._still))
        spaces = []
        for i, sp in enumerate(self.layout.spaces):
            if i in occ.spaces:
                spaces.append(SpaceResult(sp.id, (), 0.0, True))
                continue
            if i in face_unsure or (seen is not None and i in seen.unsure):  # seen, not read sure: never guessed
                spaces.append(SpaceResult(sp.id, (), 0.0, unsure=True))
                continue
            spaces.append(self._space_result(i, counts.get(i)))
        # bare spaces under a bright band: an arm the light field divided out (vision.bright_bands)
        spaces, lifted = bright_bands.lifted_results(spaces, self.light.light, BLOCK / self.s, self._space_cells)
        if lifted:
            occ = Occlusion(occ.mask | bright_bands.mask_of(self.space_masks, lifted, occ.mask.shape), occ.spaces | lifted)
        t_end = time.perf_counter()
        return Detection(at, self.mode, reg, tuple(spaces), tuple(off), {
            "registration": (t_reg - t0) * 1e3, "rectify": (t_rect - t_reg) * 1e3, "classify": (t_cls - t_rect) * 1e3,
            "occlusion": (t_occ - t_cls) * 1e3, "count": (t_end - t_occ) * 1e3, "total": (t_end - t0) * 1e3},
            hand_mask=occ.mask, board_px_per_mm=self.s)
