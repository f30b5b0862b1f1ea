"""BoardReader's occlusion test: spaces under a hand or an arm, which are never read.

Evidence on the rectified board: unexplained foreground (differs a little from the board, is no
piece colour, not in the halo around pieces) and vanished print (10 mm blocks where the board's
printed lines are gone and no piece explains it); evidence that is small in total and wholly
inside the board is dropped on a full read (a hand comes with its arm). Every space within 30 mm
of what is left is occluded. A mixin of ``vision.reader.BoardReader`` (it uses the reader's
``cal``, ``s``, ``_space_masks``, ``_grow_kernel`` and ``_last_dab`` from the colour test).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import Calibration

NEAR_PIECE_CHROMA = 16  # weak-foreground threshold 2-6 mm from a piece (colour bleeding)
HAND_MIN_AREA_MM2 = 150.0  # unexplained foreground at least this big is a hand or an arm
HAND_TOTAL_MM2 = 1500.0  # a hand and arm over the board: at least this much evidence, or some at the board's edge
HAND_EDGE_MM = 10.0  # ... within this of the board's edge (the arm comes in over it)
EDGE_MIN = 12  # gradient of a printed line on the reference board
BLOCK_MM = 10.0  # block size for the "printed lines vanished" test (and for change detection)


def gradient(l8: np.ndarray) -> np.ndarray:
    """Sobel gradient magnitude (L1, halved) of a grey image: where the printed lines are."""
    gx = cv2.Sobel(l8, cv2.CV_16S, 1, 0, ksize=3)
    gy = cv2.Sobel(l8, cv2.CV_16S, 0, 1, ksize=3)
    return cv2.convertScaleAbs(cv2.add(cv2.convertScaleAbs(gx), cv2.convertScaleAbs(gy)), alpha=0.5)


class OcclusionTests:
    """Hands and arms over the board, from unexplained foreground and vanished print."""

    cal: Calibration
    s: float

    def _prep_print(self) -> None:
        """The printed structure of the empty board (lines, outlines, text), per BLOCK_MM block:
        a hand hides it even where its colour matches the board."""
        ref_l = cv2.GaussianBlur(self.cal.reference_lab[..., 0], (3, 3), 0)
        self._ref_grad = gradient(ref_l)
        self._ref_edges = (self._ref_grad >= EDGE_MIN).view(np.uint8)
        blk = int(round(BLOCK_MM * self.s))
        h, w = ref_l.shape
        self._blocks = (max(1, w // blk), max(1, h // blk))
        self._edge_count = cv2.resize(self._ref_edges.astype(np.float32), self._blocks, interpolation=cv2.INTER_AREA)

    def _occlusion(self, labels: np.ndarray, weak: np.ndarray, l8: np.ndarray,
                   roi: tuple[int, int, int, int] | None = None) -> tuple[set[int], np.ndarray]:
        """Spaces near a hand or arm: large foreground not explained by piece colours. (Piece
        coloured blobs too big to be pieces are added in ``_components``.) With ``roi`` only that
        part of the board is looked at."""
        s = self.s
        full_shape = labels.shape
        ox, oy, rx1, ry1 = roi if roi is not None else (0, 0, full_shape[1], full_shape[0])
        sl = (slice(oy, ry1), slice(ox, rx1))
        labels, weak, dab = labels[sl], weak[sl], self._last_dab[sl]
        pieces = (labels >= 0).view(np.uint8)
        # colour bleeding around pieces (blur, JPEG chroma) is not a hand: ignore 2 mm around them
        halo = cv2.dilate(pieces, np.ones((int(round(4 * s)) | 1,) * 2, np.uint8))
        unexplained = cv2.bitwise_and(weak, 1 - halo)
        # farther out (up to 6 mm) JPEG chroma ringing and blur still tint the board a little:
        # there only a clearer difference counts
        wide = cv2.dilate(pieces, np.ones((int(round(12 * s)) | 1,) * 2, np.uint8))
        faint = cv2.compare(dab, NEAR_PIECE_CHROMA, cv2.CMP_LE)
        unexplained[(wide > 0) & (faint > 0)] = 0
        k = max(3, int(round(5 * s)) | 1)
        unexplained = cv2.morphologyEx(unexplained, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        n, cc, stats, _ = cv2.connectedComponentsWithStats(unexplained, connectivity=8)
        occ_c = np.zeros(labels.shape, np.uint8)
        min_area = HAND_MIN_AREA_MM2 * s * s
        for i in np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= min_area) + 1:
            x, y, w, h = stats[i, :4]
            occ_c[y:y + h, x:x + w] |= (cc[y:y + h, x:x + w] == i).view(np.uint8)
        if roi is None:
            occ, halo_full = occ_c, halo
        else:
            occ = np.zeros(full_shape, np.uint8)
            occ[sl] = occ_c
            halo_full = np.zeros(full_shape, np.uint8)
            halo_full[sl] = halo
        occ |= self._drop_lone_blocks(self._lost_structure(l8, halo_full, roi), occ)
        if roi is None:
            occ = self._drop_stray_evidence(occ)
        return self._spaces_near(occ), occ

    def _drop_stray_evidence(self, occ: np.ndarray) -> np.ndarray:
        """A hand comes with its arm: over the board it leaves a lot of evidence (palm and arm,
        thousands of mm^2) and the arm reaches the board's edge. Evidence that is small in total
        (under HAND_TOTAL_MM2) and lies wholly inside the board (farther than HAND_EDGE_MM from
        its edge) is blur and JPEG near the print, not a hand. Only on a full read: a partial
        read sees part of the board, and any evidence there makes the board be read in full."""
        if not occ.any():
            return occ
        s = self.s
        if np.count_nonzero(occ) >= HAND_TOTAL_MM2 * s * s:
            return occ
        e = max(1, int(round(HAND_EDGE_MM * s)))
        if occ[:e].any() or occ[-e:].any() or occ[:, :e].any() or occ[:, -e:].any():
            return occ
        return np.zeros_like(occ)

    def _lost_structure(self, l8: np.ndarray, pieces: np.ndarray, roi: tuple[int, int, int, int] | None = None
                        ) -> np.ndarray:
        """Blocks (BLOCK_MM square) where most of the board's printed lines have vanished and no
        piece explains it: something flat and plain lies over them (a hand, a sleeve, a card)."""
        h, w = l8.shape
        bpx = int(round(BLOCK_MM * self.s))
        nbx, nby = self._blocks
        if roi is not None and nbx * bpx == w and nby * bpx == h:
            # only the blocks the roi touches (the block grid divides the board exactly)
            bx0, by0 = roi[0] // bpx, roi[1] // bpx
            bx1, by1 = min(nbx, -(-roi[2] // bpx)), min(nby, -(-roi[3] // bpx))
            X0, Y0, X1, Y1 = bx0 * bpx, by0 * bpx, bx1 * bpx, by1 * bpx
            p0x, p0y, p1x, p1y = max(0, X0 - 4), max(0, Y0 - 4), min(w, X1 + 4), min(h, Y1 + 4)
            g = cv2.dilate(gradient(cv2.GaussianBlur(l8[p0y:p1y, p0x:p1x], (3, 3), 0)), np.ones((3, 3), np.uint8))
            g = g[Y0 - p0y:Y1 - p0y, X0 - p0x:X1 - p0x]
            sl = (slice(Y0, Y1), slice(X0, X1))
            lost = (self._ref_edges[sl] > 0) & (g.astype(np.int16) * 10 < self._ref_grad[sl].astype(np.int16) * 4)
            lost &= pieces[sl] == 0
            frac_lost = cv2.resize(lost.astype(np.float32), (bx1 - bx0, by1 - by0), interpolation=cv2.INTER_AREA)
            count = self._edge_count[by0:by1, bx0:bx1]
            bad = ((count * bpx * bpx >= 12) & (frac_lost >= 0.6 * count)).astype(np.uint8)
            out = np.zeros((h, w), np.uint8)
            out[sl] = cv2.resize(bad, (X1 - X0, Y1 - Y0), interpolation=cv2.INTER_NEAREST)
            return out
        g = cv2.dilate(gradient(cv2.GaussianBlur(l8, (3, 3), 0)), np.ones((3, 3), np.uint8))
        lost = (self._ref_edges > 0) & (g.astype(np.int16) * 10 < self._ref_grad.astype(np.int16) * 4)
        lost &= pieces == 0
        frac_lost = cv2.resize(lost.astype(np.float32), self._blocks, interpolation=cv2.INTER_AREA)
        blk = BLOCK_MM * self.s
        enough = self._edge_count * blk * blk >= 12  # blocks with some printed structure
        bad = (enough & (frac_lost >= 0.6 * self._edge_count)).astype(np.uint8)
        return cv2.resize(bad, (w, h), interpolation=cv2.INTER_NEAREST)

    def _drop_lone_blocks(self, lost: np.ndarray, unexplained: np.ndarray) -> np.ndarray:
        """Vanished print that is one block alone, with no other sign of a hand within reach
        (30 mm), is not a hand: a thin line blurred away (heavy blur and JPEG, far side of the
        board) or hidden by the leaning top of a piece next to it. A hand or an arm hides the print
        over several blocks, or shows as unexplained foreground nearby."""
        if not lost.any():
            return lost
        bpx = int(round(BLOCK_MM * self.s))
        n, cc, stats, _ = cv2.connectedComponentsWithStats(lost, connectivity=8)
        lone = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] <= bpx * bpx]
        if not lone:
            return lost
        support = unexplained.copy()
        support[(cc > 0) & ~np.isin(cc, lone)] = 1
        near = cv2.dilate(support, self._grow_kernel) if support.any() else None
        out = lost.copy()
        for i in lone:
            x, y, w, h = stats[i, :4]
            mine = cc[y:y + h, x:x + w] == i
            if near is None or not near[y:y + h, x:x + w][mine].any():
                out[y:y + h, x:x + w][mine] = 0
        return out

    def _spaces_near(self, occ: np.ndarray) -> set[int]:
        """Indices of the spaces within the occlusion reach (30 mm) of the evidence ``occ``."""
        spaces: set[int] = set()
        if occ.any():
            grown = cv2.dilate(occ, self._grow_kernel)
            for i, ((x0, y0, x1, y1), m) in enumerate(self._space_masks):
                if np.any(grown[y0:y1, x0:x1] & m):
                    spaces.add(i)
        return spaces
