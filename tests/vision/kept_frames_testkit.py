"""Frames of the independent photoreal renderer kept beside the tests (``photoreal-*`` folders: one frame of a
git-ignored tuning set, with its table's empty and enrolment photos), read as ``tableref vision eval`` reads
them (a uniquely named helper module, for test_cheops_pale_pyramid.py, test_cheops_arm_read_as_scarabs.py,
test_dark_noisy_hand.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.eval_readers import make_reader_factory
from vision.eval_set import FrameTruth, load_set, read_image
from vision.layout import load_layout


def read_kept_frame(set_dir: Path, board_id: str, reader: str) -> tuple[dict[str, Any], FrameTruth]:
    """The set's one frame read by ``reader`` ("table", "learned") enrolled from its table's photos:
    space -> ``SpaceResult``, and the frame's truth."""
    layout = load_layout(board_id)
    frame = load_set(set_dir, layout).frames[0]
    det = make_reader_factory(layout, set_dir, reader=reader)(frame.truth.table).read(read_image(frame.image), at=1.0)
    return {s.space: s for s in det.spaces}, frame.truth
