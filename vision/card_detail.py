"""Token values of a card-row table (The Great Wall) read on the detail still.

At 1280 x 720 a play mat is imaged at 0.5-1.4 px/mm: a 26 mm token's printed value is a few
pixels, and its best enrolled face may lead the next value by less than ``TOKEN_MARGIN`` (the
token is then reported without its value, ``token-?``) or lead wrongly. The reader still finds tokens in the watched frame
(their rim, a face matched at all) and, when the read has a detail still (``vision.detail_still``:
taken once, at the first token found in a section read), reads each token's value in a view of
the still ``VIEW_PX_PER_MM`` fine, against token faces enrolled at that same scale (``DETAIL`` keys
of the table model's faces, cut from the enrolment photo through its own homography where that
photo is fine enough: a camera with a still port takes its enrolment photo as a still). The margin
rule is kept: a value not sure in the still is left out (``token-?``).
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from scorer.core.types import Piece
from vision.counted_values import MIN_FRAME_PX_PER_MM, counter_view, frame_scale
from vision.faces import FaceBook, token
from vision.layout import Layout

VIEW_PX_PER_MM = 2.0  # a token's value is read in a view of the still this fine (a 2560 x 1440 still shows the mat at
                      # 1-1.4 px/mm; Zhang Yi's 10 mm digits take 3, a token's value is twice as big)
DETAIL = "@detail"  # a token face enrolled for the detail still: its key in the table model's faces (token + this)
VIEW_SIDE_MM = 30.0  # the view cut round a token: its compared face (18 mm) and the search around it
TURN_STEP_DEG = (0.0, 15.0, 30.0, 45.0, 60.0, 75.0)  # the view is read turned by each of these (the faces by quarter
                                                     # turns): a token lies at any angle, and at the still's scale a
                                                     # face turned 15 degrees matches poorly

Value = tuple[Piece | None, float, float]  # the best face, its score, its lead over the next value's
Gain = Callable[[tuple[float, float]], np.ndarray | None]  # the light correction (B, G, R factors) at a board point (mm)


def detail_faces(faces: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The faces enrolled for the detail still, keyed as ``vision.faces`` keys them (``DETAIL`` cut off)."""
    return {k[:-len(DETAIL)]: v for k, v in faces.items() if k.endswith(DETAIL)}


def corrected_view(image: np.ndarray, homography: np.ndarray, at_mm: tuple[float, float], side_mm: float,
                   gain: np.ndarray | None, angle_deg: float = 0.0) -> np.ndarray:
    """A ``side_mm`` square of ``image`` (board mm -> px: ``homography``) round ``at_mm``, turned by
    ``angle_deg``, ``VIEW_PX_PER_MM`` fine, times the board's light correction there (``gain``)."""
    view = counter_view(image, homography, at_mm, angle_deg, side_mm, VIEW_PX_PER_MM)
    if gain is None:
        return view
    return np.clip(view.astype(np.float32) * np.asarray(gain, np.float32).reshape(1, 1, 3), 0, 255).astype(np.uint8)


def learn_detail_tokens(layout: Layout, photo: np.ndarray, homography: np.ndarray,
                        tokens: Sequence[tuple[Piece, tuple[float, float]]], gain: Gain) -> dict[str, np.ndarray]:
    """Each token's face (its middle ``TOKEN_FACE_MM`` square) cut from the enrolment photo at
    ``VIEW_PX_PER_MM`` for the detail still, keyed ``token(piece) + DETAIL``; none where the photo is
    coarser than ``MIN_FRAME_PX_PER_MM`` there (a face blurred into a blob would be compared with a
    sharp still). ``tokens``: each token and its centre (mm) as found on the board image."""
    from vision.card_enrol import TOKEN_FACE_MM

    out: dict[str, np.ndarray] = {}
    for piece, at in tokens:
        if str(piece.owner) == "neutral" and frame_scale(homography, at) >= MIN_FRAME_PX_PER_MM:
            out[token(piece) + DETAIL] = corrected_view(photo, homography, at, TOKEN_FACE_MM, gain(at))
    return out


class DetailValues:
    """Reads token values in the detail still against the faces enrolled for it (``DETAIL``)."""

    def __init__(self, layout: Layout, faces: Mapping[str, np.ndarray]):
        self.book = FaceBook(layout, detail_faces(faces), VIEW_PX_PER_MM)

    def __bool__(self) -> bool:
        return bool(self.book)

    def value(self, still: np.ndarray, homography: np.ndarray, at_mm: tuple[float, float], candidates: Sequence[Piece],
              gain: np.ndarray | None, search_mm: float) -> Value | None:
        """The value of the token centred near ``at_mm`` in ``still`` (``homography``: board mm ->
        still px): the best candidate over the view's turns, its score and its lead over every other
        value; None where the still is too coarse there or no face is known."""
        known = [p for p in candidates if self.book.knows(p)]
        if len(known) < len(candidates) or frame_scale(homography, at_mm) < MIN_FRAME_PX_PER_MM:
            return None
        s = VIEW_PX_PER_MM
        n = int(round(VIEW_SIDE_MM * s))
        origin = (int(round(at_mm[0] * s - n / 2)), int(round(at_mm[1] * s - n / 2)))
        turns = []  # per turn of the view: the best value, its score, the best other value's score
        for angle in TURN_STEP_DEG:
            m = self.book.match(corrected_view(still, homography, at_mm, VIEW_SIDE_MM, gain, angle), at_mm, known,
                                origin_px=origin, search_mm=search_mm)
            turns.append((m.best, m.score, m.second))
        top, score, _ = max(turns, key=lambda t: t[1])
        # every other value's best, over all turns: the best of a turn where another value led, else its second
        other = max((s if p != top else second for p, s, second in turns), default=-1.0)
        return top, score, (score - other) if len(known) > 1 else 1.0


__all__ = ["DETAIL", "DetailValues", "corrected_view", "detail_faces", "learn_detail_tokens"]
