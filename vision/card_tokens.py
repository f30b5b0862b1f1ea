"""Tokens on a play mat of card rows (The Great Wall), found by their rim and read by their face.

A token is a disc of known size whose rim stands out from what lies around it (``rim_map``: the
colour difference across a circle of the token's size, measured every ``RIM_STEP`` px); the
print's own circles and corners are taken off by the same map of the empty board. The strongest
rim spots are tried one by one, and the enrolled token face that matches best there
(``best``: ``FaceBook`` in its four turns) names the token's value, sure only when it beats every
other value's face by ``TOKEN_MARGIN`` (the caller reports a token whose value is not sure without
its value, ``token-?``: a token's value is never guessed); a spot that matches no face gives up only its own surroundings, so
a token beside a card's edge is still tried. With a detail still (``finer``, ``vision.card_detail``)
the value is read there instead: the token as found here, its value as the still shows it; a rim
spot whose best face the still matches less than ``PHANTOM_SCORE`` is no token (a card's print).

A token lying on its printed spot is found by its colour (``at_spots``): its rim and the spot's
printed outline, of one size, cancel out in the rim map, but the spot's middle, compared with the
empty board there, changes by far more than light and noise change it.
"""

from __future__ import annotations

from typing import Callable, Mapping, NamedTuple, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.faces import MIN_MARGIN, SMOOTH_SIGMA, from_token
from vision.layout import Layout

TOKEN_SCORE = 0.35  # a token face's correlation: at least this where a token lies ...
TOKEN_MARGIN = MIN_MARGIN  # ... and its value is sure when the best face beats every other value's by this much
                           # (else the token is there but its value is not known: the caller reports ``token-?``)
TOKEN_RIM = 85.0  # ... and its rim this sharp (summed BGR difference across it)
MISS_SPOT = 0.3  # a rim spot whose face matches no token gives up this share of a token's diameter around it
MAX_MISSES = 12  # rim spots per box tried in vain before the search stops (the print's edges are many)
RIM_MM = 2.0
RIM_STEP = 2  # px: the rim is measured on every other pixel (a token is 26 mm across)
RIM_ANGLES = 16
FINE_SCORE = 0.6  # a value read finer (``finer``: the detail still) is sure only with its face matched this well (own
                  # renders' stills: tokens 0.64-0.98; what the frame took for a token on a card's print, a dragon's
                  # index, 0.28-0.48. 0.55 until 2026-11-29: a claimed token 5 on the photoreal tune stills was read
                  # 4 at 0.59 with its lead; 0.6 costs no right value on own stills, 0.65 does)
PHANTOM_SCORE = 0.45  # ... and a rim spot is no token at all when the still's best face matches it less than this
                      # (photoreal GW stills, tuning split: what the rim took for a token on a card's print 0.29-0.38,
                      # real tokens 0.50-0.95; own renders' stills: the print 0.28-0.48, left unsure above 0.45)
SPOT_DE = 25.0  # 8-bit Lab distance from the empty board (median over a spot's middle): something lies on the spot
                # (photoreal GW tuning split, 76 spots: a token 49-80, an empty spot 2-9)
SPOT_CORE = 0.35  # the spot's middle compared: this share of a token's diameter as radius (tokens lie within
                  # 2 mm of a spot's centre; a neighbouring card's edge stays outside)
SPOT_CLAIMED = 0.5  # a token the rim search found this near a spot's centre (share of a diameter) is the spot's
LEGIBLE_STEP_DEG = 15.0  # ``values_legible``: other values' faces tried at every this many degrees of turn

Box = tuple[int, int, int, int]
BestFace = Callable[[np.ndarray, tuple[float, float], list[Piece]], tuple[Piece | None, float, float]]
# a token's value read finer (the detail still, ``vision.card_detail``): at a token (mm), of these values, the best
# value, its score and its lead over the next, or None (not read finer: as the board image shows it)
FinerValue = Callable[[tuple[float, float], list[Piece]], tuple[Piece | None, float, float] | None]


class Token(NamedTuple):
    """A token found: where (mm), its value's kind, how well its face matched, whether that value
    is sure (``TOKEN_MARGIN`` ahead of every other value) and whether a detail still confirmed it."""

    x: float
    y: float
    kind: str
    score: float
    sure: bool
    on_still: bool = False  # the detail still showed a token's face here (``PHANTOM_SCORE``): a token, whatever its value


class TokenFinder:
    """Finds tokens in boxes of the rectified board (px), against the table's empty board."""

    def __init__(self, reference: np.ndarray, s: float, token_d: float, token_kinds: Sequence[str], best: BestFace,
                 finer: FinerValue | None = None, legible: bool = True):
        """``best`` finds a token's face on the board image (a token lies there when it matches at
        least ``TOKEN_SCORE``); ``finer``, when it reads the value, says the value instead;
        ``legible``: whether the board image can tell values apart at all (``values_legible``; if
        not, a value is sure only as read finer)."""
        self.finer = finer
        self.legible = legible
        self.reference = reference
        self.s = s
        self.token_d = token_d
        self.candidates = [Piece("neutral", k) for k in token_kinds]
        self.best = best
        self._ref_rims: dict[Box, np.ndarray | None] = {}
        self._ref_spots: dict[Box, np.ndarray] = {}  # the empty board's Lab round each spot (``spot_difference``)

    def find(self, corrected: np.ndarray, box: Box) -> list[Token]:
        """The tokens found in ``box``."""
        rim = self.rim_map(corrected, box)
        if rim is None:
            return []
        if box not in self._ref_rims:  # the print's own circles and corners are no token
            self._ref_rims[box] = self.rim_map(self.reference, box)
        rim = rim - self._ref_rims[box]
        x0, y0 = box[:2]
        out = []
        r = int(round(1.1 * self.token_d * self.s / RIM_STEP))  # two tokens lie a diameter apart at least (the spots further)
        # a rim that is no token (a card's edge, a token's shadow) may lie just beside one: only its own spot is
        # given up, so that the token's spot is still tried (a disc as wide as a token would wipe it out)
        near = max(1, int(round(MISS_SPOT * self.token_d * self.s / RIM_STEP)))
        work = rim.copy()
        misses = 0
        while misses <= MAX_MISSES:
            _, v, _, loc = cv2.minMaxLoc(work)
            if v < TOKEN_RIM:
                break
            cx, cy = (x0 + loc[0] * RIM_STEP) / self.s, (y0 + loc[1] * RIM_STEP) / self.s
            kind, score, margin = self.best(corrected, (cx, cy), self.candidates)
            token = self._valued(cx, cy, kind, score, margin) if kind is not None and score >= TOKEN_SCORE else None
            if token is not None:
                cv2.circle(work, loc, r, -1.0, -1)
                out.append(token)
            else:
                cv2.circle(work, loc, near, -1.0, -1)
                misses += 1
        return out

    def _valued(self, x: float, y: float, kind: Piece, score: float, margin: float) -> Token | None:
        """The token at (x, y) mm with the value the board image gives it (``kind``, ``score``, its
        ``margin`` over the next value), or as the detail still reads it where there is one; None
        when the still shows no token's face there (``PHANTOM_SCORE``)."""
        sure = margin >= TOKEN_MARGIN and self.legible
        finer = self.finer((x, y), self.candidates) if self.finer is not None else None
        if finer is not None:  # the value as read finer; the token's presence (and score) as found here
            value, value_score, lead = finer
            if value_score < PHANTOM_SCORE:
                return None
            kind = value or kind
            sure = value is not None and value_score >= FINE_SCORE and lead >= TOKEN_MARGIN
        return Token(x, y, kind.kind, score, sure, finer is not None)

    def at_spots(self, corrected: np.ndarray, spots: Sequence[tuple[float, float]], found: Sequence[Token]) -> list[Token]:
        """Tokens lying on the printed ``spots`` (mm) that the rim search did not find (``found``):
        a spot whose middle differs from the empty board by ``SPOT_DE`` holds something, read as a
        token (its value as ``find`` reads one; where no value is sure, or the still shows no
        token's face, a token whose value is not sure: the caller reports it as ``token-?``, as
        whatever lies there may be a token)."""
        out = []
        for x, y in spots:
            if any(np.hypot(t.x - x, t.y - y) < SPOT_CLAIMED * self.token_d for t in found):
                continue
            if self.spot_difference(corrected, (x, y)) < SPOT_DE:
                continue
            kind, score, margin = self.best(corrected, (x, y), self.candidates)
            token = self._valued(x, y, kind, score, margin) if kind is not None else None
            out.append(token if token is not None else Token(x, y, (kind or self.candidates[0]).kind, score, False))
        return out

    def spot_difference(self, corrected: np.ndarray, at: tuple[float, float]) -> float:
        """The median 8-bit Lab distance between ``corrected`` and the empty board over the middle
        of the spot at ``at`` (mm)."""
        r = max(1, int(round(SPOT_CORE * self.token_d * self.s)))
        cx, cy = int(round(at[0] * self.s)), int(round(at[1] * self.s))
        h, w = corrected.shape[:2]
        x0, y0, x1, y1 = max(0, cx - r), max(0, cy - r), min(w, cx + r + 1), min(h, cy + r + 1)
        if x1 <= x0 or y1 <= y0:
            return 0.0
        disc = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.circle(disc, (cx - x0, cy - y0), r, 1, -1)
        box = (x0, y0, x1, y1)
        if box not in self._ref_spots:
            self._ref_spots[box] = _lab(self.reference[y0:y1, x0:x1])
        return float(np.median(np.linalg.norm(_lab(corrected[y0:y1, x0:x1]) - self._ref_spots[box], axis=2)[disc > 0]))

    def rim_map(self, image: np.ndarray, box: Box) -> np.ndarray | None:
        """For every ``RIM_STEP``-th pixel of ``box``: the median colour difference across the rim
        of a token's disc centred there (inside against outside); a token's edge stands out, a
        card's print has no such circle."""
        x0, y0, x1, y1 = box
        if x1 <= x0 or y1 <= y0:
            return None
        r = self.token_d / 2 * self.s
        reach = int(np.ceil(r + RIM_MM * self.s)) + 1
        img = cv2.copyMakeBorder(image, reach, reach, reach, reach, cv2.BORDER_REPLICATE).astype(np.int16)
        st = RIM_STEP
        diffs = []
        for a in np.linspace(0, 2 * np.pi, RIM_ANGLES, endpoint=False):
            c, sn = np.cos(a), np.sin(a)
            dxi, dyi = int(round((r - RIM_MM * self.s) * c)), int(round((r - RIM_MM * self.s) * sn))
            dxo, dyo = int(round((r + RIM_MM * self.s) * c)), int(round((r + RIM_MM * self.s) * sn))
            inner = img[y0 + reach + dyi:y1 + reach + dyi:st, x0 + reach + dxi:x1 + reach + dxi:st]
            outer = img[y0 + reach + dyo:y1 + reach + dyo:st, x0 + reach + dxo:x1 + reach + dxo:st]
            diffs.append(np.abs(inner - outer).sum(axis=2))
        return np.median(np.stack(diffs), axis=0).astype(np.float32)


def _lab(bgr: np.ndarray) -> np.ndarray:
    """8-bit Lab of a BGR crop, as float32."""
    return cv2.cvtColor(np.ascontiguousarray(bgr), cv2.COLOR_BGR2LAB).astype(np.float32)


def token_faces(layout: Layout, faces: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The faces of the layout's neutral pieces (the tokens face up) among a table's enrolled
    ``faces``, as the watched frame shows them (not the detail still's: their kinds carry ``DETAIL``)."""
    out = {}
    for k, f in faces.items():
        piece = from_token(k)
        spec = layout.pieces.get(piece.kind)
        if str(piece.owner) == "neutral" and spec is not None and spec.neutral:
            out[k] = f
    return out


def values_legible(faces: Mapping[str, np.ndarray], step_deg: float = LEGIBLE_STEP_DEG) -> bool:
    """Whether token faces as enrolled (``faces``: one per value, cut from the enrolment photo, so at
    the scale and blur the camera shows tokens at) tell the values apart with ``TOKEN_MARGIN`` to
    spare: each face, turned half a step, must correlate with itself better by that margin than
    any other value's face does at its best turn (tokens lie at any angle). Printed digits at half a
    pixel per mm do not (photoreal tables: another value correlates 0.96-0.98, the face itself turned
    0.98-1.0), so the margin rule would pick among near-equal scores: it read four tokens' values
    wrong, sure (3 as 4, 5 as 4, 4 as 8 twice). The project's renderer's tokens, a motif per value,
    keep 0.16-0.27 apart; its digits alone 0.10-0.15 at 1280 x 720."""
    smooth = {k: cv2.GaussianBlur(f, (0, 0), SMOOTH_SIGMA).astype(np.float32) for k, f in faces.items()}

    def turned(f: np.ndarray, deg: float) -> np.ndarray:
        h, w = f.shape[:2]
        m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), deg, 1.0)
        return cv2.warpAffine(f, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def ncc(a: np.ndarray, b: np.ndarray) -> float:
        return float(cv2.matchTemplate(a, b, cv2.TM_CCOEFF_NORMED)[0, 0]) if a.shape == b.shape else -1.0

    turns = np.arange(0.0, 360.0, step_deg)
    for k, f in smooth.items():
        itself = ncc(f, turned(f, step_deg / 2))
        for other, g in smooth.items():
            if other != k and max(ncc(f, turned(g, t)) for t in turns) > itself - TOKEN_MARGIN:
                return False
    return True


__all__ = ["FINE_SCORE", "FinerValue", "PHANTOM_SCORE", "SPOT_DE", "Token", "TokenFinder", "TOKEN_MARGIN", "TOKEN_SCORE",
           "TOKEN_RIM", "token_faces", "values_legible"]
