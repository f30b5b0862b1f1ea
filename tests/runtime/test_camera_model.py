"""The camera's table model in the runtime: ``[devices.camera] model`` (relative to the data folder),
the default ``<data>/table-model.npz`` the dashboard saves, marker mode on ``BoardReader``, and a
missing or unreadable model as one line at start-up. ``CameraDevice.capture``/``use_model``/``hold``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hardware.camera")

import cv2  # noqa: E402

from hardware.camera import SyntheticCamera  # noqa: E402
from scorer.core.types import Message  # noqa: E402
from tableref.cli import main  # noqa: E402
from tableref.config import ConfigError, config_from_dict, load_config  # noqa: E402
from tableref.camera_device import CameraDevice, camera_device_from_config  # noqa: E402
from vision.enrolment import enrol, enrolment_plan  # noqa: E402
from vision.errors import CalibrationError  # noqa: E402
from vision.layout import load_layout  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.registration import Registrar  # noqa: E402
from vision.render import Conditions  # noqa: E402
from vision.table_reader import TableReader  # noqa: E402


def write_config(tmp_path: Path, camera: str) -> Path:
    cfg = tmp_path / "table.toml"
    cfg.write_text('[table]\ndata_dir = "data"\n[game]\nid = "china"\nplayers = ["blue", "green", "red"]\nboard = "china-a"\n'
                   f'[devices.camera]\nsource = "synthetic"\n{camera}\n[gpio]\nenabled = false\n[web]\nenabled = false\n')
    (tmp_path / "data").mkdir(exist_ok=True)
    return cfg


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory):
    """An enrolled model of the synthetic table (two rendered photos)."""
    layout = load_layout("china-a")
    cam = SyntheticCamera(layout, conditions=Conditions(size=(960, 720)), seed=3, noise_sigma=0.0)
    empty = cam.read().image
    plan = enrolment_plan(layout)
    for space, piece in plan.items():
        cam.place(space, piece)
    pieces = cam.read().image
    h0 = Registrar(layout).detect(cv2.cvtColor(empty, cv2.COLOR_BGR2GRAY)).homography
    h1 = Registrar(layout).detect(cv2.cvtColor(pieces, cv2.COLOR_BGR2GRAY)).homography
    return enrol(layout, empty, h0, pieces, h1, plan)


def test_model_key_is_relative_to_the_data_folder_and_must_exist(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, 'model = "models/t.npz"')
    with pytest.raises(ConfigError) as exc:
        load_config(str(cfg))
    text = str(exc.value)
    assert "[devices] camera.model" in text and str(tmp_path / "data" / "models" / "t.npz") in text and "\n" not in text
    assert "camera enrolment" in text


def test_mode_and_keys_that_do_not_go_together() -> None:
    game = {"id": "china", "players": ["blue", "green", "red"], "board": "china-a"}
    with pytest.raises(ConfigError, match=r"camera.model: a table model is for colour mode"):
        config_from_dict({"game": game, "devices": {"camera": {"mode": "marker", "model": "t.npz"}}})
    with pytest.raises(ConfigError, match=r"camera.tags: a tag map is for mode"):
        config_from_dict({"game": game, "devices": {"camera": {"tags": "t.json"}}})
    with pytest.raises(ConfigError, match=r"\[devices\] camera.mode"):
        config_from_dict({"game": game, "devices": {"camera": {"mode": "sonar"}}})
    cfg = config_from_dict({"game": game, "devices": {"camera": {"source": "synthetic"}}})
    assert cfg.camera.mode == "colour" and cfg.camera.model is None
    assert cfg.camera_model_path.endswith("table-model.npz")


def test_an_unreadable_model_is_one_line_at_start_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(tmp_path, 'model = "broken.npz"')
    (tmp_path / "data" / "broken.npz").write_bytes(b"not a model at all")
    assert main(["run", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tableref: ") and "cannot use the table model" in err and "broken.npz" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_colour_mode_reads_with_the_model_and_marker_mode_keeps_the_board_reader(tmp_path: Path, learned) -> None:
    # no model anywhere: the layout's nominal pieces
    dev = camera_device_from_config(load_config(str(write_config(tmp_path, ""))), clock=lambda: 0.0)
    assert dev.mode == "colour" and dev.model is None and dev.reader is None
    assert dev.model_info()["enrolled"] is False and dev.model_path == str(tmp_path / "data" / "table-model.npz")
    dev.close()
    # the dashboard saved one in the data folder: it is used without a key
    learned.save(tmp_path / "data" / "table-model.npz")
    dev = camera_device_from_config(load_config(str(write_config(tmp_path, ""))), clock=lambda: 0.0)
    assert dev.model is not None and dev.model.enrolled and dev.model_info()["message"]["en"].startswith("camera: enrolled ")
    dev.close()
    # a configured path is read from, and saved to
    learned.save(tmp_path / "data" / "mine.npz")
    dev = camera_device_from_config(load_config(str(write_config(tmp_path, 'model = "mine.npz"'))), clock=lambda: 0.0)
    assert dev.model.enrolled and dev.model_path == str(tmp_path / "data" / "mine.npz")
    dev.close()
    dev = camera_device_from_config(load_config(str(write_config(tmp_path, 'mode = "marker"'))), clock=lambda: 0.0)
    assert isinstance(dev.reader, BoardReader) and str(dev.reader.mode) == "marker" and dev.model_path is None
    with pytest.raises(CalibrationError, match="marker mode"):
        dev.use_model(learned)
    dev.close()


def test_capture_use_model_and_hold_without_the_camera_thread(learned) -> None:
    layout = load_layout("china-a")
    cam = SyntheticCamera(layout, conditions=Conditions(size=(960, 720)), seed=3, noise_sigma=0.0)
    dev = CameraDevice(cam, layout, fps=4.0)
    image = dev.capture()
    assert isinstance(image, np.ndarray) and image.shape == (720, 960, 3)
    dev.use_model(learned)
    assert isinstance(dev.reader, TableReader) and dev.reader.model is learned and dev.model is learned
    other = load_layout("china-b")
    with pytest.raises(CalibrationError):
        CameraDevice(SyntheticCamera(other), other).use_model(learned)  # a model of another board is refused at once
    dev.hold(Message("enrolling", "学习中"), seconds=60)
    assert dev.status()["held"]["en"] == "enrolling"
    dev.release()
    assert "held" not in dev.status()
    dev.close()


def test_the_camera_thread_gives_the_reader_each_frames_still(tmp_path) -> None:
    """A source with a detail stream (``[devices.camera] detail_width``): the camera thread passes
    each frame's still to the reader, to take only if it needs it."""
    import threading

    from tableref.runtime import Runtime
    from vision.detection import Detection, Mode
    from vision.registration import Registrar

    layout = load_layout("china-a")
    seen: list[tuple[int, int, int] | None] = []
    done = threading.Event()

    class StillTaker:
        def __init__(self) -> None:
            self.registrar = Registrar(layout)

        def read(self, frame, at=None, detail=None) -> Detection:
            if callable(detail) and not done.is_set():
                still = detail()
                seen.append(None if still is None else still.shape)
                done.set()
            gray = np.ascontiguousarray(frame[..., 1])
            return Detection(at or 0.0, Mode.COLOUR, self.registrar.update(gray), ())

    cam = SyntheticCamera(layout, conditions=Conditions(size=(480, 360)), seed=3, noise_sigma=0.0,
                          detail_size=(960, 720))
    rt = Runtime(store_path=str(tmp_path / "t.sqlite"), game_id="china",
                 setup={"players": ["blue", "green", "red"], "board": "china-a"})
    rt.add_device(CameraDevice(cam, layout, reader=StillTaker(), fps=8.0, emulated=True))
    rt.start()
    try:
        assert done.wait(30)
        assert seen == [(720, 960, 3)]
    finally:
        rt.stop()


def test_a_camera_with_a_detail_stream_gives_its_still_as_the_photo(tmp_path) -> None:
    """Enrolment photos are the stills where the source has them (printed values are learned from as
    many pixels as they are read in), with the camera thread running or not."""
    from tableref.runtime import Runtime

    layout = load_layout("china-a")
    cam = SyntheticCamera(layout, conditions=Conditions(size=(480, 360)), seed=3, noise_sigma=0.0,
                          detail_size=(960, 720))
    dev = CameraDevice(cam, layout, fps=8.0, emulated=True)
    assert dev.capture().shape == (720, 960, 3)
    rt = Runtime(store_path=str(tmp_path / "t.sqlite"), game_id="china",
                 setup={"players": ["blue", "green", "red"], "board": "china-a"})
    rt.add_device(dev)
    rt.start()
    try:
        assert dev.capture(timeout=20).shape == (720, 960, 3)
    finally:
        rt.stop()
    plain = CameraDevice(SyntheticCamera(layout, conditions=Conditions(size=(480, 360)), seed=3), layout, fps=4.0)
    assert plain.capture().shape == (360, 480, 3)
    plain.close()
