import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.registration import Registrar
from vision.render import Conditions, render
from vision.snapshot import marker_status, rectified_snapshot_png


def test_rectified_snapshot_and_marker_status(small_layout):
    r = render(small_layout, Board.from_counts({"wei-1": [Piece("red", "house")]}), Conditions(size=(960, 540), tilt_deg=10))
    reg = Registrar(small_layout).update(r.image)
    png = rectified_snapshot_png(r.image, reg, small_layout, px_per_mm=1.0, occluded=["wei-2"])
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[:2] == (round(small_layout.size[1]), round(small_layout.size[0]))
    # the red house sits where the layout puts wei-1
    x, y = (int(v) for v in small_layout.space("wei-1").centre)
    b, g, rr = img[y - 3:y + 4, x - 3:x + 4].reshape(-1, 3).mean(axis=0)
    assert rr > 120 and rr > g + 50
    st = marker_status(reg, small_layout)
    assert st["status"] == "ok" and [m["seen"] for m in st["markers"]] == [True] * 4
    assert st["markers"][0]["corner"] == "top-left"
