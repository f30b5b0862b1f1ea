"""The camera's adapter (``CameraDevice``): a frame source read on its own thread by the board
reader, each frame an ``Observation(source="camera")`` for the runtime; and how the runtime's
config makes one (``camera_device_from_config``, ``load_table_model``). The other devices'
adapters are in ``tableref.devices``.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from scorer.core.types import Message

if TYPE_CHECKING:
    from tableref.runtime import Runtime

log = logging.getLogger(__name__)

class CameraDevice:
    """A ``hardware.camera.FrameSource`` read on its own thread by a reader: in colour mode a
    ``vision.table_reader.TableReader`` with the table's model (``model``; None: the layout's nominal
    artwork and pieces, right for the synthetic camera), in marker mode the ``reader`` given
    (``vision.reader.BoardReader``). ``reader=`` injects any reader (tests).

    Each frame becomes an ``Observation(source="camera")`` stamped with the frame's capture time;
    spaces under a hand are reported occluded. The source goes *down* (its readings are dropped and
    the sensor board alone decides) after ``fail_after`` failed frames in a row, or when the board
    has not been registered (corner markers not found) for ``unregistered_after`` seconds -- a
    camera that lost the board must not hold the whole table back as "occluded". It comes back by
    itself when frames and registration do.

    For the table's enrolment (``tableref.camera_enrolment``): ``capture()`` gives a fresh frame,
    ``hold(reason, seconds)`` keeps the camera's readings from the referee while the user puts
    enrolment pieces on the board (frames are still read, for the live picture), ``release()``
    ends it, and ``use_model(model)`` switches to a new table model at run time. All thread-safe.
    """

    name = "camera"
    source = "camera"

    def __init__(self, frames: Any, layout: Any, *, reader: Any = None, model: Any = None, model_path: str | None = None,
                 mode: str = "colour", fps: float = 4.0, fail_after: int = 3, unregistered_after: float = 2.0,
                 emulated: bool = False) -> None:
        self.frames = frames
        self.layout = layout
        self.reader = reader
        self.mode = mode
        self.model = model  # the vision.enrolment.TableModel in use (colour mode); None: nominal
        self.model_path = model_path  # where the table's model is read from and saved to
        self.interval = 1.0 / fps
        self.fail_after = fail_after
        self.unregistered_after = unregistered_after
        self.emulated = emulated
        self._runtime: Runtime | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._live: bool | None = None
        self._failures = 0
        self._unregistered_since: float | None = None
        self._last: tuple[Any, Any] | None = None  # (frame, detection)
        self._lock = threading.Lock()
        self._new_frame = threading.Condition(self._lock)
        self._latest: Any = None  # the last frame read (before it is read by the reader)
        self._frames_read = 0
        self._next_reader: Any = None  # a reader for a new model, taken up by the camera thread
        self._hold: tuple[Message, float] | None = None  # (why, until) while enrolment pieces are on the board
        self._dice: Any = None  # (vision.dice.DiceReader, DiceWatch) when the layout has a dice tray (colour mode)
        self._dice_ready = False
        self._dice_reading: Any = None  # the last vision.dice.DiceReading
        self.dice_spaces = frozenset(sp.id for sp in getattr(layout, "spaces", ()) if sp.kind == "dice")
        self.observations = 0
        self.last_error: str | None = None

    def _clock(self) -> float:
        return self._runtime.clock() if self._runtime is not None else time.monotonic()

    def _make_reader(self, model: Any) -> Any:
        from vision.card_reader import reader_for_layout  # TableReader, or CardReader for card rows

        return reader_for_layout(self.layout, model, clock=self._clock)

    def start(self, runtime: "Runtime") -> None:
        self._runtime = runtime
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def _set_live(self, live: bool, why: str = "", reason: Message | None = None) -> None:
        if live == self._live:
            return
        self._live = live
        assert self._runtime is not None
        self._runtime.set_source(self.source, live, None if live else (reason or Message.t('tableref.devices.camera', why=why)))

    # -- enrolment hooks (any thread) ------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def capture(self, timeout: float = 5.0) -> Any:
        """A fresh photo (BGR image): while the camera thread runs, of the second frame it reads
        after this call (the first may have been exposed before the caller's last change to the
        table); otherwise of one read from the source here. Where the source has a detail stream
        (``[devices.camera] detail_width``), the photo is that frame's still: enrolment then learns
        printed values from as many pixels as the reader reads them in. Raises
        ``hardware.camera.CameraError``."""
        from hardware.camera import CameraError, FrameUnavailable

        if not self.running:
            last: Exception | None = None
            for _ in range(5):
                try:
                    return self._photo(self.frames.read())
                except FrameUnavailable as exc:
                    last = exc
            raise CameraError(f"no frame from the camera: {last}")
        for _ in range(5):  # a frame whose still was gone by the time it was asked for: the next one
            with self._new_frame:
                want = self._frames_read + 2
                if not self._new_frame.wait_for(lambda: self._frames_read >= want or self._stop.is_set(), timeout):
                    raise CameraError(f"no frame from the camera within {timeout:g} s ({self.last_error or 'no error reported'})")
                if self._latest is None:
                    raise CameraError("the camera is stopping")
                frame = self._latest
            try:
                return self._photo(frame)
            except FrameUnavailable:
                continue
        raise CameraError("the camera's still could not be taken")

    def _photo(self, frame: Any) -> Any:
        """``frame``'s still where the source has one, else its image; ``FrameUnavailable`` when the
        still is gone (a later frame was taken)."""
        from hardware.camera import FrameUnavailable

        detail = self.frames.detail_for(frame)
        if detail is None:
            return frame.image
        still = detail()
        if still is None:
            raise FrameUnavailable("the frame's still is gone")
        return still

    def use_model(self, model: Any) -> None:
        """Read with this table model from the next frame on (colour mode). The reader is built here,
        so a model that does not fit the layout raises here (``CalibrationError``), not on the thread."""
        if self.mode != "colour":
            from vision.errors import CalibrationError

            raise CalibrationError("the camera reads piece tags (marker mode): a table model is for colour mode")
        reader = self._make_reader(model)
        with self._lock:
            self.model = model
            self._dice_ready = False  # the dice reader compares with the new model's empty board
            if self.running:
                self._next_reader = reader
            else:
                self.reader = reader

    def hold(self, reason: Message, seconds: float = 900.0) -> None:
        """Keep readings from the referee for ``seconds`` (renewed by each call) or until ``release``."""
        with self._lock:
            self._hold = (reason, self._clock() + seconds)

    def release(self) -> None:
        with self._lock:
            self._hold = None

    def _held(self) -> Message | None:
        with self._lock:
            if self._hold is None:
                return None
            reason, until = self._hold
            if self._clock() >= until:
                self._hold = None
                return None
            return reason

    def last_registration(self) -> Any:
        """The registration of the last frame read (``vision.registration.Registration``), or None."""
        with self._lock:
            last = self._last
        return None if last is None else last[1].registration

    def model_info(self) -> dict[str, Any]:
        """What the dashboard shows about the table model (colour mode)."""
        model = self.model
        if self.mode != "colour":
            return {"mode": self.mode, "enrolled": False, "message": Message.t('tableref.devices.camera_reads_piece_tags_marker').to_json()}
        if model is None or not getattr(model, "enrolled", False):
            out: dict[str, Any] = {"mode": "colour", "enrolled": False, "path": self.model_path,
                                   "message": Message.t('tableref.devices.camera_not_enrolled_piece_colours').to_json()}
            if model is not None:
                out["created"] = getattr(model, "created", None)
            return out
        from datetime import datetime, timezone

        day = datetime.fromtimestamp(float(model.created), timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        return {"mode": "colour", "enrolled": True, "created": float(model.created), "path": self.model_path,
                "message": Message.t('tableref.devices.camera_enrolled', day=day).to_json()}

    # -- the camera thread -------------------------------------------------------------------------
    def _run(self) -> None:
        from hardware.camera import CameraError, EndOfStream, FrameUnavailable

        rt = self._runtime
        assert rt is not None
        if self.reader is None:
            if self.mode == "colour":
                self.reader = self._make_reader(self.model)
            else:  # pragma: no cover - marker mode builds its reader in camera_device_from_config
                from vision.reader import BoardReader

                self.reader = BoardReader(self.layout, clock=rt.clock)
        next_at = rt.clock()
        while not self._stop.is_set():
            wait = next_at - rt.clock()
            if wait > 0 and self._stop.wait(wait):
                break
            next_at = max(next_at + self.interval, rt.clock())
            try:
                frame = self.frames.read()
            except FrameUnavailable as exc:
                self._failed(str(exc))
                continue
            except (EndOfStream, CameraError) as exc:
                self._failed(str(exc), fatal=True)
                next_at = rt.clock() + 1.0  # a dead camera is retried once a second
                continue
            except Exception as exc:  # noqa: BLE001 -- anything else from the source (a driver's bug, the
                # synthetic camera refusing a scene it cannot draw) must not end the thread: the camera is shown
                # down with the reason and retried once a second, like a dead one
                log.warning("camera: reading a frame failed: %r", exc)
                self._failed(f"camera read failed: {exc}", fatal=True)
                next_at = rt.clock() + 1.0
                continue
            with self._new_frame:
                self._latest = frame
                self._frames_read += 1
                self._new_frame.notify_all()
                if self._next_reader is not None:
                    self.reader, self._next_reader = self._next_reader, None
            try:
                det = self.reader.read(frame.image, frame.at, detail=self.frames.detail_for(frame))
            except Exception as exc:  # a frame the pipeline cannot read is a lost frame
                self._failed(f"frame not readable: {exc}")
                continue
            self._failures = 0
            if self._next_reader is not None:  # a new table model came while the old one read this frame: drop it
                continue
            with self._lock:
                self._last = (frame, det)
            held = self._held()
            if held is not None:
                self._set_live(False, reason=held)
                continue
            if not det.registration.usable:
                self._unregistered_since = self._unregistered_since or rt.clock()
                if rt.clock() - self._unregistered_since >= self.unregistered_after:
                    self.last_error = "board not registered (corner markers not found)"
                    self._set_live(False, self.last_error)
                    continue
            else:
                self._unregistered_since = None
                self._set_live(True)
            self.observations += 1
            rt.submit_observation(self._board_observation(det))
            seen = self._see_dice(frame, det)
            if seen is not None:
                rt.submit_seen(seen)

    def _board_observation(self, det: Any) -> Any:
        """The frame's reading without the dice tray: dice are read by the dice reader, not as pieces."""
        obs = det.observation(self.source)
        if not self.dice_spaces:
            return obs
        from scorer.core.observation import Observation

        return Observation(obs.source, obs.at, tuple(r for r in obs.readings if r.space not in self.dice_spaces))

    def _see_dice(self, frame: Any, det: Any) -> Any:
        """Read the dice tray (colour mode, a layout with one); a landing becomes a
        ``scorer.core.observation.ChanceSeen`` for the referee, once."""
        if not self._dice_ready:
            self._dice_ready = True
            self._dice = None
            if self.dice_spaces and self.mode == "colour":
                from vision.dice import DiceReader, DiceWatch

                try:
                    self._dice = (DiceReader(self.layout, model=self.model), DiceWatch())
                except ValueError as exc:  # a dice space without a die kind: nothing to read
                    log.warning("camera: no dice reading: %s", exc)
        if self._dice is None:
            return None
        from scorer.core.observation import ChanceSeen

        reader, watch = self._dice
        reg = det.registration
        reading = reader.read(frame.image, reg.homography if reg.usable else None, at=frame.at,
                              occluded=reader.tray.id in det.occluded)
        self._dice_reading = reading
        roll = watch.update(reading)
        if roll is None:
            return None
        return ChanceSeen("dice", roll.values, self.source, frame.at if roll.at is None else roll.at, reader.tray.id,
                          None if roll.readable else reading.reason)

    def _failed(self, why: str, fatal: bool = False) -> None:
        self._failures += 1
        self.last_error = why
        if fatal or self._failures >= self.fail_after:
            self._set_live(False, why)

    def jpeg(self) -> bytes | None:
        import cv2

        with self._lock:
            latest = self._latest  # the newest frame, also while the reader is busy or held
        if latest is None:
            return None
        image = latest.image
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return buf.tobytes() if ok else None

    def board_image(self) -> Any:
        from tableref.service import BoardImage
        from vision.snapshot import rectified_image
        import cv2

        with self._lock:
            last = self._last
        if last is None or not last[1].registration.usable:
            return None
        px = 1.5
        img = rectified_image(last[0].image, last[1].registration, self.layout, px, draw_spaces=False)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            return None
        return BoardImage(buf.tobytes(), "image/jpeg", tuple(self.layout.size), px)

    def close(self) -> None:
        self._stop.set()
        with self._new_frame:
            self._new_frame.notify_all()
        if self._thread is not None and self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        try:
            self.frames.close()
        except Exception:
            pass

    def status(self) -> dict[str, Any]:
        with self._lock:
            last = self._last
            held = self._hold
        out: dict[str, Any] = {"state": "ok" if self._live else ("starting" if self._live is None else "down"),
                               "source": getattr(self.frames, "name", "camera"), "emulated": self.emulated,
                               "observations": self.observations, "last_error": self.last_error}
        try:
            out.update(self.frames.stats().to_json())
        except Exception:
            pass
        if out.get("last_error") is None:  # the source saw no error of its own: the device's (a frame not read ...)
            out["last_error"] = self.last_error
        out["model"] = self.model_info()
        if held is not None:
            out["held"] = held[0].to_json()
        if last is not None:
            out["registration"] = last[1].registration.to_json()
            out["occluded"] = list(last[1].occluded)
            out["unsure"] = list(last[1].unsure)  # seen, not read sure (no hand)
        if self._dice_reading is not None:
            out["dice"] = self._dice_reading.to_json()
        return out


def camera_device_from_config(config: Any, clock: Any) -> Any:
    """The camera named in the configuration: ``picamera2``, ``usb:N``, ``synthetic`` or a folder.

    Colour mode reads with the table model: ``[devices.camera] model`` (must exist), else
    ``<data>/table-model.npz`` when the dashboard has saved one, else the layout's nominal pieces.
    Marker mode reads piece tags with ``vision.reader.BoardReader``. A model that cannot be read
    is a ``ConfigError`` naming the file (one line at start-up)."""
    import os

    from hardware.camera import open_source
    from tableref.config import ConfigError
    from vision.layout import load_layout

    cam = config.camera
    layout = load_layout(cam.layout or config.setup.get("board") or "china-a")
    reader = None
    model = None
    model_path = config.camera_model_path if hasattr(config, "camera_model_path") else cam.model
    mode = getattr(cam, "mode", "colour")
    if mode == "marker":
        from vision.errors import VisionError
        from vision.reader import BoardReader
        from vision.render import default_tag_map
        from vision.tags import load_tag_map

        try:
            tag_map = load_tag_map(cam.tags) if cam.tags else default_tag_map(layout)
        except (VisionError, ValueError) as exc:
            raise ConfigError(f"{config.path}: [devices] camera.tags: {exc}") from None
        reader = BoardReader(layout, mode="marker", tag_map=tag_map, clock=clock)
        model_path = None
    elif model_path is not None and (cam.model is not None or os.path.exists(model_path)):
        model = load_table_model(model_path, layout, where=f"{config.path}: [devices] camera.model")
    size = (cam.width, cam.height)
    if cam.source == "picamera2":
        spec = "picamera"
    elif cam.source.startswith("usb:"):
        spec = "opencv:" + cam.source[4:]
    elif cam.source == "synthetic":
        spec = "synthetic:" + layout.id
    else:
        spec = "images:" + cam.source
    frames = open_source(spec, clock=clock, size=size, fps=cam.fps, loop=True, detail_size=getattr(cam, "detail", None))
    return CameraDevice(frames, layout, reader=reader, model=model, model_path=model_path, mode=mode, fps=cam.fps,
                        emulated=cam.source == "synthetic")


def load_table_model(path: str, layout: Any, *, where: str) -> Any:
    """``TableModel.load`` for this layout, any problem as one ``ConfigError`` line naming the file."""
    from tableref.config import ConfigError
    from vision.enrolment import TableModel, check_model
    from vision.errors import VisionError

    try:
        model = TableModel.load(path, layout)
        check_model(model, layout)
    except (VisionError, ValueError, OSError) as exc:
        raise ConfigError(f"{where}: cannot use the table model {path}: {exc}") from None
    return model
