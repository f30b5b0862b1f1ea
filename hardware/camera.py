"""Camera sources behind one small interface, ``FrameSource``.

* ``PiCameraSource`` -- the Raspberry Pi camera through picamera2 (imported lazily; ``pi`` extra).
* ``OpenCVCamera`` -- any ``cv2.VideoCapture`` device (USB webcam), reopened after failures.
* ``VideoFileSource`` / ``ImageFolderSource`` -- replay of a recording or a folder of photos.
* ``SyntheticCamera`` -- renders the board with ``vision.render``: the fake twin used by tests
  and the demo, with an API to change the pieces, put a hand over the board or bump the camera.

Every source reports its measured frame rate and counts its failures. ``read()`` returns a
``Frame`` (BGR image, time stamp from the injected clock, index) or raises ``FrameUnavailable``
(a frame was lost; try again) or ``EndOfStream`` (a replay has ended). ``open_source(spec)``
builds one from a short text such as ``opencv:0`` or ``images:photos/``.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Board, Piece, TableRefError

log = logging.getLogger("hardware.camera")

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
NOISE_ROWS = 32  # the synthetic camera adds its sensor noise this many rows at a time


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


# ------------------------------------------------------------------------------------ OpenCV

class OpenCVCamera(FrameSource):
    """A ``cv2.VideoCapture`` device (index or path such as ``/dev/video0``). After
    ``reopen_after`` consecutive failures the device is closed and opened again."""

    def __init__(self, device: int | str = 0, *, size: tuple[int, int] | None = (1280, 720), fps: float | None = None,
                 reopen_after: int = 5, clock: Callable[[], float] = time.monotonic,
                 backend: int = cv2.CAP_ANY):
        super().__init__(clock=clock, nominal_fps=fps)
        self.device = device
        self.size = size
        self.reopen_after = reopen_after
        self.backend = backend
        self.name = f"opencv:{device}"
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> cv2.VideoCapture:
        cap = cv2.VideoCapture(self.device, self.backend)
        if not cap.isOpened():
            cap.release()
            raise FrameUnavailable(f"cannot open camera {self.device!r}")
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        if self.nominal_fps:
            cap.set(cv2.CAP_PROP_FPS, self.nominal_fps)
        return cap

    def _grab(self) -> np.ndarray:
        if self._cap is None:
            self._cap = self._open()
        ok, img = self._cap.read()
        if not ok or img is None:
            if self._consecutive + 1 >= self.reopen_after:
                self._cap.release()
                self._cap = None
            raise FrameUnavailable(f"camera {self.device!r} returned no frame")
        return img

    def _release(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# ------------------------------------------------------------------------------------ replay

class VideoFileSource(FrameSource):
    """Replays a video file. Time stamps come from the clock (live pacing is the caller's job);
    ``video_time`` gives the position in the file."""

    def __init__(self, path: str | Path, *, loop: bool = False, clock: Callable[[], float] = time.monotonic):
        path = Path(path)
        if not path.is_file():
            raise CameraError(f"no video file {path}")
        super().__init__(clock=clock)
        self.path = path
        self.loop = loop
        self.name = f"video:{path.name}"
        self._cap = cv2.VideoCapture(str(path))
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError(f"cannot decode video {path}")
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.nominal_fps = float(fps) if fps and fps > 0 else None

    @property
    def video_time(self) -> float:
        return float(self._cap.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0

    def _grab(self) -> np.ndarray:
        ok, img = self._cap.read()
        if not ok:
            if self.loop and self._frames:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, img = self._cap.read()
            if not ok:
                raise EndOfStream(f"{self.path.name}: end of video")
        return img

    def _release(self) -> None:
        self._cap.release()


class ImageFolderSource(FrameSource):
    """Replays the images of a folder in name order (or an explicit list of files). An
    unreadable file is a counted failure, not the end."""

    def __init__(self, folder: str | Path | Sequence[str | Path], *, loop: bool = False,
                 clock: Callable[[], float] = time.monotonic, nominal_fps: float | None = None):
        super().__init__(clock=clock, nominal_fps=nominal_fps)
        if isinstance(folder, (str, Path)):
            folder = Path(folder)
            if not folder.is_dir():
                raise CameraError(f"no image folder {folder}")
            files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            self.name = f"images:{folder.name}"
        else:
            files = [Path(p) for p in folder]
            self.name = "images"
        if not files:
            raise CameraError(f"{self.name}: no images")
        self.files = files
        self.loop = loop
        self._pos = 0

    @property
    def current_file(self) -> Path | None:
        return self.files[self._pos - 1] if self._pos else None

    def _grab(self) -> np.ndarray:
        if self._pos >= len(self.files):
            if not self.loop:
                raise EndOfStream(f"{self.name}: no more images")
            self._pos = 0
        path = self.files[self._pos]
        self._pos += 1
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise FrameUnavailable(f"cannot read image {path.name}")
        return img


# ------------------------------------------------------------------------------------ Pi camera

class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2 (Raspberry Pi OS only: ``apt install
    python3-picamera2``). Imported on first use so the rest of the project runs anywhere."""

    def __init__(self, *, size: tuple[int, int] = (1280, 720), fps: float | None = 15.0,
                 clock: Callable[[], float] = time.monotonic, detail_size: tuple[int, int] | None = None):
        """``detail_size``: the sensor's main stream at this size beside the watched ``size`` (its
        low-resolution stream, YUV420 as every Pi's ISP gives it); each frame's main image is made
        only when the reader asks for it (``detail_for``)."""
        super().__init__(clock=clock, nominal_fps=fps)
        self.size = size
        self.detail_size = detail_size
        self.name = "picamera"
        self._request: Any = None  # the last frame's capture request, held while its still may be asked for
        self._request_index = -1
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except Exception as exc:  # ImportError, or libcamera missing underneath
            raise CameraError(f"picamera2 is not available ({exc}); on a Pi: apt install python3-picamera2") from None
        try:
            self._cam = Picamera2()
            controls = {"FrameRate": fps} if fps else {}
            if detail_size is None:
                config = self._cam.create_video_configuration(main={"size": size, "format": "BGR888"}, controls=controls)
            else:
                config = self._cam.create_video_configuration(main={"size": detail_size, "format": "BGR888"},
                                                              lores={"size": size, "format": "YUV420"},
                                                              controls=controls)
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:
            raise CameraError(f"cannot start the Pi camera: {exc}") from None

    def _grab(self) -> np.ndarray:
        if self.detail_size is not None:
            return self._grab_lores()
        try:
            # picamera2's "BGR888" is stored B,G,R per pixel on little-endian: what OpenCV wants
            img = self._cam.capture_array("main")
        except Exception as exc:
            raise FrameUnavailable(f"Pi camera capture failed: {exc}") from None
        return _bgr(img)

    def _grab_lores(self) -> np.ndarray:
        """The watched frame from the low-resolution stream; its request is kept for its still."""
        self._drop_request()
        try:
            request = self._cam.capture_request()
        except Exception as exc:
            raise FrameUnavailable(f"Pi camera capture failed: {exc}") from None
        try:
            yuv = request.make_array("lores")
        except Exception as exc:
            request.release()
            raise FrameUnavailable(f"Pi camera capture failed: {exc}") from None
        self._request, self._request_index = request, self._frames
        return cv2.cvtColor(np.ascontiguousarray(yuv), cv2.COLOR_YUV2BGR_I420)

    def detail_for(self, frame: Frame) -> Callable[[], np.ndarray | None] | None:
        if self.detail_size is None:
            return None
        return lambda: self._still(frame.index)

    def _still(self, index: int) -> np.ndarray | None:
        with self._lock:
            if self._request is None or self._request_index != index:
                return None  # a later frame was taken: this one's still is gone
            try:
                return _bgr(self._request.make_array("main"))
            except Exception as exc:
                log.warning("Pi camera: the still of frame %d could not be made: %s", index, exc)
                return None

    def _drop_request(self) -> None:
        if self._request is not None:
            try:
                self._request.release()
            finally:
                self._request = None

    def _release(self) -> None:
        try:
            self._drop_request()
            self._cam.stop()
            self._cam.close()
        except Exception:  # pragma: no cover - hardware only
            log.warning("Pi camera did not close cleanly")


def _bgr(img: np.ndarray) -> np.ndarray:
    """picamera2's "BGR888" array (B, G, R per pixel, sometimes padded to four) as OpenCV's BGR."""
    if img.ndim == 3 and img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(img)


# ------------------------------------------------------------------------------------ synthetic

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


# ------------------------------------------------------------------------------------ factory

def open_source(spec: str, *, clock: Callable[[], float] = time.monotonic, size: tuple[int, int] = (1280, 720),
                fps: float | None = None, loop: bool = False, detail_size: tuple[int, int] | None = None) -> FrameSource:
    """``picamera`` | ``opencv:0`` (or ``opencv:/dev/video2``) | ``video:PATH`` | ``images:FOLDER``
    | ``synthetic:LAYOUT`` (a board id or a layout file). ``detail_size``: a still of the same view
    at this size beside each watched frame (``FrameSource.detail_for``): the Pi camera and the
    synthetic one only."""
    kind, _, arg = spec.partition(":")
    if detail_size is not None and kind not in ("picamera", "synthetic"):
        raise CameraError(f"camera source {spec!r} has no detail stream (only picamera2 and synthetic have one)")
    if kind == "picamera":
        return PiCameraSource(size=size, fps=fps or 15.0, clock=clock, detail_size=detail_size)
    if kind == "opencv":
        dev: int | str = int(arg) if arg.isdigit() else (arg or 0)
        return OpenCVCamera(dev, size=size, fps=fps, clock=clock)
    if kind == "video":
        return VideoFileSource(arg, loop=loop, clock=clock)
    if kind == "images":
        return ImageFolderSource(arg, loop=loop, clock=clock, nominal_fps=fps)
    if kind == "synthetic":
        from vision.layout import load_layout
        from vision.render import Conditions

        return SyntheticCamera(load_layout(arg or "china-a"), conditions=Conditions(size=size), clock=clock,
                               nominal_fps=fps, detail_size=detail_size)
    raise CameraError(f"unknown camera source {spec!r} (picamera, opencv:N, video:PATH, images:DIR, synthetic:BOARD)")
