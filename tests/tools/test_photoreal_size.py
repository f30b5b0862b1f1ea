"""tools/photoreal's output size (``render_set.py --width``, ``camera.set_size``) without Blender: a
2560-wide set shows the same scenes as the 1280 one of its seed (the same camera poses are drawn,
every board point lands at twice its pixel coordinates), and the truth masks follow the size."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
PHOTOREAL = ROOT / "tools" / "photoreal"
LAYOUT = ROOT / "vision" / "layouts" / "great-wall.json"


@pytest.fixture()
def mods():
    sys.path.insert(0, str(PHOTOREAL))
    try:
        camera = importlib.import_module("camera")
        truth = importlib.import_module("truth")
        layout = importlib.import_module("layout_io").Layout(str(LAYOUT))
    finally:
        sys.path.remove(str(PHOTOREAL))
    yield camera, truth, layout
    camera.set_size(camera.BASE_W)


def test_a_wider_frame_shows_the_same_scene_with_more_pixels(mods) -> None:
    camera, truth, layout = mods
    corners = layout.board_corners_world()
    poses = {}
    for width in (1280, 2560):
        camera.set_size(width)
        assert (camera.W, camera.H) == (width, width * 9 // 16)
        cam, info = camera.sample_table_camera(np.random.default_rng([7, 0]), layout)
        bumped = camera.bumped_camera(np.random.default_rng([7, 0, 1000]), cam, layout)
        poses[width] = (cam, info, bumped.project_output(corners))
        assert truth.hand_mask(cam, None).shape == (camera.H, camera.W)
    (c1, i1, p1), (c2, i2, p2) = poses[1280], poses[2560]
    assert i1 == i2 and np.allclose(c1.C, c2.C)  # the same pose drawn
    assert np.allclose(p2 + 0.5, 2 * (p1 + 0.5), atol=1e-6)  # pixel centres kept, twice as many pixels
