"""The guided enrolment of a table's camera: the reader learns this table's pieces from two photos.

One flow, used by the dashboard (``/enrol/camera``, ``/api/camera/enrol``), ``tableref demo
--camera-only`` and anything else that holds a camera device:

1. **empty**: the board cleared; a fresh frame is registered by its corner markers (a fresh
   ``Registrar`` each time). Markers missing: refused, naming them; nothing is kept. From here on
   the camera's readings are kept from the referee (``CameraDevice.hold``) while the user puts
   enrolment pieces on the board.
2. **pieces**: one piece of each type on the spaces ``vision.enrolment.enrolment_plan`` marks; a
   fresh frame, registered, and ``vision.enrolment.enrol``. A planned piece not found: refused with
   the reader's message (retake); the model in use does not change.
3. **save**: ``TableModel.save`` (written whole, then renamed) to the camera's model path, the
   camera switches to it (``CameraDevice.use_model``) and is given back to the referee.
   **cancel** drops the session and gives the camera back.

The camera device needs ``layout``, ``capture()``, ``use_model(model)``, ``hold(reason, seconds)``,
``release()``, ``model_info()``, ``last_registration()`` and ``model_path`` (``tableref.camera_device.CameraDevice``).
"""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from scorer.core.types import Message
from tableref.service import CommandResult

STEPS = ("empty", "pieces", "save", "cancel")
HOLD = Message.t('tableref.camera_enrolment.camera_enrolling_the_table_the')
HOLD_SECONDS = 900.0
MARKER_MODE = Message.t('tableref.camera_enrolment.this_camera_reads_piece_tags')  # an abandoned enrolment gives the camera back after 15 minutes


@dataclass(frozen=True)
class _Empty:
    image: Any
    homography: Any
    at: float


def _refused(code: str, message: Message, **data: Any) -> CommandResult:
    return CommandResult(False, message, {"code": code, **data})


def lab_to_hex(lab: Any) -> str:
    """An OpenCV 8-bit Lab colour (L 0-255, a and b offset by 128) as #rrggbb."""
    import cv2
    import numpy as np

    px = np.clip(np.round(np.asarray(lab, np.float32)), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    b, g, r = (int(v) for v in cv2.cvtColor(px, cv2.COLOR_LAB2BGR)[0, 0])
    return f"#{r:02x}{g:02x}{b:02x}"


def model_summary(model: Any, layout: Any) -> dict[str, Any]:
    """What the result step shows: per colour its learned shades (swatches), per piece type its
    footprint against the layout's nominal one, whether each was enrolled or is nominal, and what the
    camera at this distance will not read (``vision.readability``)."""
    import numpy as np

    colours = []
    for owner, protos in model.colours.items():
        arr = np.asarray(protos, np.float32).reshape(-1, 3)
        order = np.argsort(-arr[:, 0])  # lit shades first
        colours.append({"owner": str(owner), "swatches": [lab_to_hex(arr[i]) for i in order]})
    sizes = []
    for piece, size in model.sizes.items():
        spec = layout.pieces.get(piece.kind) if hasattr(layout.pieces, "get") else None
        nominal = float(spec.area) if spec is not None else None
        sizes.append({"owner": str(piece.owner), "kind": piece.kind, "area_mm2": round(float(size.area_mm2), 1),
                      "nominal_mm2": None if nominal is None else round(nominal, 1),
                      "height_mm": float(size.height_mm), "enrolled": bool(size.enrolled)})
    from vision.readability import cannot_read

    return {"enrolled": bool(model.enrolled), "created": float(model.created), "notes": list(model.notes),
            "colours": colours, "sizes": sizes,
            "cannot_read": [m.to_json() for m in cannot_read(layout, model)]}


def _missing_markers(registration: Any, layout: Any) -> list[dict[str, Any]]:
    from vision.markers import CORNER_NAMES

    found = set(registration.found) if registration is not None else set()
    return [{"id": m.id, "corner": name, "seen": m.id in found} for m, name in zip(layout.markers, CORNER_NAMES)]


def corner_label(corner: str) -> Message:
    """A board corner (``top-left`` ... as ``vision.markers.CORNER_NAMES`` names them) in every language."""
    key = f"tableref.camera_enrolment.corner.{corner.replace('-', '_')}"
    return Message.t(key) if corner in ("top-left", "top-right", "bottom-right", "bottom-left") else Message.t("name.as_given", name=corner)


def _registration_refusal(registration: Any, layout: Any, photo: Message) -> CommandResult:
    corners = _missing_markers(registration, layout)
    missing = [c for c in corners if not c["seen"]]
    reason = registration.message if registration is not None else Message.t('tableref.camera_enrolment.text')
    if missing:
        named = tuple(Message.t("tableref.camera_enrolment.missing_marker", corner=corner_label(c["corner"]), id=c["id"])
                      for c in missing)
        msg = Message.t('tableref.camera_enrolment.the_board_was_not_found', photo=photo, text=named)
    else:
        msg = Message.t('tableref.camera_enrolment.the_board_could_not_be', photo=photo, reason=reason)
    return _refused("registration", msg, corners=corners,
                    registration=registration.to_json() if registration is not None else None)


_NOT_FOUND = re.compile(r"no piece found on (.+?) in the pieces photo")


def _calibration_message(exc: Exception) -> Message:
    text = str(exc)
    m = _NOT_FOUND.search(text)
    if m:
        return Message.t("tableref.camera_enrolment.pieces_not_found", spaces=tuple(m.group(1).split(", ")))
    return Message.t('tableref.camera_enrolment.the_pieces_could_not_be', text=text)


class CameraEnrolment:
    """One enrolment session for one camera device (thread-safe; see the module doc)."""

    def __init__(self, camera: Any, *, clock: Callable[[], float] = time.time, hold_seconds: float = HOLD_SECONDS,
                 default_path: str | None = None) -> None:
        self.camera = camera
        self.layout = camera.layout
        self.clock = clock
        self.hold_seconds = hold_seconds
        self.default_path = default_path
        self._lock = threading.RLock()
        self._empty: _Empty | None = None
        self._result: Any = None  # the learned TableModel, not saved yet
        self._plan: list[tuple[str, Any]] | None = None

    @property
    def model_path(self) -> str | None:
        return getattr(self.camera, "model_path", None) or self.default_path

    def plan(self) -> list[tuple[str, Any]]:
        """(space, piece) pairs: one per space, or several per section of a card layout (``vision.card_enrol``)."""
        if self._plan is None:
            from vision.card_enrol import plan_items

            self._plan = plan_items(self.layout)
        return self._plan

    # -- reading ------------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        with self._lock:
            empty, result = self._empty, self._result
        reg = self.camera.last_registration()
        step = 1 if empty is None else (2 if result is None else 3)
        available = getattr(self.camera, "mode", "colour") == "colour"
        return {
            "available": available,
            "message": None if available else MARKER_MODE.to_json(),
            "step": step, "steps": 3,
            "layout": self.layout.id,
            "plan": [{"space": sid, "owner": str(p.owner), "kind": p.kind} for sid, p in self.plan()],
            "live": {"registered": bool(reg is not None and reg.usable),
                     "corners": _missing_markers(reg, self.layout),
                     "message": reg.message.to_json() if reg is not None else None},
            "empty_at": empty.at if empty is not None else None,
            "result": model_summary(result, self.layout) if result is not None else None,
            "model": self.camera.model_info(),
            "path": self.model_path,
        }

    # -- the steps ----------------------------------------------------------------------------------
    def run(self, step: str, actor: str) -> CommandResult:
        handler = {"empty": self.capture_empty, "pieces": self.capture_pieces, "save": self.save, "cancel": self.cancel}.get(step)
        if handler is None:
            return _refused("bad_step", Message.t('tableref.camera_enrolment.unknown_enrolment_step', step=step))
        return handler(actor)

    def _available(self) -> CommandResult | None:
        if getattr(self.camera, "mode", "colour") != "colour":
            return _refused("not_supported", MARKER_MODE)
        return None

    def _capture(self, photo: Message, empty: "_Empty | None" = None) -> tuple[Any, Any] | CommandResult:
        """A photo and its registration: by the corner markers, or for the pieces photo (``empty`` given) by the
        empty photo's pose refined on the print (``vision.enrolment.register_photo``)."""
        from hardware.camera import CameraError
        from vision.enrolment import register_photo

        try:
            image = self.camera.capture()
        except CameraError as exc:
            return _refused("no_frame", Message.t('tableref.camera_enrolment.no_picture_from_the_camera', exc=exc))
        reg = register_photo(self.layout, image, None if empty is None else (empty.image, empty.homography))
        if not reg.usable:
            return _registration_refusal(reg, self.layout, photo)
        return image, reg

    def capture_empty(self, actor: str) -> CommandResult:
        refused = self._available()
        if refused is not None:
            return refused
        with self._lock:
            got = self._capture(Message.t('tableref.camera_enrolment.empty_board_photo'))
            if isinstance(got, CommandResult):
                return got
            image, reg = got
            self._empty = _Empty(image, reg.homography, self.clock())
            self._result = None
            self.camera.hold(HOLD, self.hold_seconds)
        return CommandResult(True, Message.t('tableref.camera_enrolment.empty_board_photo_taken_step'),
                             {"step": 2, "corners": _missing_markers(reg, self.layout)})

    def capture_pieces(self, actor: str) -> CommandResult:
        from vision.card_enrol import enrol_table
        from vision.errors import CalibrationError

        refused = self._available()
        if refused is not None:
            return refused
        with self._lock:
            if self._empty is None:
                return _refused("order", Message.t('tableref.camera_enrolment.take_the_empty_board_photo'))
            self.camera.hold(HOLD, self.hold_seconds)
            got = self._capture(Message.t('tableref.camera_enrolment.pieces_photo'), self._empty)
            if isinstance(got, CommandResult):
                return got
            image, reg = got
            try:
                model = enrol_table(self.layout, self._empty.image, self._empty.homography, image, reg.homography, self.plan())
            except CalibrationError as exc:
                return _refused("pieces", _calibration_message(exc))
            self._result = model
        return CommandResult(True, Message.t('tableref.camera_enrolment.pieces_learned_step_2_of'),
                             {"step": 3, "result": model_summary(model, self.layout)})

    def save(self, actor: str) -> CommandResult:
        from vision.errors import VisionError

        with self._lock:
            model = self._result
            if model is None:
                return _refused("order", Message.t('tableref.camera_enrolment.nothing_to_save_yet_take'))
            path = self.model_path
            if not path:
                return _refused("no_path", Message.t('tableref.camera_enrolment.this_table_has_no_place'))
            try:
                os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
                model.save(path)  # written whole, then renamed
                self.camera.use_model(model)
            except (OSError, VisionError, ValueError) as exc:
                return _refused("save", Message.t('tableref.camera_enrolment.could_not_save_the_table', path=path, exc=exc))
            self._empty = None
            self._result = None
            self.camera.release()
        name = os.path.basename(path)
        return CommandResult(True, Message.t('tableref.camera_enrolment.table_model_saved_the_camera', name=name),
                             {"step": 1, "path": path, "model": self.camera.model_info()})

    def cancel(self, actor: str) -> CommandResult:
        with self._lock:
            self._empty = None
            self._result = None
            self.camera.release()
        return CommandResult(True, Message.t('tableref.camera_enrolment.enrolment_cancelled_the_camera_reads'),
                             {"step": 1})
