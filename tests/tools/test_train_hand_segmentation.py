"""The hand segmentation experiment's own pieces that need no torch (tools/train_hand_segmentation.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

_spec = importlib.util.spec_from_file_location(
    "train_hand_segmentation", Path(__file__).resolve().parents[2] / "tools" / "train_hand_segmentation.py")
ths = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ths)


def test_the_network_sees_the_frame_the_empty_board_and_their_lightness_difference():
    x = np.zeros((4, 5, 6), np.uint8)
    x[..., :3] = 200  # the frame
    x[..., 3:] = 100  # the empty board
    c = ths.inputs(x)
    assert c.shape == (7, 4, 5) and c.dtype == np.float32
    assert np.allclose(c[0], 200 / 255) and np.allclose(c[3], 100 / 255)
    assert np.allclose(c[6], 100 / 255)  # brighter than the empty board by 100 levels


def test_sets_are_given_as_board_reader_folder():
    assert ths._sets(["china-a:learned:evalsets/x/tune"]) == [("china-a", "learned", "evalsets/x/tune")]
    with pytest.raises(SystemExit, match="BOARD:READER:SET"):
        ths._sets(["evalsets/x/tune"])
