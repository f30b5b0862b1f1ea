"""The Pi camera through picamera2 (docs/hil.md, "Camera"): it imports in the service's virtualenv,
gives frames of the configured size at the configured rate, sees light, and finds the board."""

from __future__ import annotations

import time

import numpy as np
import pytest

from hil_rig import ask, setting, wait_until


def test_picamera2_imports_beside_the_virtualenvs_numpy() -> None:
    """Raspberry Pi OS builds simplejpeg against its numpy 1.x; the installer puts a numpy-2 build in the venv."""
    import numpy

    from picamera2 import Picamera2  # noqa: F401  (an ImportError or "numpy.dtype size changed" fails here)

    assert int(numpy.__version__.split(".")[0]) >= 1


@pytest.fixture
def camera():
    from hardware.camera import PiCameraSource

    w, h = (int(x) for x in setting("CAMERA_SIZE", "1280x720").split("x"))
    source = PiCameraSource(size=(w, h), fps=float(setting("CAMERA_FPS", "15")))
    yield source
    source.close()


def test_frames_have_the_configured_size_and_arrive_at_the_configured_rate(camera) -> None:
    w, h = camera.size
    first = camera.read()
    t0 = time.monotonic()
    frames = [camera.read() for _ in range(30)]
    took = time.monotonic() - t0
    assert first.image.shape == (h, w, 3) and first.image.dtype == np.uint8
    assert all(f.image.shape == (h, w, 3) for f in frames)
    assert [f.index for f in frames] == list(range(first.index + 1, first.index + 31))
    fps = 30 / took
    assert fps >= 0.8 * float(setting("CAMERA_FPS", "15")), f"{fps:.1f} frames/s"
    assert camera.stats().failures == 0


def test_the_camera_sees_light_and_a_living_scene(camera) -> None:
    ask("Light the table as for a game")
    a, b = camera.read().image, camera.read().image
    assert 20 < float(a.mean()) < 235, f"mean brightness {a.mean():.0f}: lens cap on, or the exposure is stuck"
    assert float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean()) > 0.0, "two frames are identical: a frozen pipeline"


def test_the_board_is_found_by_its_corner_markers(camera) -> None:
    import cv2

    from vision.layout import load_layout
    from vision.registration import Registrar

    layout = load_layout(setting("LAYOUT", "china-a"))
    ask(f"Put the {layout.id} board with its four corner markers under the camera")
    registrar = Registrar(layout)

    def registered():
        reg = registrar.detect(cv2.cvtColor(camera.read().image, cv2.COLOR_BGR2GRAY))
        return reg if reg.usable and not reg.missing else None

    reg = wait_until(registered)
    assert reg, f"corner markers not all found: {registrar.current.to_json()}"
    assert reg.error_px < 3.0 and reg.obliqueness > 0.5
