"""The board's pose from its outline and its markers' printed patterns, when no marker decodes.

A board far from the camera (filling half of a 1280 px frame) shows its corner markers ~15 px
across, about two pixels a cell: blurred a little, not one decodes, and the enrolment photo is
refused although the board is plain to see. Its outline (``board_outline.board_quads``) places
the board up to its turn: which image corner is the board's top-left. Each of the four turns
puts the markers somewhere; the tag patterns (generated from the layout's dictionary, as
``tableref vision markers`` prints them) match the photo in one turn only. The turn whose four
patterns all match clearly, and clearly better than any other turn, is taken, and the pose is
fitted to where the patterns were found (their centres, not the outline: the layout places the
markers, and a board's edge may be rounded or shadowed).

Used only for a registration with nothing to start from (an enrolment photo): a watched frame
has the enrolment photo's pose and look (``table_registration``).

Two markers decoded and no outline found (a pool of light on the table joins the board in any
threshold): the decoded markers place the board's far side only within several centimetres when
they lie on one edge, so the other markers' patterns are looked for far round where they put them,
the best match taken first and the pose refitted with it before the next is looked for
(``homography_from_decoded``).

Photoreal China seed 31 (data/vision/photoreal-china31), the six tables' empty-board photos: the
patterns correlate 0.97-0.99 on the mean in the right turn (each marker at least 0.95), at most 0.67 in
any other; t00's markers are decoded in none of its photos. Seed 51 t03 (two markers decoded per
photo, no outline): its empty and enrolment photos placed 0.03 px apart.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from vision.board_outline import board_quads
from vision.layout import Layout
from vision.marker_squares import subpixel_peak
from vision.markers import dictionary

PX_PER_MM = 3.0  # the patterns are matched on the photo rectified at this scale
MARGIN_MM = 4.0  # of white round each pattern's black square (printed markers have at least this)
SEARCH_MM = 6.0  # a pattern is looked for this far from where the outline puts it
BLURS_PX = (0.5, 1.0, 1.5, 2.0)  # the patterns blurred as the photo may be (σ in the photo's px)
MIN_PEAK = 0.8  # every marker's pattern must match at least this well (normalised correlation)
MIN_LEAD = 0.15  # and the turn's mean better than any other turn's by this much
REFITS = 2  # the patterns matched again from the pose they gave
DECODED_SEARCH_MM = 90.0  # from decoded markers, the others' patterns are looked for this far off
MIN_STEP_PEAK = 0.6  # the best of them taken on the way at this (every one is checked at MIN_PEAK at the end)


@lru_cache(maxsize=32)
def _pattern(dictionary_name: str, marker_id: int, side_px: int, margin_px: int) -> np.ndarray:
    img = cv2.aruco.generateImageMarker(dictionary(dictionary_name), marker_id, 240)
    img = cv2.resize(img, (side_px, side_px), interpolation=cv2.INTER_AREA)
    return cv2.copyMakeBorder(img, margin_px, margin_px, margin_px, margin_px, cv2.BORDER_CONSTANT,
                              value=255).astype(np.float32)


def _patterns(layout: Layout, marker_id: int, H: np.ndarray, centre: tuple[float, float]) -> list[np.ndarray]:
    """The marker's pattern at ``PX_PER_MM``, blurred as ``BLURS_PX`` of the photo are there."""
    side = int(round(layout.marker_size * PX_PER_MM))
    sharp = _pattern(layout.dictionary, marker_id, side, int(round(MARGIN_MM * PX_PER_MM)))
    photo_px_per_mm = _local_scale(H, centre)
    return [cv2.GaussianBlur(sharp, (0, 0), b * PX_PER_MM / photo_px_per_mm) for b in BLURS_PX]


def _local_scale(H: np.ndarray, centre: tuple[float, float]) -> float:
    """The photo's pixels per board mm at ``centre`` (the mean of ``H``'s two local scales)."""
    x, y = centre
    p = cv2.perspectiveTransform(np.float64([[[x, y]], [[x + 1, y]], [[x, y + 1]]]), H).reshape(3, 2)
    return max(0.05, 0.5 * (float(np.linalg.norm(p[1] - p[0])) + float(np.linalg.norm(p[2] - p[0]))))


def _match(gray: np.ndarray, H: np.ndarray, centre: tuple[float, float], patterns: list[np.ndarray],
           search_mm: float = SEARCH_MM) -> tuple[float, np.ndarray]:
    """How well the marker's pattern matches within ``search_mm`` of where ``H`` (board mm -> px) puts
    it, and where (its centre in board mm by ``H``)."""
    n0 = patterns[0].shape[0]
    reach = n0 / (2 * PX_PER_MM) + search_mm
    n = int(round(2 * reach * PX_PER_MM))
    c = np.asarray(centre, float)
    T = np.array([[PX_PER_MM, 0, -(c[0] - reach) * PX_PER_MM], [0, PX_PER_MM, -(c[1] - reach) * PX_PER_MM], [0, 0, 1.0]])
    region = cv2.warpPerspective(gray, H @ np.linalg.inv(T), (n, n),
                                 flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0).astype(np.float32)
    best = (-1.0, c)
    for p in patterns:
        score = cv2.matchTemplate(region, p, cv2.TM_CCOEFF_NORMED)
        _, peak, _, (x, y) = cv2.minMaxLoc(score)
        if peak > best[0]:
            at = (np.array([x, y], float) + subpixel_peak(score, (x, y)) + n0 / 2.0) / PX_PER_MM + (c - reach)
            best = (float(peak), at)
    return best


def _matches(gray: np.ndarray, H: np.ndarray, layout: Layout) -> tuple[list[float], np.ndarray]:
    peaks, found = [], []
    for m in layout.markers:
        peak, at = _match(gray, H, m.centre, _patterns(layout, m.id, H, m.centre))
        peaks.append(peak)
        found.append(at)
    return peaks, np.float64(found)


def homography_from_tag_patterns(gray: np.ndarray, layout: Layout) -> np.ndarray | None:
    """Board mm -> image px from the board's outline turned as its markers' patterns say; None
    unless one turn's patterns all match clearly (``MIN_PEAK``) and lead every other turn
    (``MIN_LEAD``)."""
    if len(layout.markers) < 4:
        return None
    w, h = layout.size
    board = np.float32([[0, 0], [w, 0], [w, h], [0, h]])  # clockwise, y down, as board_quads gives
    centres = np.float64([m.centre for m in layout.markers])
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for quad in board_quads(gray):
        turns = []
        for k in range(4):
            H = cv2.getPerspectiveTransform(board, np.roll(quad, -k, axis=0).astype(np.float32))
            peaks, found = _matches(gray, H, layout)
            turns.append((float(np.mean(peaks)), min(peaks), H, found))
        turns.sort(key=lambda t: -t[0])
        mean, least, H, found = turns[0]
        if least < MIN_PEAK or mean - turns[1][0] < MIN_LEAD:
            continue
        if best is None or mean > best[0]:
            best = (mean, H, found)
    if best is None:
        return None
    _, H, found = best
    return _refined(gray, layout, H, found, centres)


def homography_from_decoded(gray: np.ndarray, layout: Layout, decoded: dict[int, np.ndarray]) -> np.ndarray | None:
    """Board mm -> image px from two or more decoded markers (id -> 4 image corners) and the others'
    printed patterns, found one at a time: two markers on one edge place the far side only within
    several centimetres, so the far marker matching best within ``DECODED_SEARCH_MM`` is taken first,
    the pose refitted with it, and the next looked for from there. None unless every pattern then
    matches clearly (``MIN_PEAK``). For when the board's outline is not found (a pool of light on the
    table beside it)."""
    if len(decoded) < 2 or len(layout.markers) < 4:
        return None
    corners = layout.marker_corners_mm()
    centre_of = {m.id: np.asarray(m.centre, np.float64) for m in layout.markers}
    src = [corners[i] for i in sorted(decoded)]
    dst = [np.asarray(decoded[i], np.float64) for i in sorted(decoded)]
    H, _ = cv2.findHomography(np.vstack(src), np.vstack(dst), 0)
    todo = [m for m in layout.markers if m.id not in decoded]
    while todo and H is not None:
        tried = [(*_match(gray, H, m.centre, _patterns(layout, m.id, H, m.centre), DECODED_SEARCH_MM), m)
                 for m in todo]
        peak, at, m = max(tried, key=lambda t: t[0])
        if peak < MIN_STEP_PEAK:
            return None
        src.append(centre_of[m.id].reshape(1, 2))
        dst.append(cv2.perspectiveTransform(at.reshape(1, 1, 2), H).reshape(1, 2))
        todo.remove(m)
        H, _ = cv2.findHomography(np.vstack(src), np.vstack(dst), 0)
    if H is None:
        return None
    peaks, found = _matches(gray, H, layout)
    if min(peaks) < MIN_PEAK:
        return None
    return _refined(gray, layout, H, found, np.float64([m.centre for m in layout.markers]))


def _refined(gray: np.ndarray, layout: Layout, H: np.ndarray, found: np.ndarray, centres: np.ndarray
             ) -> np.ndarray | None:
    """The pose fitted to the patterns' centres, matched ``REFITS`` times more from the pose they gave."""
    for _ in range(REFITS):
        H = _fitted(H, found, centres)
        peaks, found = _matches(gray, H, layout)
        if min(peaks) < MIN_PEAK:
            return None
    return _fitted(H, found, centres)


def _fitted(H: np.ndarray, found: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The pose that puts the markers' centres where ``H`` saw their patterns (``found``, board mm by ``H``)."""
    image_pts = cv2.perspectiveTransform(found.reshape(-1, 1, 2), H).reshape(-1, 2)
    return cv2.getPerspectiveTransform(centres.astype(np.float32), image_pts.astype(np.float32))
