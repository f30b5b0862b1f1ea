import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.calibration import Calibration, calibrate, default_calibration, rectify
from vision.errors import CalibrationError
from vision.reader import BoardReader
from vision.registration import Registrar
from vision.render import Conditions, render

WARM = dict(size=(960, 540), white_balance=(1.15, 1.0, 0.78), brightness=0.8, gradient=0.25, gradient_deg=30)


def _rectified(layout, image):
    reg = Registrar(layout).detect(image)
    assert reg.usable
    return rectify(image, reg.homography, layout, 1.0)


def test_calibration_from_reference_frames_reads_under_a_warm_lamp(small_layout, tmp_path):
    empty = render(small_layout, Board(), Conditions(**WARM, seed=1)).image
    samples_board = Board.from_counts({f"wei-{i + 1}": [Piece(c, "house")] for i, c in enumerate(["blue", "green", "violet", "red"])}
                                      | {"han-1": [Piece("yellow", "house")], "han-2": [Piece("neutral", "fortress")]})
    samples = render(small_layout, samples_board, Conditions(**WARM, seed=2)).image
    cal = calibrate(small_layout, _rectified(small_layout, empty), 1.0, _rectified(small_layout, samples), samples_board)
    assert cal.source == "reference-frame"
    assert any("learned" in n for n in cal.notes)
    path = tmp_path / "table.npz"
    cal.save(path)
    loaded = Calibration.load(path)
    assert loaded.model.classes == cal.model.classes and np.array_equal(loaded.reference, cal.reference)

    board = Board.from_counts({"wei-2": [Piece("yellow", "house")], "han-dragon": {Piece("red", "emissary"): 2},
                               "han-3": [Piece("blue", "house"), Piece("neutral", "fortress")]})
    frame = render(small_layout, board, Conditions(**WARM, seed=3, noise_sigma=2)).image
    det = BoardReader(small_layout, calibration=loaded).read(frame, at=0.0)
    assert det.observation().board() == board


def test_bad_calibration_files(small_layout, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a calibration")
    with pytest.raises(CalibrationError):
        Calibration.load(bad)
    other = default_calibration(small_layout)
    object.__setattr__(other, "layout_id", "another-board")
    with pytest.raises(CalibrationError):
        BoardReader(small_layout, calibration=other)
    with pytest.raises(CalibrationError):
        calibrate(small_layout, np.zeros((10, 10, 3), np.uint8))
