"""Frames of the independent photoreal renderer kept beside the tests (``photoreal-*`` folders: one frame of a
git-ignored tuning set, with its table's empty and enrolment photos), read as ``tableref vision eval`` reads
them (a uniquely named helper module, for test_cheops_pale_pyramid.py, test_cheops_arm_read_as_scarabs.py,
test_dark_noisy_hand.py, test_dark_hand_light.py, test_marker_squares_photoreal.py,
test_tag_patterns.py, test_cheops_dot_markers.py, test_piece_lines.py, test_cheops_scarab_bodies.py,
test_scarab_network_photoreal.py, test_cheops_tile_by_lead.py,
test_cheops_pale_arm_light.py, test_cheops_price_heaps.py, test_hand_network.py)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.eval_readers import make_reader_factory
from vision.eval_set import FrameTruth, load_set, read_image
from vision.layout import load_layout


# Machines whose arithmetic is known to put some kept frames on the other side of a threshold than the machine they
# were recorded on (the reader decides at thresholds a pixel can cross; OpenCV and OpenBLAS pick their code by the
# processor's instruction set). Key: ``arithmetic_fingerprint()``. Tests marked ``reads_as_recorded`` are skipped
# there, saying so; everywhere else they run. docs/vision.md, "Re-read on a fresh machine".
OTHER_ARITHMETIC = {
    "17b3b9d28af7fec1": "AMD EPYC, AVX2 without AVX-512 (2026-12-02, twenty-eighth sitting: 9 kept-frame tests read "
                        "otherwise, and the committed evalsets a few tenths of a point higher)",
}


@functools.cache
def arithmetic_fingerprint() -> str:
    """A hash of computations whose last bits depend on the processor's code paths: a float32 product made as the
    face correlation makes it (``_product``: OpenBLAS on one thread, so the thread count does not change it) and the
    dice network's output (OpenCV's dnn), one thread."""
    from vision.dice_classifier import DiceClassifier
    from vision.face_correlation import _product

    n = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        rng = np.random.default_rng(7)
        a = rng.normal(size=(64, 2700)).astype(np.float32)
        templates = rng.normal(size=(16, 2700)).astype(np.float32)
        x = rng.normal(size=(4, 48, 48)).astype(np.float32)
        net = DiceClassifier.load().logits(x)
        return hashlib.sha256(_product(a, templates).tobytes() + net.tobytes()).hexdigest()[:16]
    finally:
        cv2.setNumThreads(n)


def _other_arithmetic() -> str | None:
    return OTHER_ARITHMETIC.get(arithmetic_fingerprint())


reads_as_recorded = pytest.mark.skipif(
    _other_arithmetic() is not None,
    reason=f"this machine's arithmetic reads the kept frame otherwise than the machine it was recorded on: "
           f"{_other_arithmetic()} (tests/vision/kept_frames_testkit.py, OTHER_ARITHMETIC)")


def read_kept_frame(set_dir: Path, board_id: str, reader: str, stem: str | None = None
                    ) -> tuple[dict[str, Any], FrameTruth]:
    """The set's frame ``stem`` (its first when None) read by ``reader`` ("table", "learned")
    enrolled from its table's photos: space -> ``SpaceResult``, and the frame's truth."""
    got, truth, _ = read_kept_frame_with_registration(set_dir, board_id, reader, stem)
    return got, truth


def read_kept_frame_with_registration(set_dir: Path, board_id: str, reader: str, stem: str | None = None
                                      ) -> tuple[dict[str, Any], FrameTruth, Any]:
    """As ``read_kept_frame``, and the frame's ``Registration``."""
    layout = load_layout(board_id)
    frames = load_set(set_dir, layout).frames
    frame = frames[0] if stem is None else next(f for f in frames if f.stem == stem)
    det = make_reader_factory(layout, set_dir, reader=reader)(frame.truth.table).read(read_image(frame.image), at=1.0)
    return {s.space: s for s in det.spaces}, frame.truth, det.registration


def read_through(set_dir: Path, board_id: str, reader: str) -> tuple[list[str], int]:
    """The set's first frame read by ``reader``: the spaces its truth says a hand covers that were read
    all the same, and how many it covers."""
    got, truth = read_kept_frame(set_dir, board_id, reader)
    return [s for s in truth.occluded if not got[s].occluded], len(truth.occluded)
