"""The one small interface every camera source implements (``FrameSource``), what it returns
(``Frame``), how it fails (``CameraError``, ``FrameUnavailable``, ``EndOfStream``) and what it counts
(``SourceStats``). The real sources are in ``hardware.camera``, the fake twin in
``hardware.synthetic_camera``."""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

from scorer.core.types import TableRefError

log = logging.getLogger("hardware.camera")

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class CameraError(TableRefError, OSError):
    """A camera that cannot be opened or used."""


class FrameUnavailable(CameraError):
    """This read produced no frame (a dropped frame, an unreadable file). Counted; try again."""


class EndOfStream(CameraError):
    """A replay source has no more frames."""


@dataclass(frozen=True, slots=True)
class Frame:
    image: np.ndarray  # BGR uint8
    at: float  # seconds, from the source's clock
    index: int


@dataclass(frozen=True, slots=True)
class SourceStats:
    frames: int
    failures: int
    consecutive_failures: int
    fps: float  # measured over recent frames (0 until two frames were read)
    nominal_fps: float | None
    last_error: str | None

    def to_json(self) -> dict[str, object]:
        return {"frames": self.frames, "failures": self.failures, "consecutive_failures": self.consecutive_failures,
                "fps": round(self.fps, 2), "nominal_fps": self.nominal_fps, "last_error": self.last_error}


class FrameSource(ABC):
    """One camera. Subclasses implement ``_grab() -> np.ndarray`` (raise ``FrameUnavailable``
    or ``EndOfStream``) and may override ``_release``."""

    name = "camera"

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, nominal_fps: float | None = None):
        self.clock = clock
        self.nominal_fps = nominal_fps
        self._frames = 0
        self._failures = 0
        self._consecutive = 0
        self._last_error: str | None = None
        self._last_at: float | None = None
        self._interval: float | None = None  # smoothed time between frames
        self._closed = False
        self._lock = threading.Lock()

    # -- the interface
    def read(self) -> Frame:
        with self._lock:
            if self._closed:
                raise CameraError(f"{self.name} is closed")
            try:
                image = self._grab()
            except EndOfStream:
                raise
            except FrameUnavailable as exc:
                self._fail(str(exc))
                raise
            except CameraError as exc:
                self._fail(str(exc))
                raise
            if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
                self._fail("frame is not a BGR image")
                raise FrameUnavailable(f"{self.name}: frame is not a BGR image")
            at = float(self.clock())
            if self._last_at is not None:
                dt = max(1e-6, at - self._last_at)
                self._interval = dt if self._interval is None else 0.8 * self._interval + 0.2 * dt
            self._last_at = at
            self._consecutive = 0
            frame = Frame(image, at, self._frames)
            self._frames += 1
            return frame

    def detail_for(self, frame: Frame) -> Callable[[], np.ndarray | None] | None:
        """How to take the same view as ``frame`` at a higher resolution (a camera's main stream
        beside the watched one), for a reader that needs more pixels somewhere (values printed on
        counters): called only then, it returns None when that frame's still is gone. None: this
        source has no such stream (the default)."""
        return None

    def frames(self, limit: int | None = None) -> Iterator[Frame]:
        """Frames until the stream ends (replays) or ``limit``; lost frames are skipped."""
        n = 0
        while limit is None or n < limit:
            try:
                yield self.read()
            except EndOfStream:
                return
            except FrameUnavailable:
                continue
            n += 1

    @property
    def fps(self) -> float:
        return 1.0 / self._interval if self._interval else 0.0

    @property
    def failures(self) -> int:
        return self._failures

    def stats(self) -> SourceStats:
        return SourceStats(self._frames, self._failures, self._consecutive, self.fps, self.nominal_fps, self._last_error)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._release()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- for subclasses
    @abstractmethod
    def _grab(self) -> np.ndarray: ...

    def _release(self) -> None:
        pass

    def _fail(self, why: str) -> None:
        self._failures += 1
        self._consecutive += 1
        self._last_error = why
        log.warning("%s: %s (%d failures)", self.name, why, self._failures)
