"""Board registration: find the four corner markers, fit the homography from board millimetres to
image pixels, and keep it while nothing moves.

Full marker detection costs ~15 ms on a 1280x720 frame, so it runs only when needed: after a
registration the reader keeps a small normalised patch around each found marker; on the next
frame it compares those patches (well under 1 ms). If at least three still match, the board and
camera have not moved (a hand over one marker does not count as a move) and the homography is
kept. Otherwise the markers are detected again: first in small crops around where the last pose
(or the enrolment photo's, ``expect``) puts them, ~1-2 ms, which a mounted camera's board is
nearly always in; only when that does not find all four, in the whole frame.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import cv2
import numpy as np

from scorer.core.types import Message
from vision.layout import Layout
from vision.markers import corner_detector


UPSCALE_MAX_SIDE = 2000  # frames up to this size are searched again at 2x when markers are missing
# a marker is looked for first within this many of its own sides (at least EXPECTED_PAD_MIN_PX) of
# where the expected pose puts it: a board pushed by a few cm is still found there
EXPECTED_PAD_SIDES = 1.0
EXPECTED_PAD_MIN_PX = 24


class RegistrationStatus(enum.StrEnum):
    OK = "ok"  # all four markers seen (now or at the last full detection)
    PARTIAL = "partial"  # some markers hidden; homography from the others or kept from before
    MARKERS_MISSING = "markers_missing"  # not enough markers to place the board
    TOO_OBLIQUE = "too_oblique"  # markers found but the view is too slanted (or too far) to read
    NOT_REGISTERED = "not_registered"  # nothing yet


_MESSAGES = {
    RegistrationStatus.OK: Message.t('vision.registration.board_registered'),
    RegistrationStatus.PARTIAL: Message.t('vision.registration.board_registered_some_corner_markers'),
    RegistrationStatus.MARKERS_MISSING: Message.t('vision.registration.board_not_found_the_corner'),
    RegistrationStatus.TOO_OBLIQUE: Message.t('vision.registration.the_camera_sees_the_board'),
    RegistrationStatus.NOT_REGISTERED: Message.t('vision.registration.board_not_registered_yet'),
}


OUTLINE_MESSAGE = Message.t('vision.registration.board_registered_by_its_edge')
PATTERNS_MESSAGE = Message.t('vision.registration.board_registered_by_its_markers_patterns')


@dataclass(frozen=True)
class Registration:
    status: RegistrationStatus
    homography: np.ndarray | None  # board mm -> image px
    found: tuple[int, ...] = ()
    missing: tuple[int, ...] = ()
    error_px: float = 0.0  # RMS reprojection error of the marker corners
    obliqueness: float = 1.0  # smallest ratio of local scales (1 = straight down)
    fresh: bool = True  # True when markers were detected in this very frame
    image_size: tuple[int, int] = (0, 0)
    message: Message = field(default_factory=lambda: _MESSAGES[RegistrationStatus.NOT_REGISTERED])

    @property
    def usable(self) -> bool:
        return self.homography is not None and self.status in (RegistrationStatus.OK, RegistrationStatus.PARTIAL)

    def board_to_image(self, pts: np.ndarray) -> np.ndarray:
        assert self.homography is not None
        p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.homography).reshape(-1, 2)

    def image_to_board(self, pts: np.ndarray) -> np.ndarray:
        assert self.homography is not None
        p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, np.linalg.inv(self.homography)).reshape(-1, 2)

    def to_json(self) -> dict[str, object]:
        return {
            "status": str(self.status),
            "found": list(self.found),
            "missing": list(self.missing),
            "error_px": round(self.error_px, 3),
            "obliqueness": round(self.obliqueness, 3),
            "fresh": self.fresh,
            "message": self.message.to_json(),
        }


def to_detail(homography: np.ndarray, watched_shape: tuple[int, ...], detail_shape: tuple[int, ...]) -> np.ndarray:
    """``homography`` (board mm -> px of the watched frame) for a higher-resolution frame of the same
    view (a camera's main stream beside its low-resolution one), pixel centres kept:
    x_detail = sx * (x + 0.5) - 0.5."""
    sx, sy = detail_shape[1] / watched_shape[1], detail_shape[0] / watched_shape[0]
    return np.array([[sx, 0, (sx - 1) / 2], [0, sy, (sy - 1) / 2], [0, 0, 1.0]]) @ homography


def obliqueness(H: np.ndarray, layout: Layout) -> float:
    """Smallest ratio of the two singular values of the homography's Jacobian over the board:
    1 for a camera straight above, cos(angle) for a tilted one."""
    w, h = layout.size
    worst = 1.0
    for x, y in ((0, 0), (w, 0), (w, h), (0, h), (w / 2, h / 2)):
        v = H @ np.array([x, y, 1.0])
        J = (H[:2, :2] * v[2] - np.outer(v[:2], H[2, :2])) / v[2] ** 2
        s = np.linalg.svd(J, compute_uv=False)
        worst = min(worst, float(s[1] / s[0]))
    return worst


def _clamped_box(points: np.ndarray, before: float, after: float, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """Whole pixels (x0, y0, x1, y1) from ``before`` px left of and above ``points`` (n, 2) to ``after``
    px right of and below them, within a frame of ``shape``."""
    h, w = shape[:2]
    x0, y0 = np.floor(points.min(axis=0) - before).astype(int)
    x1, y1 = np.ceil(points.max(axis=0) + after).astype(int)
    return max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))


def _collect(corners, ids, wanted: set[int], found: dict[int, np.ndarray], scale: float = 1.0) -> None:
    """Add the wanted markers of a detection (first one of each id) to ``found``, in the
    coordinates of a frame ``scale`` times smaller than the one detected in (pixel centres)."""
    if ids is None:
        return
    for c, i in zip(corners, ids.ravel()):
        i = int(i)
        if i in wanted and i not in found:
            pts = c.reshape(4, 2)
            found[i] = pts if scale == 1.0 else ((pts + 0.5) / scale - 0.5).astype(np.float32)


class Registrar:
    """Keeps the board's homography across frames. ``update(gray)`` per frame."""

    def __init__(self, layout: Layout, *, min_obliqueness: float = 0.5, min_marker_px: float = 10.0,
                 patch_ncc: float = 0.85, max_error_px: float = 3.0):
        self.layout = layout
        self.detector = corner_detector(layout.dictionary)
        # for the second look at a missing marker, in a small crop: many threshold windows are cheap there
        self._retry = corner_detector(layout.dictionary)
        self._upscaled = corner_detector(layout.dictionary)
        up = self._upscaled.getDetectorParameters()
        up.adaptiveThreshWinSizeMin, up.adaptiveThreshWinSizeMax, up.adaptiveThreshWinSizeStep = 5, 35, 10
        up.minMarkerPerimeterRate = 0.02
        self._upscaled.setDetectorParameters(up)
        rp = self._retry.getDetectorParameters()
        rp.adaptiveThreshWinSizeMin, rp.adaptiveThreshWinSizeMax, rp.adaptiveThreshWinSizeStep = 5, 45, 8
        rp.minMarkerPerimeterRate = 0.1
        self._retry.setDetectorParameters(rp)
        self.min_obliqueness = min_obliqueness
        self.min_marker_px = min_marker_px
        self.patch_ncc = patch_ncc
        self.max_error_px = max_error_px
        self.current = Registration(RegistrationStatus.NOT_REGISTERED, None)
        self._patches: dict[int, tuple[tuple[int, int, int, int], np.ndarray]] = {}
        self._missing_patches: dict[int, tuple[tuple[int, int, int, int], np.ndarray]] = {}
        self._found_corners: dict[int, np.ndarray] = {}
        # for the crops around where the markers are expected: the whole frame's parameters, with its
        # least marker size in pixels (set per crop; relative to a small crop it would let through
        # every speck, each decoded against the dictionary at a cost)
        self._near = corner_detector(layout.dictionary)
        self.full_detections = 0
        self._board_corners = layout.marker_corners_mm()
        self._expected: tuple[np.ndarray, tuple[int, int]] | None = None  # (board mm -> px, frame size)

    def expect(self, homography: np.ndarray | None, size: tuple[int, int] | None) -> None:
        """Where the board probably is in frames of ``size`` (w, h): the enrolment photo's pose for
        a mounted camera. Detection looks for the markers there first (``_near_expected``); the
        last good registration replaces it. ``reset`` keeps it: it is a hint, never a result."""
        self._expected = None if homography is None or size is None else \
            (np.asarray(homography, np.float64), (int(size[0]), int(size[1])))

    def reset(self) -> None:
        self.current = Registration(RegistrationStatus.NOT_REGISTERED, None)
        self._patches = {}
        self._missing_patches = {}
        self._found_corners = {}

    # ---- cheap "has anything moved?" check
    @staticmethod
    def _norm(patch: np.ndarray) -> np.ndarray:
        p = patch.astype(np.float32)
        p -= p.mean()
        n = float(np.linalg.norm(p))
        return p / n if n > 1e-6 else p

    def _unchanged_markers(self, gray: np.ndarray) -> list[int]:
        same = []
        for mid, ((x0, y0, x1, y1), ref) in self._patches.items():
            cur = self._norm(gray[y0:y1:2, x0:x1:2])
            if cur.shape == ref.shape and float((cur * ref).sum()) >= self.patch_ncc:
                same.append(mid)
        return same

    def _marker_px(self, mid: int, H: np.ndarray) -> np.ndarray:
        """Marker ``mid``'s four corners in the frame (4, 2), where the homography ``H`` puts them."""
        return cv2.perspectiveTransform(self._board_corners[mid].reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)

    def _box(self, gray: np.ndarray, H: np.ndarray, mid: int) -> tuple[int, int, int, int] | None:
        """The patch around marker ``mid`` that tells whether it moved (``_patches``), or None."""
        x0, y0, x1, y1 = _clamped_box(self._marker_px(mid, H), 3, 4, gray.shape)
        return (x0, y0, x1, y1) if x1 - x0 > 6 and y1 - y0 > 6 else None

    def _recover_hidden(self, gray: np.ndarray, cur: Registration) -> Registration | None:
        """A kept partial registration whose hidden marker's spot changed (the hand moved away):
        look for the marker there and, when found, refit with all markers seen."""
        changed = []
        for mid, ((x0, y0, x1, y1), ref) in self._missing_patches.items():
            now = self._norm(gray[y0:y1:2, x0:x1:2])
            if now.shape != ref.shape or float((now * ref).sum()) < self.patch_ncc:
                changed.append(mid)
                self._missing_patches[mid] = ((x0, y0, x1, y1), now)
        if not changed or not self._found_corners:
            return None
        found = dict(self._found_corners)
        self._search_missing(gray, found, set(changed) | set(found), H=cur.homography)
        if len(found) == len(self._found_corners):
            return None
        return self._fit(gray, found, prev=None)

    def _remember(self, gray: np.ndarray, H: np.ndarray, ids: list[int],
                  corners: dict[int, np.ndarray] | None = None) -> None:
        self._patches = {}
        self._found_corners = dict(corners or {})
        # where a marker was not seen (a hand over it), remember what was there instead: when
        # that changes (the hand left), the marker is looked for again
        self._missing_patches = {}
        for mid in sorted(set(self._board_corners) - set(ids)):
            box = self._box(gray, H, mid)
            if box is not None:
                x0, y0, x1, y1 = box
                self._missing_patches[mid] = (box, self._norm(gray[y0:y1:2, x0:x1:2]))
        for mid in ids:
            box = self._box(gray, H, mid)
            if box is not None:
                x0, y0, x1, y1 = box
                self._patches[mid] = (box, self._norm(gray[y0:y1:2, x0:x1:2]))

    # ---- per frame
    def update(self, gray: np.ndarray) -> Registration:
        if gray.ndim == 3:
            gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
        size = (gray.shape[1], gray.shape[0])
        cur = self.current
        if cur.usable and cur.image_size == size and self._patches:
            same = self._unchanged_markers(gray)
            if len(same) >= min(3, len(self._patches)):
                if cur.missing and self._missing_patches and not (set(self._patches) - set(same)):
                    better = self._recover_hidden(gray, cur)
                    if better is not None and better.usable:
                        self.current = better
                        return better
                hidden = tuple(sorted(set(self._patches) - set(same)))
                # a marker hidden while tracked (a hand over it) is back once its spot looks as
                # it did when the marker was seen; otherwise it stayed "missing" until a bump
                back = set(same) & set(cur.missing)
                missing = tuple(sorted((set(cur.missing) - back) | set(hidden)))
                found = tuple(sorted((set(cur.found) | back) - set(hidden)))
                status = RegistrationStatus.OK if not missing else RegistrationStatus.PARTIAL
                self.current = Registration(status, cur.homography, found, missing, cur.error_px, cur.obliqueness,
                                            False, size, _MESSAGES[status])
                return self.current
        self.current = self.detect(gray)
        return self.current

    def detect(self, gray: np.ndarray) -> Registration:
        """Full marker detection on this frame (also used on its own by the CLI)."""
        if gray.ndim == 3:
            gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
        self.full_detections += 1
        size = (gray.shape[1], gray.shape[0])
        wanted = {m.id for m in self.layout.markers}
        prev = self.current if self.current.usable and self.current.image_size == size else None
        found = self._near_expected(gray, wanted)
        if len(found) == len(wanted):
            return self._remembered_as_expected(self._fit(gray, found, prev))
        found = {}
        _collect(*self.detector.detectMarkers(gray)[:2], wanted, found)
        if len(found) < 3 and max(size) <= UPSCALE_MAX_SIDE:
            # small markers (a board far from the camera, or its far corners seen at a slant):
            # the whole frame again at twice the size, with the finer threshold windows
            up = cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
            _collect(*self._upscaled.detectMarkers(up)[:2], wanted, found, scale=2.0)
        if len(found) == 3:
            self._search_missing(gray, found, wanted)
        if not found and prev is None and self._expected is None:
            # nothing to start from (an enrolment photo) and not one code legible: the board's
            # outline turned as its markers' printed patterns say
            from vision.tag_patterns import homography_from_tag_patterns

            H = homography_from_tag_patterns(gray, self.layout)
            if H is not None:
                return self._outline_registration(gray, H, found, size, watch_all=True, message=PATTERNS_MESSAGE)
        if 0 < len(found) < 3:
            # the board's own outline, turned the way the markers found say: then the missing
            # markers are looked for where it puts them (enlarged), and the board fitted to all
            from vision.board_outline import homography_from_outline

            centres = {m.id: np.asarray(m.centre, np.float64) for m in self.layout.markers}
            H = homography_from_outline(gray, self.layout.size, found, centres)
            if H is not None:
                return self._outline_registration(gray, H, found, size)
            if prev is None and self._expected is None:
                # no outline either (a pool of light beside the board) and nothing to start from (an
                # enrolment photo): the other markers where their printed patterns are, from two decoded
                from vision.tag_patterns import homography_from_decoded

                H = homography_from_decoded(gray, self.layout, found)
                if H is not None and self._agrees(H, found):
                    return self._outline_registration(gray, H, found, size, watch_all=True, message=PATTERNS_MESSAGE)
        return self._remembered_as_expected(self._fit(gray, found, prev))

    def found_near(self, gray: np.ndarray, homography: np.ndarray) -> Registration | None:
        """The board's pose in ``gray`` from every corner marker, each looked for only where
        ``homography`` (board mm -> ``gray`` px) puts it; None unless all are found there and fit.
        For a detail still of a registered frame: its own markers, at its resolution, place the
        board more finely than the frame's pose scaled up."""
        if gray.ndim == 3:
            gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
        self._expected = (homography, (gray.shape[1], gray.shape[0]))
        found = self._near_expected(gray, {m.id for m in self.layout.markers})
        if len(found) < len(self.layout.markers):
            return None
        reg = self._fit(gray, found, None)
        return reg if reg.usable and not reg.missing else None

    def _remembered_as_expected(self, reg: Registration) -> Registration:
        """A registration by all markers is where the next detection looks first."""
        if reg.usable and not reg.missing:
            self._expected = (reg.homography, reg.image_size)
        return reg

    def _near_expected(self, gray: np.ndarray, wanted: set[int]) -> dict[int, np.ndarray]:
        """The markers found in crops around where the expected pose puts them (id -> 4 corners in
        frame px): all of them, or nothing. Each crop reaches well beyond the threshold windows
        and the corner refinement, so a marker found there has the corners the whole-frame pass
        gives it (to ~0.01 px; 0.2 px where the refinement's image pyramid differs); the least
        marker is the whole frame's (``minMarkerPerimeterRate`` of its size), so that this never
        registers what the whole frame would not."""
        if self._expected is None or self._expected[1] != (gray.shape[1], gray.shape[0]):
            return {}
        H = self._expected[0]
        params = self.detector.getDetectorParameters()
        least_perimeter = params.minMarkerPerimeterRate * max(gray.shape[:2])
        found: dict[int, np.ndarray] = {}
        for mid in sorted(wanted):
            c = self._marker_px(mid, H)
            side = float(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1).max())
            pad = max(float(EXPECTED_PAD_MIN_PX), EXPECTED_PAD_SIDES * side)
            x0, y0, x1, y1 = _clamped_box(c, pad, pad, gray.shape)
            if x1 - x0 < 16 or y1 - y0 < 16:
                return {}
            params.minMarkerPerimeterRate = least_perimeter / max(x1 - x0, y1 - y0)
            self._near.setDetectorParameters(params)
            corners, ids, _ = self._near.detectMarkers(np.ascontiguousarray(gray[y0:y1, x0:x1]))
            hits = [cc.reshape(4, 2) + np.float32([x0, y0]) for cc, i in
                    zip(corners, ids.ravel() if ids is not None else ()) if int(i) == mid]
            if not hits:
                return {}
            found[mid] = hits[0].astype(np.float32)
        return found

    def _outline_registration(self, gray: np.ndarray, H: np.ndarray, found: dict[int, np.ndarray],
                              size: tuple[int, int], watch_all: bool = False,
                              message: Message = OUTLINE_MESSAGE) -> Registration:
        """Registered by the board's outline and one or two markers, or by the markers' printed patterns
        (status partial). ``watch_all`` (the patterns): every marker's spot is kept as if it were
        decoded, so that while they look the same the pose holds; else only the decoded ones'."""
        wanted = {m.id for m in self.layout.markers}
        missing = tuple(sorted(wanted - set(found)))
        obl = obliqueness(H, self.layout)
        if obl < self.min_obliqueness:
            return Registration(RegistrationStatus.TOO_OBLIQUE, None, tuple(sorted(found)), missing, 0.0, obl,
                                True, size, _MESSAGES[RegistrationStatus.TOO_OBLIQUE])
        self._remember(gray, H, sorted(wanted if watch_all else found), found)
        return Registration(RegistrationStatus.PARTIAL, H, tuple(sorted(found)), missing, 0.0, obl, True, size,
                            message)

    def _fit(self, gray: np.ndarray, found: dict[int, np.ndarray], prev: Registration | None) -> Registration:
        """Homography from the markers found (id -> 4 image corners), checked and remembered."""
        size = (gray.shape[1], gray.shape[0])
        wanted = {m.id for m in self.layout.markers}
        missing = tuple(sorted(wanted - set(found)))
        # A new registration needs three markers: two on one edge leave the far side of the board
        # poorly constrained (errors of several mm). Fewer are enough to confirm a kept one.
        if len(found) < 3 and not (found and prev is not None and self._agrees(prev.homography, found)):
            self._patches = {}
            return Registration(RegistrationStatus.MARKERS_MISSING, None, tuple(sorted(found)), missing,
                                image_size=size, message=_MESSAGES[RegistrationStatus.MARKERS_MISSING])
        if len(found) < 3:
            if prev is not None:
                status = RegistrationStatus.PARTIAL
                return Registration(status, prev.homography, tuple(sorted(found)), missing, prev.error_px,
                                    prev.obliqueness, True, size, _MESSAGES[status])
            self._patches = {}
            return Registration(RegistrationStatus.MARKERS_MISSING, None, tuple(sorted(found)), missing,
                                image_size=size, message=_MESSAGES[RegistrationStatus.MARKERS_MISSING])
        src = np.vstack([self._board_corners[i] for i in sorted(found)]).astype(np.float64)
        dst = np.vstack([found[i] for i in sorted(found)]).astype(np.float64)
        H, _ = cv2.findHomography(src, dst, 0)
        if H is None:
            return Registration(RegistrationStatus.MARKERS_MISSING, None, tuple(sorted(found)), missing,
                                image_size=size, message=_MESSAGES[RegistrationStatus.MARKERS_MISSING])
        proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), H).reshape(-1, 2)
        err = float(np.sqrt(np.mean(np.sum((proj - dst) ** 2, axis=1))))
        obl = obliqueness(H, self.layout)
        side = min(float(np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1).min()) for q in found.values())
        if obl < self.min_obliqueness or side < self.min_marker_px:
            self._patches = {}
            return Registration(RegistrationStatus.TOO_OBLIQUE, None, tuple(sorted(found)), missing, err, obl,
                                True, size, _MESSAGES[RegistrationStatus.TOO_OBLIQUE])
        if missing and prev is not None and self._agrees(prev.homography, found) and len(found) < 4:
            H, err, obl = prev.homography, prev.error_px, prev.obliqueness  # keep the better fit from more markers
        status = RegistrationStatus.OK if not missing else RegistrationStatus.PARTIAL
        self._remember(gray, H, sorted(found), found)
        return Registration(status, H, tuple(sorted(found)), missing, err, obl, True, size, _MESSAGES[status])

    def _search_missing(self, gray: np.ndarray, found: dict[int, np.ndarray], wanted: set[int],
                        H: np.ndarray | None = None) -> None:
        """A marker the whole-frame pass missed (small, blurred, noisy) is looked for again where
        the other three put it, in a crop enlarged 2x. A board fitted to three markers in an L
        extrapolates to the fourth corner with errors of several pixels, so finding it matters."""
        if H is None:
            src = np.vstack([self._board_corners[i] for i in sorted(found)]).astype(np.float64)
            dst = np.vstack([found[i] for i in sorted(found)]).astype(np.float64)
            H, _ = cv2.findHomography(src, dst, 0)
        if H is None:
            return
        for mid in sorted(wanted - set(found)):
            c = self._marker_px(mid, H)
            side = float(np.linalg.norm(c[1] - c[0]))
            pad = max(8.0, 0.8 * side)
            x0, y0, x1, y1 = _clamped_box(c, pad, pad, gray.shape)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            crop = cv2.resize(gray[y0:y1, x0:x1], None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
            corners, ids, _ = self._retry.detectMarkers(crop)
            if ids is None:
                continue
            for cc, i in zip(corners, ids.ravel()):
                if int(i) == mid:
                    pts = cc.reshape(4, 2) / 2.0 + [x0 - 0.25, y0 - 0.25]
                    if float(np.max(np.linalg.norm(pts - c, axis=1))) <= max(6.0, 0.5 * side):
                        found[mid] = pts.astype(np.float32)
                    break

    def _agrees(self, H: np.ndarray | None, found: dict[int, np.ndarray], tol_px: float = 2.5) -> bool:
        if H is None:
            return False
        for i, c in found.items():
            if float(np.max(np.linalg.norm(self._marker_px(i, H) - c, axis=1))) > tol_px:
                return False
        return True
