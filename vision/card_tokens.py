"""Tokens on a play mat of card rows (The Great Wall), found by their rim and read by their face.

A token is a disc of known size whose rim stands out from what lies around it (``rim_map``: the
colour difference across a circle of the token's size, measured every ``RIM_STEP`` px); the
print's own circles and corners are taken off by the same map of the empty board. The strongest
rim spots are tried one by one, and the enrolled token face that matches best there
(``best``: ``FaceBook`` in its four turns) names the token's value, sure only when it beats every
other value's face by ``TOKEN_MARGIN`` (the caller leaves a section with a value not sure unread: a
token's value is never guessed); a spot that matches no face gives up only its own surroundings, so
a token beside a card's edge is still tried. With a detail still (``finer``, ``vision.card_detail``)
the value is read there instead: the token as found here, its value as the still shows it.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.faces import MIN_MARGIN

TOKEN_SCORE = 0.35  # a token face's correlation: at least this where a token lies ...
TOKEN_MARGIN = MIN_MARGIN  # ... and its value is sure when the best face beats every other value's by this much
                           # (else the token is there but its value is not known: the caller leaves it unread)
TOKEN_RIM = 85.0  # ... and its rim this sharp (summed BGR difference across it)
MISS_SPOT = 0.3  # a rim spot whose face matches no token gives up this share of a token's diameter around it
MAX_MISSES = 12  # rim spots per box tried in vain before the search stops (the print's edges are many)
RIM_MM = 2.0
RIM_STEP = 2  # px: the rim is measured on every other pixel (a token is 26 mm across)
RIM_ANGLES = 16
FINE_SCORE = 0.55  # a value read finer (``finer``: the detail still) is sure only with its face matched this well (own
                   # renders' stills: tokens 0.64-0.98; what the frame took for a token on a card's print, a dragon's
                   # index, 0.28-0.48, one of them read as a value with its lead. 0.5-0.6 read alike)

Box = tuple[int, int, int, int]
BestFace = Callable[[np.ndarray, tuple[float, float], list[Piece]], tuple[Piece | None, float, float]]
# a token's value read finer (the detail still, ``vision.card_detail``): at a token (mm), of these values, the best
# value, its score and its lead over the next, or None (not read finer: as the board image shows it)
FinerValue = Callable[[tuple[float, float], list[Piece]], tuple[Piece | None, float, float] | None]


class Token(NamedTuple):
    """A token found: where (mm), its value's kind, how well its face matched and whether that value
    is sure (``TOKEN_MARGIN`` ahead of every other value)."""

    x: float
    y: float
    kind: str
    score: float
    sure: bool


class TokenFinder:
    """Finds tokens in boxes of the rectified board (px), against the table's empty board."""

    def __init__(self, reference: np.ndarray, s: float, token_d: float, token_kinds: Sequence[str], best: BestFace,
                 finer: FinerValue | None = None):
        """``best`` finds a token's face on the board image (a token lies there when it matches at
        least ``TOKEN_SCORE``); ``finer``, when it reads the value, says the value instead."""
        self.finer = finer
        self.reference = reference
        self.s = s
        self.token_d = token_d
        self.candidates = [Piece("neutral", k) for k in token_kinds]
        self.best = best
        self._ref_rims: dict[Box, np.ndarray | None] = {}

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
            if kind is not None and score >= TOKEN_SCORE:
                cv2.circle(work, loc, r, -1.0, -1)
                sure = margin >= TOKEN_MARGIN
                finer = self.finer((cx, cy), self.candidates) if self.finer is not None else None
                if finer is not None:  # the value as read finer; the token's presence (and score) as found here
                    value, value_score, lead = finer
                    kind = value or kind
                    sure = value is not None and value_score >= FINE_SCORE and lead >= TOKEN_MARGIN
                out.append(Token(cx, cy, kind.kind, score, sure))
            else:
                cv2.circle(work, loc, near, -1.0, -1)
                misses += 1
        return out

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


__all__ = ["FINE_SCORE", "FinerValue", "Token", "TokenFinder", "TOKEN_MARGIN", "TOKEN_SCORE", "TOKEN_RIM"]
