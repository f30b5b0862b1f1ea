"""The learned hand outline as a veto on the hand test's hand (``vision.hand_network``).

The committed network only takes away: of the hand test's hand it keeps what lies near the hand it sees. A
missing or damaged model is a clear error, and the reader then keeps the hand test's hand whole. The kept
photoreal frame (China seed 31 t04, a dark hand in a blue sleeve; its true outline committed beside it) shows
the veto keeping the hand and the spaces under it.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import hand_network
from kept_frames_testkit import reads_as_recorded
from vision.hand_network import (DEFAULT_MODEL, HandNetwork, HandNetworkError, committed_hand_network, padded,
                                 unseen_spaces, vetoed, vetoed_parts)

KEPT = Path(__file__).with_name("photoreal-china31-t04")


@pytest.fixture(scope="module")
def model() -> HandNetwork:
    return HandNetwork.load(DEFAULT_MODEL)


def test_the_committed_model_loads_and_is_small(model):
    assert model.mm_per_px == 2.0 and 0 < model.threshold < 1 and model.support_mm2 > 0
    assert model.keep_mm is None or model.keep_mm > 0
    assert (DEFAULT_MODEL / "hand.onnx").stat().st_size < 1_000_000
    meta = json.loads((DEFAULT_MODEL / "model.json").read_text("utf-8"))
    assert meta["trained"]["heldout"], "the model says what it scored on the sets it was not trained on"


@pytest.mark.parametrize("damage, message", [
    (lambda d: shutil.rmtree(d), "no hand outline model at"),
    (lambda d: (d / "model.json").write_text("{", "utf-8"), "cannot read hand outline model"),
    (lambda d: (d / "model.json").write_text('{"format": "other"}', "utf-8"), "is not a hand outline model"),
    (lambda d: (d / "model.json").write_text('{"format": "tableref-hand-outline/1", "onnx": "hand.onnx"}', "utf-8"),
     "bad or missing field"),
    (lambda d: (d / "model.json").write_text(json.dumps({**json.loads((d / "model.json").read_text("utf-8")),
                                                          "space_threshold": 1.5}), "utf-8"), "out of range"),
    (lambda d: (d / "hand.onnx").unlink(), "hand outline model file missing"),
    (lambda d: (d / "hand.onnx").write_bytes(b"not a network"), "cannot load hand outline network"),
])
def test_a_missing_or_damaged_model_is_a_clear_error(tmp_path, damage, message):
    folder = tmp_path / "hand_outline"
    shutil.copytree(DEFAULT_MODEL, folder)
    damage(folder)
    with pytest.raises(HandNetworkError, match=message):
        HandNetwork.load(folder)


def test_without_a_usable_model_the_reader_keeps_the_hand_whole_and_says_so(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(hand_network, "DEFAULT_MODEL", tmp_path / "nowhere")
    monkeypatch.setattr(hand_network, "_committed", {})
    with caplog.at_level(logging.WARNING, logger="vision.hand_network"):
        assert committed_hand_network() is None
    assert "hand test's hand kept whole" in caplog.text and "nowhere" in caplog.text


def test_parts_of_the_hand_the_network_sees_nothing_in_go_whole_the_others_stay_whole():
    hand = np.zeros((100, 200), bool)
    hand[10:50, 10:60] = True  # a hand: the network sees part of it
    hand[70:90, 120:190] = True  # a shadow apart from it: the network sees nothing there
    hand[5:8, 150:160] = True  # a speck the network sees too little of
    seen = np.zeros_like(hand)
    seen[20:40, 20:40] = True  # 400 px = 100 mm² at 2 px/mm
    seen[5:8, 150:152] = True
    kept = vetoed(hand, seen, 2.0, 50.0, None)
    assert kept[10:50, 10:60].all() and kept.sum() == 40 * 50
    trimmed = vetoed(hand, seen, 2.0, 50.0, 5.0)  # kept only within 5 mm (10 px) of what the network sees
    assert trimmed[20:40, 20:40].all() and not trimmed[45:50, 55:60].any() and not (trimmed & ~kept).any()
    assert not vetoed(hand, seen, 2.0, 200.0, None).any()  # nowhere enough hand seen
    tip = hand.copy()
    tip[10:20, 70:80] = True  # a fingertip found 10 px (5 mm) apart from its palm: one part with it within 10 mm
    assert vetoed(tip, seen, 2.0, 50.0, None, join_mm=10.0)[10:20, 70:80].all()
    assert not vetoed(tip, seen, 2.0, 50.0, None, join_mm=0.0)[10:20, 70:80].any()
    assert not vetoed(tip, seen, 2.0, 50.0, None, join_mm=10.0)[70:90, 120:190].any()  # the shadow stays apart


def test_trimming_keeps_an_arm_that_comes_in_over_the_boards_edge():
    hand = np.zeros((100, 200), bool)
    hand[40:60, 60:100] = True  # the hand the network sees ...
    hand[45:55, 0:60] = True  # ... its arm in a sleeve the network does not, coming in over the left edge
    hand[60:90, 80:100] = True  # a shadow below the hand, well inside the board
    seen = np.zeros_like(hand)
    seen[40:60, 60:100] = True
    trimmed = vetoed(hand, seen, 1.0, 50.0, 5.0)
    assert not trimmed[45:55, 0:50].any() and not trimmed[70:90, 80:100].any()
    arm_kept = vetoed(hand, seen, 1.0, 50.0, 5.0, edge_mm=5.0)
    assert arm_kept[45:55, 0:60].all() and not arm_kept[70:90, 80:100].any()
    assert not (arm_kept & ~hand).any()


def test_the_vetoed_parts_are_the_hand_near_the_network_and_the_arm_kept_for_the_edge():
    hand = np.zeros((100, 200), bool)
    hand[40:60, 60:100] = True
    hand[45:55, 0:60] = True  # an arm in a sleeve the network does not see, over the left edge
    seen = np.zeros_like(hand)
    seen[40:60, 60:100] = True
    near, arm = vetoed_parts(hand, seen, 1.0, 50.0, 5.0, edge_mm=5.0)
    assert arm[45:55, 0:50].all() and not arm[40:60, 60:100].any() and near[40:60, 60:100].all()
    assert ((near | arm) == vetoed(hand, seen, 1.0, 50.0, 5.0, edge_mm=5.0)).all()
    near, arm = vetoed_parts(hand, seen, 1.0, 50.0, None, edge_mm=5.0)  # not trimmed: no arm part
    assert not arm.any() and (near == hand).all()


def _square_spaces(n: int, side: int = 20) -> list:
    """``n`` square spaces in a row, 10 px apart, as the reader keeps them: (box, mask)."""
    return [((x, 10, x + side, 10 + side), np.ones((side, side), np.uint8)) for x in range(0, n * (side + 10), side + 10)]


def test_a_space_the_network_sees_no_hand_on_is_unseen_unless_an_arm_touches_it():
    spaces = _square_spaces(4)
    probability = np.zeros((40, 130), np.float32)
    probability[15:20, 5:10] = 0.9  # the hand on space 0
    probability[12, 35] = 0.03  # a faint edge of it on space 1, over the threshold
    probability[12, 65] = 0.005  # under it on space 2
    arm = np.zeros((40, 130), bool)
    arm[20:25, 90:95] = True  # space 3: an arm kept for reaching the edge, the network blind to it
    assert unseen_spaces({0, 1, 2, 3}, spaces, probability, arm, 0.02) == {2}
    assert unseen_spaces({0, 1, 2, 3}, spaces, probability, np.zeros_like(arm), 0.02) == {2, 3}
    assert unseen_spaces({0, 1}, spaces, probability, arm, 0.02) == frozenset()
    assert unseen_spaces({1, 2}, spaces, probability, arm, 0.04) == {1, 2}


def test_the_committed_model_keeps_a_space_only_where_it_sees_some_hand(model):
    assert model.space_threshold is not None and 0 < model.space_threshold < model.threshold


def test_inputs_are_padded_to_what_the_network_halves_three_times():
    x = np.zeros((7, 101, 150), np.float32)
    assert padded(x).shape == (7, 104, 152)
    assert padded(np.zeros((7, 3, 5), np.float32)).shape == (7, 8, 8)  # too small to reflect: edge


def test_the_veto_only_takes_away_and_keeps_nothing_on_a_bare_board(model):
    board = np.full((300, 400, 3), 150, np.uint8)
    hand = np.zeros((300, 400), bool)
    hand[100:160, 0:120] = True  # the hand test took a patch of unchanged board for a hand
    kept = model.outline(hand, board, board.copy(), 1.0).kept
    assert not (kept & ~hand).any()
    assert kept.sum() < 0.05 * hand.sum()
    assert not model.outline(np.zeros_like(hand), board, board, 1.0).kept.any()


def _kept_frame():
    from vision.eval_set import load_set, read_image
    from vision.hand_outline import load_hand_mask
    from vision.layout import load_layout

    layout = load_layout("china-a")
    fr = load_set(KEPT, layout).frames[0]
    return layout, fr, read_image(fr.image), load_hand_mask(fr.hand)


def _reader(layout, fr):
    """A reader enrolled from the kept table's photos, as ``tableref vision eval`` makes it (a fresh factory: it
    keeps its readers, and each takes the committed hand network when made)."""
    from vision.eval_readers import make_reader_factory

    return make_reader_factory(layout, str(KEPT), reader="learned")(fr.truth.table)


def test_the_reader_keeps_the_true_hand_and_the_spaces_under_it(model, monkeypatch):
    layout, fr, image, true_frame = _kept_frame()
    monkeypatch.setattr(hand_network, "_committed", {"model": None})
    alone = _reader(layout, fr)
    without = alone.read(image)
    monkeypatch.setattr(hand_network, "_committed", {"model": model})
    with_veto = _reader(layout, fr)
    assert with_veto.hand_network is model and alone.hand_network is None
    with_net = with_veto.read(image)
    hidden = {s.space for s in without.spaces if s.occluded}
    kept = {s.space for s in with_net.spaces if s.occluded}
    assert kept <= hidden and kept, "the veto never hides a space the hand test did not"
    assert set(fr.truth.occluded) <= kept, "every space the hand truly covers is still flagged"
    true = with_veto.to_board(true_frame, with_net.registration) > 0
    assert (true & ~with_net.hand_mask).sum() <= (true & ~without.hand_mask).sum() + 0.01 * true.sum()
    assert with_net.hand_mask.sum() <= without.hand_mask.sum()


def test_the_network_outlines_the_true_hand_on_the_kept_frame(model):
    layout, fr, image, true_frame = _kept_frame()
    reader = _reader(layout, fr)
    det = reader.read(image)
    true = reader.to_board(true_frame, det.registration) > 0
    rect = reader._rectify(image, det.registration.homography)
    board = reader.light.correct(rect)
    seen = model.seen(np.ones_like(true), board, reader.model.reference, reader.s)
    assert (true & seen).sum() >= 0.97 * true.sum()
    far = cv2.dilate(true.astype(np.uint8), np.ones((61, 61), np.uint8)) == 0  # board 30 mm and more from the hand
    assert (seen & far).sum() <= 0.02 * far.sum()


@reads_as_recorded
def test_spaces_beside_a_hand_the_network_sees_nothing_on_are_read_again(model, monkeypatch):
    """Photoreal China seed 9 t02 (a dark hand over Qin, kept for test_dark_noisy_hand.py): the kept hand's margin
    touches lu-4 and zhao-4, on which no hand lies and the network sees none: read, where without the rule they were
    flagged; every space the hand truly covers stays flagged."""
    import dataclasses

    from kept_frames_testkit import read_kept_frame

    kept = Path(__file__).with_name("photoreal-china9-t02")
    beside = {"lu-4", "zhao-4"}
    monkeypatch.setattr(hand_network, "_committed", {"model": dataclasses.replace(model, space_threshold=None)})
    before, truth = read_kept_frame(kept, "china-a", "learned")
    assert all(before[s].occluded for s in beside)
    monkeypatch.setattr(hand_network, "_committed", {"model": model})
    after, _ = read_kept_frame(kept, "china-a", "learned")
    assert not any(after[s].occluded for s in beside)
    assert beside.isdisjoint(truth.occluded | truth.partly_occluded)
    assert all(after[s].occluded for s in truth.occluded)
    assert {s for s, r in after.items() if r.occluded} <= {s for s, r in before.items() if r.occluded}
