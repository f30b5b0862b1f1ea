"""Pieces told apart by their printed top face (a Cheops tile's portrait, a card's type picture,
a counter's digit), learned from the user's own enrolment photo.

A layout's piece kind may say ``"face": {"label": "A"}`` (``PieceSpec.printed``): its copies
look alike but for the artwork on top. Enrolment (``vision.enrolment.enrol``) already has one
piece of each type alone on a planned space; ``learn_faces`` cuts each printed piece's top face
out of that photo, rectified to board mm and light-corrected against the empty board, and keeps
it in the table model (``TableModel.faces``). When reading, ``FaceBook.match`` compares a space's
rectified crop with the faces of the kinds the space may hold, in each of the four turns a piece
may lie in, by normalised cross-correlation (OpenCV's ``TM_CCOEFF_NORMED``, every face and turn at
once: ``vision.face_correlation``) over a small search window, so a piece a few mm off centre is
still found, and says which kind lies there, or that
it is not sure (best match weak, or a second kind nearly as good): a caller then leaves the space
unread rather than guess. Whether a piece lies there at all (and counting) is the reader's job.

Nothing here knows a game: faces are keyed by piece (owner and kind), sizes come from the layout.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.face_correlation import TemplateStack, ccoeff_normed
from vision.geometry import parallax
from vision.layout import Layout, PieceSpec

FACE_SHARE = 0.8  # of the piece's top face: the middle part kept (its edge mixes with the board and its walls)
SEARCH_MM = 4.5  # a piece lies this far off its expected place at most (placement, parallax, registration)
COLOUR_WEIGHT = 0.3  # correlation ignores the face's mean colour: a face this far off in colour ...
COLOUR_SCALE = 0.1  # ... (chromaticity, b+g+r = 1: brightness, which light correction leaves uneven on a
                    # board covered with tiles, does not count) loses COLOUR_WEIGHT of its score
SMOOTH_SIGMA = 0.8  # px: both the face and the crop are blurred a little (JPEG, noise, focus differ)
MIN_SCORE = 0.65  # a best correlation below this is no match: not sure
MIN_MARGIN = 0.08  # the best kind must beat the second by this much: else not sure


@dataclass(frozen=True)
class FaceMatch:
    """Which printed piece lies on a space: ``piece`` None when not sure (see ``sure``)."""

    piece: Piece | None
    score: float  # the best correlation (-1..1)
    second: float  # the best correlation of any other candidate kind
    turn: int  # quarter turns of the best match
    offset_mm: tuple[float, float]  # where it was found, from the expected centre
    best: Piece | None = None  # the best-matching candidate, sure or not (``match``)

    @property
    def sure(self) -> bool:
        return self.piece is not None


def face_side_mm(spec: PieceSpec) -> tuple[float, float]:
    """(width, length) of the part of the top face that is compared."""
    if spec.footprint == "circle":
        d = spec.size[0] / np.sqrt(2)  # the inscribed square of a disc
        return FACE_SHARE * d, FACE_SHARE * d
    return FACE_SHARE * spec.size[0], FACE_SHARE * spec.size[-1]


def token(piece: Piece) -> str:
    return f"{piece.owner}:{piece.kind}"


def from_token(text: str) -> Piece:
    owner, kind = text.split(":", 1)
    return Piece(owner, kind)


def _crop(img: np.ndarray, cx: float, cy: float, w: int, h: int) -> np.ndarray | None:
    """A w x h crop centred at pixel (cx, cy) (sub-pixel, by an affine warp); None off the image."""
    H, W = img.shape[:2]
    if cx - w / 2 < 0 or cy - h / 2 < 0 or cx + w / 2 > W or cy + h / 2 > H:
        return None
    M = np.float32([[1, 0, w / 2 - cx], [0, 1, h / 2 - cy]])
    return cv2.warpAffine(img, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def locate(corrected: np.ndarray, reference: np.ndarray, centre_px: tuple[float, float], size_px: tuple[int, int],
           search_px: int) -> tuple[float, float]:
    """Where a lone piece of footprint ``size_px`` lies near ``centre_px``: the middle of the
    outline of what differs from the empty board there (Otsu's threshold on the difference, the
    biggest part, its smallest enclosing rectangle). The face's art does not pull it (a template
    centred off the piece would shift with each turn of the piece)."""
    w, h = size_px
    cx, cy = centre_px
    m = search_px + 3
    x0, y0 = int(round(cx - w / 2 - m)), int(round(cy - h / 2 - m))
    x1, y1 = x0 + w + 2 * m, y0 + h + 2 * m
    if x0 < 0 or y0 < 0 or x1 > corrected.shape[1] or y1 > corrected.shape[0]:
        return cx, cy
    diff = cv2.absdiff(corrected[y0:y1, x0:x1], reference[y0:y1, x0:x1]).astype(np.float32).sum(axis=2)
    diff = cv2.GaussianBlur(diff, (0, 0), 1.0)
    d8 = np.clip(diff / max(1.0, float(diff.max())) * 255, 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(d8, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return cx, cy
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    pts = np.column_stack(np.nonzero(lbl == best)[::-1]).astype(np.float32)
    (rx, ry), _, _ = cv2.minAreaRect(pts)
    nx, ny = x0 + rx, y0 + ry
    if abs(nx - cx) > search_px or abs(ny - cy) > search_px:
        return cx, cy
    return float(nx), float(ny)


def top_centre_mm(spec: PieceSpec, centre_mm: Sequence[float], cam: np.ndarray | None) -> tuple[float, float]:
    """Where a piece standing at ``centre_mm`` shows its top face: displaced by the parallax of its height."""
    d = parallax(np.asarray(centre_mm, float).reshape(1, 2), cam, spec.height)[0] if cam is not None else (0.0, 0.0)
    return float(centre_mm[0] + d[0]), float(centre_mm[1] + d[1])


def learn_faces(layout: Layout, corrected: np.ndarray, reference: np.ndarray, placed: Mapping[str, Piece],
                px_per_mm: float, cam: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Each printed piece's face (BGR uint8, upright as it lay) from the enrolment photo, rectified
    (``corrected``: the photo rectified to the board and light-corrected against the empty board
    ``reference``); keyed by ``token(piece)``. Pieces without a printed face are skipped."""
    out: dict[str, np.ndarray] = {}
    s = px_per_mm
    for sid, piece in placed.items():
        spec = layout.pieces[piece.kind]
        if not spec.printed:
            continue
        sp = layout.space(sid)
        x, y = top_centre_mm(spec, sp.centre, cam)
        foot = (int(round(spec.size[0] * s)), int(round(spec.size[-1] * s)))
        cx, cy = locate(corrected, reference, (x * s, y * s), foot, int(round(SEARCH_MM * s)))
        fw, fh = face_side_mm(spec)
        crop = _crop(corrected, cx, cy, int(round(fw * s)), int(round(fh * s)))
        if crop is not None:
            out[token(piece)] = crop
    return out


def _chromaticity(img: np.ndarray) -> np.ndarray:
    """The mean colour with its brightness divided out (b, g, r shares)."""
    mean = np.asarray(cv2.mean(img)[:3], np.float32) + 1.0  # cv2.mean: ~6x faster than numpy's on a face
    return mean / mean.sum()


class FaceBook:
    """The faces a table's printed pieces show (from its enrolment), and the matching of a crop
    against them."""

    def __init__(self, layout: Layout, faces: Mapping[str, np.ndarray], px_per_mm: float):
        self.layout = layout
        self.s = px_per_mm
        self.turned: dict[Piece, list[tuple[int, np.ndarray]]] = {}
        self.chroma: dict[Piece, np.ndarray] = {}
        self._faces: dict[Piece, np.ndarray] = {}  # as enrolled (for ``blurred``)
        self._blurred: dict[float, FaceBook] = {}
        self._stacks: dict[tuple[Piece, ...], list[tuple[list[tuple[Piece, int]], TemplateStack]]] = {}
        for tok, face in faces.items():
            piece = from_token(tok)
            if piece.kind not in layout.pieces:
                continue
            self._faces[piece] = face
            self._add(piece, cv2.GaussianBlur(face, (0, 0), SMOOTH_SIGMA))

    def _add(self, piece: Piece, f: np.ndarray) -> None:
        square = f.shape[0] == f.shape[1]
        self.turned[piece] = [(k, np.ascontiguousarray(np.rot90(f, k))) for k in ((0, 1, 2, 3) if square else (0, 2))]
        self.chroma[piece] = _chromaticity(f)

    def blurred(self, sigma: float) -> FaceBook:
        """This book with its faces blurred by ``sigma`` px more (a frame that much more blurred than
        the enrolment photo, ``vision.frame_blur``): a sharp face correlates poorly with the same
        tile out of focus. Itself for no blur; each blur's book is built once."""
        if sigma <= 0:
            return self
        key = round(float(sigma), 2)
        if key not in self._blurred:
            book = copy.copy(self)
            book.turned, book.chroma, book._blurred, book._stacks = {}, {}, {}, {}
            total = float(np.hypot(SMOOTH_SIGMA, key))
            for piece, face in self._faces.items():
                book._add(piece, cv2.GaussianBlur(face, (0, 0), total))
            self._blurred[key] = book
        return self._blurred[key]

    def __bool__(self) -> bool:
        return bool(self.turned)

    def knows(self, piece: Piece) -> bool:
        return piece in self.turned

    def match(self, corrected: np.ndarray, centre_mm: Sequence[float], candidates: Sequence[Piece],
              origin_px: tuple[int, int] = (0, 0), search_mm: float = SEARCH_MM) -> FaceMatch:
        """Which of ``candidates`` (printed pieces of one footprint) lies with its face centred near
        ``centre_mm`` in ``corrected`` (the rectified, light-corrected board, or a crop of it whose
        top-left is board pixel ``origin_px``). Not sure: ``piece`` None."""
        known = [p for p in candidates if p in self.turned]
        if not known:
            return FaceMatch(None, -1.0, -1.0, 0, (0.0, 0.0))
        r = int(round(search_mm * self.s))
        best: dict[Piece, tuple[float, int, tuple[float, float]]] = {}
        cx, cy = centre_mm[0] * self.s - origin_px[0], centre_mm[1] * self.s - origin_px[1]
        for entries, stack in self._stacked(tuple(known)):
            th, tw = stack.shape[:2]
            win = _crop(corrected, cx, cy, tw + 2 * r, th + 2 * r)
            if win is None:
                continue
            win = cv2.GaussianBlur(win, (0, 0), SMOOTH_SIGMA)
            for (piece, k), res in zip(entries, ccoeff_normed(win, stack)):
                _, v, _, loc = cv2.minMaxLoc(res)
                if piece in best and v <= best[piece][0]:
                    continue
                # the correlation is blind to the face's mean colour: a face of another colour costs
                patch = win[loc[1]:loc[1] + th, loc[0]:loc[0] + tw]
                d = float(np.linalg.norm(_chromaticity(patch) - self.chroma[piece]))
                v = float(v) - COLOUR_WEIGHT * min(1.0, d / COLOUR_SCALE)
                if piece not in best or v > best[piece][0]:
                    best[piece] = (v, k, ((loc[0] - r) / self.s, (loc[1] - r) / self.s))
        best = {p: best[p] for p in known if p in best}  # ties ranked in the candidates' order
        if not best:
            return FaceMatch(None, -1.0, -1.0, 0, (0.0, 0.0))
        ranked = sorted(best.items(), key=lambda kv: -kv[1][0])
        top, (score, turn, off) = ranked[0]
        second = ranked[1][1][0] if len(ranked) > 1 else -1.0
        sure = score >= MIN_SCORE and score - second >= MIN_MARGIN
        return FaceMatch(top if sure else None, score, second, turn, off, top)

    def _stacked(self, known: tuple[Piece, ...]) -> list[tuple[list[tuple[Piece, int]], TemplateStack]]:
        """``known``'s faces in every turn, grouped by size for ``ccoeff_normed``: (piece, turn) of each
        template, and the stack. Built once per candidate list."""
        if known not in self._stacks:
            groups: dict[tuple[int, ...], list[tuple[Piece, int, np.ndarray]]] = {}
            for piece in known:
                for k, tmpl in self.turned[piece]:
                    groups.setdefault(tmpl.shape, []).append((piece, k, tmpl))
            self._stacks[known] = [([(p, k) for p, k, _ in g], TemplateStack.of([t for _, _, t in g]))
                                   for g in groups.values()]
        return self._stacks[known]

    def find(self, corrected: np.ndarray, box_px: tuple[int, int, int, int], candidates: Sequence[Piece], count: int,
             origin_px: tuple[int, int] = (0, 0)) -> list[FaceMatch]:
        """Up to ``count`` printed pieces (of ``candidates``) lying anywhere in the board-pixel box
        ``box_px`` (x0, y0, x1, y1; a space holding several cards or counters): the best match,
        then the next best at least a piece's width away, and so on. Each result's
        ``offset_mm`` is its face centre in board mm (not an offset); an unsure one has ``piece``
        None (the caller leaves the space unread)."""
        known = [p for p in candidates if p in self.turned]
        x0, y0, x1, y1 = (int(v) for v in box_px)
        ox, oy = origin_px
        win = corrected[max(0, y0 - oy):max(0, y1 - oy), max(0, x0 - ox):max(0, x1 - ox)]
        if not known or win.size == 0:
            return []
        win = cv2.GaussianBlur(win, (0, 0), SMOOTH_SIGMA)
        maps: list[tuple[Piece, int, np.ndarray, tuple[int, int]]] = []
        for piece in known:
            for k, tmpl in self.turned[piece]:
                th, tw = tmpl.shape[:2]
                if th > win.shape[0] or tw > win.shape[1]:
                    continue
                maps.append((piece, k, cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED), (tw, th)))
        out: list[FaceMatch] = []
        blocked: list[tuple[float, float, float]] = []  # centres found (px in win) and their radius
        for _ in range(count):
            found: dict[Piece, tuple[float, int, tuple[float, float]]] = {}
            for piece, k, res, (tw, th) in maps:
                r = res.copy()
                for bx, by, rad in blocked:  # a piece's place is taken: no second piece there
                    cv2.circle(r, (int(bx - tw / 2), int(by - th / 2)), int(rad), -1.0, -1)
                _, v, _, loc = cv2.minMaxLoc(r)
                patch = win[loc[1]:loc[1] + th, loc[0]:loc[0] + tw]
                v = float(v) - COLOUR_WEIGHT * min(1.0, float(np.linalg.norm(_chromaticity(patch) - self.chroma[piece])) / COLOUR_SCALE)
                if piece not in found or v > found[piece][0]:
                    found[piece] = (v, k, (loc[0] + tw / 2, loc[1] + th / 2))
            if not found:
                break
            ranked = sorted(found.items(), key=lambda kv: -kv[1][0])
            top, (score, turn, (cx, cy)) = ranked[0]
            # the second kind is compared at the same place (another place is another piece)
            second = max((self._score_at(win, p, cx, cy) for p in known if p != top), default=-1.0)
            sure = score >= MIN_SCORE and score - second >= MIN_MARGIN
            centre = ((x0 + cx) / self.s, (y0 + cy) / self.s)
            out.append(FaceMatch(top if sure else None, score, second, turn, centre))
            tw, th = self.turned[top][0][1].shape[1::-1]
            blocked.append((cx, cy, 0.8 * min(tw, th) / FACE_SHARE))
        return out

    def _score_at(self, win: np.ndarray, piece: Piece, cx: float, cy: float, reach: int = 2) -> float:
        """The best score of ``piece`` (any turn) centred within ``reach`` px of (cx, cy) in ``win``."""
        best = -1.0
        for _, tmpl in self.turned[piece]:
            th, tw = tmpl.shape[:2]
            sub = _crop(win, cx, cy, tw + 2 * reach, th + 2 * reach)
            if sub is None:
                continue
            res = cv2.matchTemplate(sub, tmpl, cv2.TM_CCOEFF_NORMED)
            _, v, _, loc = cv2.minMaxLoc(res)
            patch = sub[loc[1]:loc[1] + th, loc[0]:loc[0] + tw]
            v = float(v) - COLOUR_WEIGHT * min(1.0, float(np.linalg.norm(_chromaticity(patch) - self.chroma[piece])) / COLOUR_SCALE)
            best = max(best, v)
        return best


def bare_likeness(corrected: np.ndarray, reference: np.ndarray, centre_mm: Sequence[float], face_mm: tuple[float, float],
                  px_per_mm: float, blur_px: float = 0.0, search_mm: float = SEARCH_MM) -> float:
    """How well the empty board's print under a face-sized patch at ``centre_mm`` (``reference``,
    blurred ``blur_px`` more as the frame is) matches ``corrected`` there, as ``FaceBook.match`` scores
    a face (normalised correlation, best within ``search_mm``): the competitor of the faces where
    nothing differs from the board in colour. -1 off the board."""
    s = px_per_mm
    tw, th = int(round(face_mm[0] * s)), int(round(face_mm[1] * s))
    r = int(round(search_mm * s))
    cx, cy = centre_mm[0] * s, centre_mm[1] * s
    board = _crop(reference, cx, cy, tw, th)
    win = _crop(corrected, cx, cy, tw + 2 * r, th + 2 * r)
    if board is None or win is None:
        return -1.0
    board = cv2.GaussianBlur(board, (0, 0), float(np.hypot(SMOOTH_SIGMA, blur_px)))
    res = cv2.matchTemplate(cv2.GaussianBlur(win, (0, 0), SMOOTH_SIGMA), board, cv2.TM_CCOEFF_NORMED)
    return float(res.max())


def face_candidates(layout: Layout, kinds: Sequence[str], owner: str) -> list[Piece]:
    """The printed pieces among ``kinds`` (a space's held kinds) for one owner: what ``match``
    chooses from once the reader knows a piece of that owner lies there."""
    return [Piece(owner, k) for k in kinds if layout.pieces[k].printed
            and (layout.pieces[k].neutral == (owner == "neutral"))]


def look_alikes(layout: Layout, kind: str) -> tuple[str, ...]:
    """The printed kinds a counted piece of ``kind`` may really be: same footprint, size, height
    and ownership (a reader that counts by colour and size cannot tell them apart)."""
    spec = layout.pieces[kind]
    return tuple(k for k, p in layout.pieces.items() if p.printed and p.footprint == spec.footprint
                 and tuple(p.size) == tuple(spec.size) and p.height == spec.height and p.neutral == spec.neutral)


def disagreement(book: FaceBook, corrected: np.ndarray, centre_mm: Sequence[float], m: FaceMatch,
                 origin_px: tuple[int, int] = (0, 0)) -> tuple[tuple[int, int], np.ndarray] | None:
    """Where a matched face does not look like the frame: the face (at the match's place and
    turn) fitted to the crop by a gain and offset per channel, pixels left far from the fit
    (a finger over part of a tile). Returns (top-left board px, bool mask), None when the
    crop leaves the board. For the hand test: what disagrees is not explained by the piece."""
    if m.piece is None or m.piece not in book.turned:
        return None
    tmpl = dict(book.turned[m.piece])[m.turn].astype(np.float32)
    th, tw = tmpl.shape[:2]
    cx = (centre_mm[0] + m.offset_mm[0]) * book.s - origin_px[0]
    cy = (centre_mm[1] + m.offset_mm[1]) * book.s - origin_px[1]
    crop = _crop(corrected, cx, cy, tw, th)
    if crop is None:
        return None
    p = cv2.GaussianBlur(crop, (0, 0), SMOOTH_SIGMA).astype(np.float32)
    t = tmpl.reshape(-1, 3)
    q = p.reshape(-1, 3)
    fit = np.empty_like(q)
    for c in range(3):
        tc, qc = t[:, c], q[:, c]
        var = float(tc.var())
        a = float(((tc - tc.mean()) * (qc - qc.mean())).mean() / var) if var > 1e-6 else 0.0
        fit[:, c] = a * (tc - tc.mean()) + qc.mean()
    res = np.abs(q - fit).sum(axis=1).reshape(th, tw)
    bad = res > max(DISAGREE_MIN, DISAGREE_SPREAD * float(np.median(res)))
    bad = cv2.morphologyEx(bad.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
    x0 = int(round(cx - tw / 2)) + origin_px[0]
    y0 = int(round(cy - th / 2)) + origin_px[1]
    return (x0, y0), bad


DISAGREE_MIN = 90.0  # summed over B, G, R: a pixel this far from the fitted face is not the face ...
DISAGREE_SPREAD = 4.0  # ... nor one this many times the crop's typical misfit
