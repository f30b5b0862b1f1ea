"""BoardReader's foreground and colour classes: light correction and per-pixel piece colours.

The rectified board is divided by the light measured against the calibrated empty board (a
global white balance times a smooth brightness field), then every pixel that differs clearly
from the board gets the class of the nearest piece colour through a lookup table over quantised
Lab, and a weak-foreground mask (anything a little different) is kept for the occlusion test.
A mixin of ``vision.reader.BoardReader`` (it uses the reader's calibration ``cal``, ``s`` and
``_neutral_kind``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.calibration import Calibration

STRONG_CHROMA = 22  # L1 distance in (a, b) from the empty board: surely a piece (or a hand)
WEAK_CHROMA = 10  # a little different: enough to notice a hand, not to read a piece
CLIP_LEVEL = 246.0  # a channel this bright may be clipped by the camera
CLIPPED_CHROMA = 14  # weak-foreground chroma threshold where the camera may clip
UNKNOWN_DISTANCE = 24.0  # farther than this from every piece colour: not a piece
FORTRESS_L_MARGIN = 30  # Lab L (0-255) above the darkest neutral prototype that still counts as it: a thin dark rim is lightened by blur
FORTRESS_PLAYER_DISTANCE = 18.0  # ... and no player colour nearer than this (Lab, L weighted 0.5)
SATURATED_HUE_TOLERANCE = 0.25  # off-hue (perpendicular / along) for a colour more saturated than its prototype


class ColourClasses:
    """Light correction, the colour lookup table and per-pixel classification."""

    cal: Calibration
    s: float
    _neutral_kind: dict[int, str]

    def _prep_colour(self) -> None:
        """Everything about the empty board that the light correction and the colour test need,
        computed once per calibration."""
        ref = self.cal.reference
        h, w = ref.shape[:2]
        self._q = 8
        self._small_size = (max(1, w // self._q), max(1, h // self._q))
        self._ref_small = cv2.resize(ref, self._small_size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
        # brightest reference value per thumbnail block and channel: where the light makes it
        # reach the sensor's limit, the camera clips and colours shift (see ``_normalise_light``)
        sw, sh = self._small_size
        blocks = ref[:sh * self._q, :sw * self._q].reshape(sh, self._q, sw, self._q, 3)
        self._ref_small_max = blocks.max(axis=(1, 3)).astype(np.float32)
        self._clip_prone: np.ndarray | None = None
        self._cur_a8 = self._cur_b8 = None
        lab = self.cal.reference_lab.astype(np.float32)
        self._ref_L = lab[..., 0]
        self._ref_L8 = np.ascontiguousarray(self.cal.reference_lab[..., 0])
        # darkest reference value nearby: a print line that the registration misses by a
        # millimetre must not look like a dark piece
        self._ref_L_min = cv2.erode(lab[..., 0], np.ones((3, 3), np.uint8))
        protos = self.cal.model.protos.astype(np.float32).copy()
        protos[:, 0] *= 0.5
        self._protos = protos
        self._proto_class = self.cal.model.proto_class
        ref_lab8 = self.cal.reference_lab
        self._ref_a8 = np.ascontiguousarray(ref_lab8[..., 1])
        self._ref_b8 = np.ascontiguousarray(ref_lab8[..., 2])
        self._dark_limit = np.clip(self._ref_L_min * 0.5, 0, 255).astype(np.uint8)
        self._bright_limit = np.clip(self._ref_L + 40, 0, 255).astype(np.uint8)
        self._build_lut()
        # player colours whose darkest shade is lighter than anything the dark (fortress) class
        # takes: green and yellow, not red, blue or violet
        dark_max = max((float(self._protos[self._proto_class == ci, 0].max()) * 2 for ci in self._neutral_kind
                        if (self._proto_class == ci).any()), default=-1e9) + FORTRESS_L_MARGIN
        self._light_classes = {ci for ci in set(self._proto_class.tolist()) if ci not in self._neutral_kind
                               and float(self._protos[self._proto_class == ci, 0].min()) * 2 > dark_max}

    def _normalise_light(self, rect: np.ndarray, roi: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Divide out the light: a global white balance (per channel, median over the board) times
        a smooth brightness field (median-filtered over ~60 mm, so pieces and hands do not bend it)."""
        if roi is not None and self._light is not None and self._light.shape[:2] == rect.shape[:2]:
            # a partial read: the light is the last full read's (it did not change, or far more
            # of the board would have), and so are its gain and clipping model
            x0, y0, x1, y1 = roi
            out = np.zeros_like(rect)
            out[y0:y1, x0:x1] = cv2.multiply(rect[y0:y1, x0:x1], self._light[y0:y1, x0:x1], dtype=cv2.CV_8U)
            return out
        # a full read: measure the light
        small = cv2.resize(rect, self._small_size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
        ratio = small / self._ref_small
        wb = np.median(ratio.reshape(-1, 3), axis=0)
        lum = (ratio / wb).mean(axis=2)
        lum8 = np.clip(lum * 100, 0, 255).astype(np.uint8)
        lum8 = cv2.medianBlur(lum8, 7)
        fieldf = cv2.GaussianBlur(lum8.astype(np.float32) / 100.0, (0, 0), 1.0)
        fieldf = np.maximum(fieldf, 0.05)
        inv = (1.0 / fieldf)[..., None] / wb[None, None, :].astype(np.float32)
        h, w = rect.shape[:2]
        gain = cv2.resize(inv.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        self._light = gain
        # pale print that this light drives into the sensor's limit: a clipped channel shifts its
        # colour, which is not a hand (it is excluded from the weak-foreground test)
        prone = ((self._ref_small_max / inv).max(axis=2) >= CLIP_LEVEL).astype(np.uint8)
        if prone.any():
            prone = cv2.dilate(prone, np.ones((3, 3), np.uint8))
            sw, sh = self._small_size
            full = np.zeros((h, w), np.uint8)
            full[:sh * self._q, :sw * self._q] = cv2.resize(prone, (sw * self._q, sh * self._q),
                                                             interpolation=cv2.INTER_NEAREST)
            self._clip_prone = full
            # what the empty board looks like through this light, clipped as the sensor clips it
            # (uint8 arithmetic saturates at 255), then normalised back: the colours to compare with
            sl = (slice(0, h), slice(0, w))
            lit = cv2.multiply(self.cal.reference[sl], 1.0 / gain[sl], dtype=cv2.CV_8U)
            expected = cv2.multiply(lit, gain[sl], dtype=cv2.CV_8U)
            exp_lab = cv2.cvtColor(cv2.GaussianBlur(expected, (3, 3), 0), cv2.COLOR_BGR2LAB)
            sel = full[sl] > 0
            self._cur_a8 = self._ref_a8.copy()
            self._cur_b8 = self._ref_b8.copy()
            self._cur_a8[sl][sel] = exp_lab[..., 1][sel]
            self._cur_b8[sl][sel] = exp_lab[..., 2][sel]
        else:
            self._clip_prone = None
            self._cur_a8, self._cur_b8 = self._ref_a8, self._ref_b8
        return cv2.multiply(rect, gain, dtype=cv2.CV_8U)

    def _build_lut(self) -> None:
        """Colour lookup table over quantised Lab (L in steps of 8, a and b in steps of 4): the
        class of the nearest prototype, or unknown (-2) when none is near. Built once per
        calibration, so classifying a frame is one table lookup per pixel."""
        Ls = (np.arange(32) * 8 + 4).astype(np.float32)
        ab = (np.arange(64) * 4 + 2).astype(np.float32)
        grid = np.stack(np.meshgrid(Ls * 0.5, ab, ab, indexing="ij"), axis=-1).reshape(-1, 3)
        best = np.empty(len(grid), np.int16)
        player_d = np.full(len(grid), np.inf, np.float32)  # distance to the nearest player colour
        player_floor = np.zeros(len(grid), np.float32)  # L of that colour's darkest prototype
        is_player = np.array([c not in self._neutral_kind for c in self._proto_class])
        darkest = np.zeros(int(self._proto_class.max()) + 1, np.float32)
        for ci in set(self._proto_class.tolist()):
            darkest[ci] = self._protos[self._proto_class == ci, 0].min() * 2
        for i in range(0, len(grid), 16384):
            g = grid[i:i + 16384]
            d2 = ((g[:, None, :] - self._protos[None, :, :]) ** 2).sum(axis=2)
            j = d2.argmin(axis=1)
            cls = self._proto_class[j].astype(np.int16)
            cls[np.sqrt(d2[np.arange(len(j)), j]) > UNKNOWN_DISTANCE] = -2
            best[i:i + 16384] = cls
            if is_player.any():
                dp = d2[:, is_player]
                jp = dp.argmin(axis=1)
                player_d[i:i + 16384] = np.sqrt(dp[np.arange(len(jp)), jp])
                player_floor[i:i + 16384] = darkest[self._proto_class[is_player][jp]]
        # a piece colour more saturated than its prototypes (a piece a little off its nominal
        # colour, a lit top face) lies far from every prototype but in the same hue direction, at
        # a chroma neither the board nor skin reaches: it is that colour
        gab = grid[:, 1:] - 128.0
        gL = grid[:, 0] * 2
        best_dev = np.full(len(grid), np.inf, np.float32)
        unknown = best == -2
        for k, ci in enumerate(self._proto_class):
            if ci in self._neutral_kind:
                continue
            pab = self._protos[k, 1:] - 128.0
            n2 = float(pab @ pab)
            if n2 < 20.0 ** 2:
                continue  # a greyish colour has no hue to extend
            t = gab @ pab / n2
            perp = np.linalg.norm(gab - t[:, None] * pab[None, :], axis=1)
            dev = perp / (np.maximum(t, 1e-6) * math.sqrt(n2))
            sel = unknown & (t >= 1.0) & (dev <= SATURATED_HUE_TOLERANCE) \
                & (np.abs(gL - self._protos[k, 0] * 2) <= 40) & (dev < best_dev)
            best[sel] = ci
            best_dev[sel] = dev[sel]
        # very dark, nearly grey pixels belong to a dark neutral piece (a black fortress): the
        # chroma of dark pixels is mostly JPEG and sensor noise, not colour. A thin dark rim (a
        # fortress under a house) is lightened by blur: somewhat lighter pixels count too when no
        # piece colour is near, or when they are darker than any shade of the nearest one (the
        # rim mixes with the house's colour; a shaded wall of a dark house is near its colour)
        chroma = np.abs(grid[:, 1] - 128) + np.abs(grid[:, 2] - 128)
        for ci in self._neutral_kind:
            pl = self._protos[self._proto_class == ci, 0] * 2  # back to unweighted L
            if pl.size and pl.max() < 70:
                sel = (grid[:, 0] * 2 <= pl.max() + 16) & (chroma <= 36)
                sel |= (grid[:, 0] * 2 <= pl.max() + FORTRESS_L_MARGIN) & (chroma <= 36) \
                    & ((player_d > FORTRESS_PLAYER_DISTANCE) | (grid[:, 0] * 2 < player_floor - 15))
                best[sel] = ci
        self._lut = best

    def _classify(self, img: np.ndarray, roi: tuple[int, int, int, int] | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Per pixel: class index (>= 0), -1 board, -2 unknown foreground; and a weak-foreground
        mask (anything that differs a little from the board, for hand detection). With ``roi``
        (x0, y0, x1, y1) only that part is classified; the rest is reported as empty board."""
        full_h, full_w = img.shape[:2]
        x0, y0, x1, y1 = roi if roi is not None else (0, 0, full_w, full_h)
        sl = (slice(y0, y1), slice(x0, x1))
        img = cv2.GaussianBlur(img[sl], (3, 3), 0)
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
        L, a, b = cv2.split(lab)
        ra, rb = (self._cur_a8, self._cur_b8) if self._clip_prone is not None else (self._ref_a8, self._ref_b8)
        dab = cv2.add(cv2.absdiff(a, ra[sl]), cv2.absdiff(b, rb[sl]))  # L1 chroma distance
        dark = cv2.compare(L, self._dark_limit[sl], cv2.CMP_LT)
        strong = cv2.bitwise_or(cv2.compare(dab, STRONG_CHROMA, cv2.CMP_GT), dark)
        weak_ab = cv2.compare(dab, WEAK_CHROMA, cv2.CMP_GT)
        if self._clip_prone is not None:
            # where the camera may clip, only a clear colour difference counts
            weak_ab[(self._clip_prone[sl] > 0) & (dab <= CLIPPED_CHROMA)] = 0
        weak = cv2.bitwise_or(weak_ab, cv2.compare(L, self._bright_limit[sl], cv2.CMP_GT))
        weak = cv2.bitwise_or(weak, strong)
        labels_c = np.full(L.shape, -1, np.int16)
        idx = np.flatnonzero(strong)
        if idx.size:
            key = ((L.reshape(-1)[idx].astype(np.int32) >> 3) << 12) | ((a.reshape(-1)[idx].astype(np.int32) >> 2) << 6) \
                | (b.reshape(-1)[idx].astype(np.int32) >> 2)
            labels_c.reshape(-1)[idx] = self._lut[key]
        if roi is None:
            self._last_l, self._last_dab = L, dab
            return labels_c, (weak > 0).astype(np.uint8)
        labels = np.full((full_h, full_w), -1, np.int16)
        labels[sl] = labels_c
        weak_full = np.zeros((full_h, full_w), np.uint8)
        weak_full[sl] = weak > 0
        l_full = self._ref_L8.copy()  # outside the roi: the board as calibrated (nothing lost)
        l_full[sl] = L
        dab_full = np.zeros((full_h, full_w), np.uint8)
        dab_full[sl] = dab
        self._last_l, self._last_dab = l_full, dab_full
        return labels, weak_full
