import logging

import cv2
import numpy as np
import pytest

from hardware.camera import (CameraError, EndOfStream, Frame, FrameUnavailable, ImageFolderSource, OpenCVCamera,
                             PiCameraSource, SyntheticCamera, VideoFileSource, open_source)
from scorer.core.types import Board, Piece


class FakeClock:
    def __init__(self, step: float = 0.1):
        self.t = 0.0
        self.step = step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def _img(v: int) -> np.ndarray:
    return np.full((48, 64, 3), v, np.uint8)


def test_image_folder_replay_counts_unreadable_files(tmp_path, caplog):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), _img(40 * (i + 1)))
    (tmp_path / "f1b.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "notes.txt").write_text("ignored")
    clock = FakeClock(0.25)
    with ImageFolderSource(tmp_path, clock=clock) as src:
        a = src.read()
        assert isinstance(a, Frame) and a.index == 0 and int(a.image[0, 0, 0]) == 40
        assert src.read().image[0, 0, 0] == 80
        with caplog.at_level(logging.WARNING):
            with pytest.raises(FrameUnavailable):
                src.read()
        assert src.failures == 1 and src.stats().consecutive_failures == 1
        c = src.read()
        assert c.image[0, 0, 0] == 120 and src.stats().consecutive_failures == 0
        with pytest.raises(EndOfStream):
            src.read()
        assert src.fps == pytest.approx(4.0, rel=0.3)  # 0.25 s between frames on the fake clock
    assert src.closed
    with pytest.raises(CameraError):
        src.read()


def test_folder_loop_and_frames_iterator(tmp_path):
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"{i}.png"), _img(10 + i))
    src = ImageFolderSource(tmp_path, loop=True, clock=FakeClock())
    values = [int(f.image[0, 0, 0]) for f in src.frames(limit=5)]
    assert values == [10, 11, 10, 11, 10]
    src.close()
    src.close()  # idempotent


def test_video_file_replay(tmp_path):
    path = tmp_path / "clip.avi"
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert w.isOpened()
    for i in range(4):
        w.write(_img(50 * i + 20))
    w.release()
    with VideoFileSource(path, clock=FakeClock()) as src:
        frames = list(src.frames())
        assert len(frames) == 4 and src.nominal_fps == pytest.approx(10.0)
        assert abs(int(frames[2].image.mean()) - 120) < 6
    with pytest.raises(CameraError):
        VideoFileSource(tmp_path / "missing.avi")


def test_opencv_device_that_does_not_exist_fails_and_counts(caplog):
    cam = OpenCVCamera("/dev/tableref-no-such-camera", clock=FakeClock(), reopen_after=2)
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            with pytest.raises(FrameUnavailable):
                cam.read()
    assert cam.failures == 3 and cam.stats().last_error
    cam.close()


def test_picamera_is_optional():
    try:
        import picamera2  # noqa: F401
    except Exception:
        with pytest.raises(CameraError, match="picamera2"):
            PiCameraSource()
    else:  # pragma: no cover - only on a Pi
        pytest.skip("picamera2 present")


def test_open_source_specs(tmp_path, small_layout_path):
    cv2.imwrite(str(tmp_path / "a.png"), _img(1))
    assert isinstance(open_source(f"images:{tmp_path}"), ImageFolderSource)
    assert isinstance(open_source("opencv:7"), OpenCVCamera)
    assert isinstance(open_source(f"synthetic:{small_layout_path}", size=(320, 180)), SyntheticCamera)
    with pytest.raises(CameraError):
        open_source("webcam-please")


@pytest.fixture
def small_layout_path(tmp_path):
    import json

    from vision.make_layouts import small_test_layout

    p = tmp_path / "small.json"
    p.write_text(json.dumps(small_test_layout()))
    return p


def test_synthetic_camera_scripted_game_with_reader(small_layout_path):
    from vision.layout import load_layout
    from vision.reader import BoardReader
    from vision.render import Conditions

    layout = load_layout(small_layout_path)
    clock = FakeClock(0.5)
    cam = SyntheticCamera(layout, conditions=Conditions(size=(960, 540)), clock=clock, seed=3)
    reader = BoardReader(layout, clock=clock)
    f = cam.read()
    assert reader.read(f.image, f.at).observation().board() == Board()
    cam.place("wei-2", Piece("red", "house"))
    cam.place("han-dragon", Piece("blue", "emissary"), 2)
    f = cam.read()
    assert cam.renders == 2
    assert reader.read(f.image, f.at).observation().board() == cam.board
    # still scene: no re-render, fresh noise, the reader reuses its reading
    f2 = cam.read()
    assert cam.renders == 2 and not np.array_equal(f.image, f2.image)
    assert reader.read(f2.image, f2.at).reused
    cam.hand_over("han-dragon")
    f = cam.read()
    det = reader.read(f.image, f.at)
    assert "han-dragon" in det.occluded and cam.truth.occluded <= set(det.occluded)
    cam.withdraw_hand()
    cam.remove("han-dragon", Piece("blue", "emissary"))
    cam.bump()
    f = cam.read()
    det = reader.read(f.image, f.at)
    assert det.registration.fresh and det.observation().board() == cam.board
    assert cam.stats().frames == 5 and cam.fps == pytest.approx(2.0, rel=0.3)
    cam.close()


def test_synthetic_camera_noise_is_added_in_bands_as_if_at_once(small_layout_path):
    """The still scene's sensor noise is made a band of rows at a time (no full-frame float
    temporaries): the same frame as drawing the whole frame's noise in one go."""
    from vision.layout import load_layout
    from vision.render import Conditions

    cam = SyntheticCamera(load_layout(small_layout_path), conditions=Conditions(size=(320, 250)), seed=5, noise_sigma=2.0)
    clean = cam.read().image  # the render itself
    rng = np.random.default_rng(5)
    for _ in range(2):
        want = np.clip(clean.astype(np.float32) + rng.normal(0.0, 2.0, clean.shape).astype(np.float32), 0, 255).astype(np.uint8)
        assert np.array_equal(cam.read().image, want)
    cam.close()


class _FakeRequest:
    """A picamera2 capture request: both streams of one moment, released by the caller."""

    def __init__(self, cam: "_FakePicamera2", n: int):
        self.cam, self.n, self.released = cam, n, False

    def release(self) -> None:
        self.released = True

    def make_array(self, stream: str) -> np.ndarray:
        assert not self.released, "a released request's buffers are gone"
        (w, h), fmt = self.cam.streams[stream]
        if fmt == "YUV420":  # I420: the Y plane (grey level n), then U and V planes (neutral)
            return np.concatenate([np.full((h, w), 100 + 10 * self.n, np.uint8), np.full((h // 2, w), 128, np.uint8)])
        return np.full((h, w, 4), 100 + 10 * self.n, np.uint8)  # "BGR888" padded to four bytes, as some modes give it


class _FakePicamera2:
    """picamera2's Picamera2 as far as PiCameraSource uses it (no Pi here)."""

    made: list["_FakePicamera2"] = []

    def __init__(self):
        self.streams: dict = {}
        self.requests: list[_FakeRequest] = []
        self.started = self.closed = False
        _FakePicamera2.made.append(self)

    def create_video_configuration(self, main, lores=None, controls=None):
        return {"main": main, "lores": lores, "controls": controls}

    def configure(self, config):
        self.streams = {k: (v["size"], v["format"]) for k, v in config.items() if k in ("main", "lores") and v}

    def start(self):
        self.started = True

    def capture_array(self, stream):
        return _FakeRequest(self, 1).make_array(stream)

    def capture_request(self):
        self.requests.append(_FakeRequest(self, len(self.requests) + 1))
        return self.requests[-1]

    def stop(self):
        self.started = False

    def close(self):
        self.closed = True


@pytest.fixture
def fake_picamera2(monkeypatch):
    import sys
    import types

    module = types.ModuleType("picamera2")
    module.Picamera2 = _FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    _FakePicamera2.made.clear()
    return _FakePicamera2.made


def test_pi_camera_watches_its_low_resolution_stream_and_makes_a_still_only_when_asked(fake_picamera2):
    """With ``detail_size`` the Pi camera streams main (the still) and lores (the watched frame);
    a frame's still is made from that frame's own request, only when asked, and is gone once the
    next frame is taken. Without it, one stream as before."""
    cam = PiCameraSource(size=(64, 48), detail_size=(256, 192), fps=None)
    pi = fake_picamera2[-1]
    assert pi.streams == {"main": ((256, 192), "BGR888"), "lores": ((64, 48), "YUV420")} and pi.started
    f1 = cam.read()
    assert f1.image.shape == (48, 64, 3) and len(set(f1.image[0, 0].tolist())) == 1  # YUV420 -> BGR: grey stays grey
    assert abs(int(f1.image[0, 0, 0]) - 110) <= 12  # (limited range: 1.16 x (Y - 16))
    still = cam.detail_for(f1)
    assert still is not None
    big = still()
    assert big.shape == (192, 256, 3) and int(big[0, 0, 0]) == 110  # the same moment as f1
    f2 = cam.read()
    assert pi.requests[0].released and not pi.requests[1].released
    assert still() is None  # f1's still is gone
    assert int(cam.detail_for(f2)()[0, 0, 0]) == 120
    cam.close()
    assert all(r.released for r in pi.requests) and pi.closed
    plain = PiCameraSource(size=(64, 48), fps=None)
    assert fake_picamera2[-1].streams == {"main": ((64, 48), "BGR888")}
    f = plain.read()
    assert f.image.shape == (48, 64, 3) and plain.detail_for(f) is None
    plain.close()


def test_synthetic_camera_renders_a_still_of_the_frame_it_watched(small_layout_path):
    from vision.layout import load_layout
    from vision.render import Conditions

    layout = load_layout(small_layout_path)
    cam = SyntheticCamera(layout, conditions=Conditions(size=(320, 180)), seed=3, noise_sigma=0.0,
                          detail_size=(960, 540))
    f = cam.read()
    still = cam.detail_for(f)
    big = still()
    assert big.shape == (540, 960, 3)
    small = cv2.resize(big, (320, 180), interpolation=cv2.INTER_AREA)
    assert float(np.abs(small.astype(float) - f.image.astype(float)).mean()) < 12  # the same view
    assert still() is big  # rendered once
    cam.place("wei-2", Piece("red", "house"))
    assert still() is None  # the scene changed: that frame's still is gone
    assert SyntheticCamera(layout, conditions=Conditions(size=(320, 180))).detail_for(f) is None
    with pytest.raises(CameraError, match="no detail stream"):
        open_source("opencv:7", detail_size=(1920, 1080))
    cam.close()
