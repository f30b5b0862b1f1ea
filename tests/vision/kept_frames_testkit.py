"""Frames of the independent photoreal renderer kept beside the tests (``photoreal-*`` folders: one frame of a
git-ignored tuning set, with its table's empty and enrolment photos), read as ``tableref vision eval`` reads
them (a uniquely named helper module, for test_cheops_pale_pyramid.py, test_cheops_arm_read_as_scarabs.py,
test_dark_noisy_hand.py, test_dark_hand_light.py, test_marker_squares_photoreal.py,
test_tag_patterns.py, test_cheops_dot_markers.py, test_piece_lines.py, test_cheops_scarab_bodies.py,
test_scarab_network_photoreal.py, test_cheops_tile_by_lead.py,
test_cheops_pale_arm_light.py, test_cheops_price_heaps.py, test_hand_network.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.eval_readers import make_reader_factory
from vision.eval_set import FrameTruth, load_set, read_image
from vision.layout import load_layout


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
