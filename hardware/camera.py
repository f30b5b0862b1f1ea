"""Camera sources behind one small interface, ``FrameSource``.

* ``PiCameraSource`` -- the Raspberry Pi camera through picamera2 (imported lazily; ``pi`` extra).
* ``OpenCVCamera`` -- any ``cv2.VideoCapture`` device (USB webcam), reopened after failures.
* ``VideoFileSource`` / ``ImageFolderSource`` -- replay of a recording or a folder of photos.
* ``SyntheticCamera`` (``hardware.synthetic_camera``) -- renders the board with ``vision.render``: the
  fake twin used by tests and the demo, with an API to change the pieces, put a hand over the board
  or bump the camera.

The interface and its errors are in ``hardware.frame_source``. Every source reports its measured frame rate and counts its failures. ``read()`` returns a
``Frame`` (BGR image, time stamp from the injected clock, index) or raises ``FrameUnavailable``
(a frame was lost; try again) or ``EndOfStream`` (a replay has ended). ``open_source(spec)``
builds one from a short text such as ``opencv:0`` or ``images:photos/``.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from hardware.frame_source import (IMAGE_SUFFIXES, CameraError, EndOfStream, Frame, FrameSource,  # noqa: F401
                                   FrameUnavailable, SourceStats)
from hardware.synthetic_camera import SyntheticCamera  # noqa: F401 (the fake twin, importable from here as before)

log = logging.getLogger("hardware.camera")

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
