"""The camera's fake twin: the board of a layout rendered by ``vision.render``, whose scene tests and
the demo change between frames (pieces, a hand, a bumped camera). No device needed."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable, Mapping

import numpy as np

from hardware.frame_source import Frame, FrameSource
from scorer.core.types import Board, Piece

NOISE_ROWS = 32  # the synthetic camera adds its sensor noise this many rows at a time


class SyntheticCamera(FrameSource):
    """A rendered camera: the board of a layout with pieces, seen under ``conditions``.

    The scene can change between frames: ``set_board``, ``place``/``remove`` a piece,
    ``hand_over`` a space and ``withdraw_hand``, ``bump`` the camera, ``set_conditions``. A
    frame is rendered only when the scene changed; otherwise the last one is returned with fresh
    sensor noise, as a still camera would. ``truth`` is the ground truth of the last frame.
    """

    def __init__(self, layout: "object", board: Board | None = None, *, conditions: "object | None" = None,
                 tag_map: Mapping[int, Piece] | None = None, seed: int = 0, noise_sigma: float = 1.5,
                 clock: Callable[[], float] = time.monotonic, nominal_fps: float | None = None,
                 detail_size: tuple[int, int] | None = None):
        from vision.layout import Layout
        from vision.render import Conditions

        if not isinstance(layout, Layout):
            raise TypeError("SyntheticCamera needs a vision.layout.Layout")
        super().__init__(clock=clock, nominal_fps=nominal_fps)
        self.layout = layout
        self.name = f"synthetic:{layout.id}"
        self.board = board or Board()
        self.conditions = conditions or Conditions(seed=seed)
        self.tag_map = dict(tag_map) if tag_map else None
        self.noise_sigma = noise_sigma
        self.dice: tuple[int, ...] = ()  # top faces of the dice on the board (vision.render's ``dice``)
        self._die_place: object = None  # vision.render.Placement of a die put somewhere on purpose
        self._rng = np.random.default_rng(seed)
        self._cache = None
        self._version = 0
        self._rendered_version = -1
        self.truth = None
        self.renders = 0
        self.detail_size = detail_size  # a still of the same view at this size, rendered when asked for (detail_for)
        self._still: tuple[int, np.ndarray] | None = None  # (scene version, its still)

    # -- scene changes
    def _changed(self) -> None:
        self._version += 1

    def set_board(self, board: Board) -> None:
        with self._lock:
            self.board = board
            self._changed()

    def place(self, space: str, piece: Piece, n: int = 1) -> None:
        with self._lock:
            self.layout.space(space)
            self.board = self.board.with_added(space, piece, n)
            self._changed()

    def remove(self, space: str, piece: Piece, n: int = 1) -> None:
        with self._lock:
            self.board = self.board.with_removed(space, piece, n)
            self._changed()

    def roll(self, *values: int, space: str | None = None, place: tuple[float, float, float] | None = None) -> None:
        """Dice land in the layout's dice tray (``space``) showing ``values``; ``place`` (x, y mm,
        angle) puts the die there instead of where the renderer would. No values: the tray emptied."""
        from vision.dice import dice_space, die_kinds
        from vision.render import Placement

        tray = self.layout.space(space) if space else dice_space(self.layout)
        kind = die_kinds(self.layout)[0]
        with self._lock:
            cells = {sp: dict(self.board.pieces(sp)) for sp in self.board.spaces() if sp != tray.id}
            if values:
                cells[tray.id] = {Piece("neutral", kind): len(values)}
            self.board = Board.from_counts(cells)
            self.dice = tuple(int(v) for v in values)
            self._die_place = None if place is None or not values else Placement(tray.id, Piece("neutral", kind), *place, 0.0)
            self._changed()

    def hand_over(self, space: str | None = None, *, target: tuple[float, float] | None = None,
                  from_deg: float = 90.0, height: float = 60.0) -> None:
        """Put a hand over a space (or a board point in mm); the arm comes from ``from_deg``
        (90 = from the bottom edge)."""
        from vision.render import Hand

        if target is None:
            if space is None:
                raise ValueError("hand_over needs a space or a target")
            target = self.layout.space(space).centre
        with self._lock:
            self.conditions = replace(self.conditions, hand=Hand(tuple(target), from_deg, height))
            self._changed()

    def withdraw_hand(self) -> None:
        with self._lock:
            self.conditions = replace(self.conditions, hand=None)
            self._changed()

    def bump(self, *, tilt_deg: float = 3.0, roll_deg: float = 2.0, shift: tuple[float, float] = (0.01, 0.0)) -> None:
        """Knock the camera: a slightly different pose from now on."""
        with self._lock:
            c = self.conditions
            self.conditions = replace(c, tilt_deg=c.tilt_deg + tilt_deg, roll_deg=c.roll_deg + roll_deg,
                                      offset=(c.offset[0] + shift[0], c.offset[1] + shift[1]))
            self._changed()

    def set_conditions(self, conditions: "object") -> None:
        with self._lock:
            self.conditions = conditions
            self._changed()

    # -- frames
    def _render(self, conditions: "object") -> "object":
        from vision.render import render

        placements = None
        place = self._die_place
        if place is not None:  # the die where the caller put it, the other pieces where the renderer puts them
            from vision.render import place_pieces

            rest = self.board.with_removed(place.space, place.piece, self.board.pieces(place.space)[place.piece])
            placements = place_pieces(self.layout, rest, np.random.default_rng(self.conditions.seed),
                                      self.conditions.jitter_mm) + (place,)
        return render(self.layout, self.board, conditions, tag_map=self.tag_map, placements=placements,
                      dice=self.dice or None)

    def detail_for(self, frame: Frame) -> Callable[[], np.ndarray | None] | None:
        if self.detail_size is None:
            return None
        version = self._rendered_version
        return lambda: self._detail(version)

    def _detail(self, version: int) -> np.ndarray | None:
        """The scene of ``version`` rendered at ``detail_size`` (no sensor noise); None once the
        scene changed since that frame."""
        with self._lock:
            if version != self._version:
                return None
            if self._still is None or self._still[0] != version:
                self._still = (version, self._render(replace(self.conditions, size=self.detail_size)).image)
            return self._still[1]

    def _grab(self) -> np.ndarray:
        if self._rendered_version != self._version or self._cache is None:
            r = self._render(self.conditions)
            self._cache = r.image
            self.truth = r.truth
            self._rendered_version = self._version
            self.renders += 1
            return r.image.copy()
        if self.noise_sigma <= 0:
            return self._cache.copy()
        # in bands of rows: the same noise as for the whole frame at once (the generator's stream
        # is the same), without some 30 MB of float temporaries for a 1280x720 frame
        out = np.empty_like(self._cache)
        for y in range(0, out.shape[0], NOISE_ROWS):
            band = self._cache[y:y + NOISE_ROWS]
            noise = self._rng.normal(0.0, self.noise_sigma, band.shape).astype(np.float32)
            out[y:y + NOISE_ROWS] = np.clip(band.astype(np.float32) + noise, 0, 255)
        return out
