"""A pale forearm beyond a bright sleeve is still the arm (``vision.pale_arm``, ``ARM_TINT``).

On a frame of the independent photoreal renderer (``tools/photoreal``, Cheops seed 1 t02-000, kept in
``photoreal-cheops1-t02`` with its table's photos; it was the held-out split's, until the six readings
through a hand on it were looked at and the split replaced) a magenta sleeve reaches in over the board's
edge and a pale hand beyond it lies over the price columns, blurred into them. The sleeve was found as an
arm; the skin beyond it, tinted 0.6-0.9 of ``TINT`` from the empty board, was not, and the pale-finger
test looked for the sleeve's colour: six spaces under the hand (the yellow dot and the yellow, white and
black price columns and laws) were read.
"""

from __future__ import annotations

from pathlib import Path

from kept_frames_testkit import read_kept_frame

SET = Path(__file__).with_name("photoreal-cheops1-t02")


def test_no_space_under_the_hand_beyond_the_sleeve_is_read() -> None:
    got, truth = read_kept_frame(SET, "cheops", "table", "t02-000")
    assert len(truth.occluded) == 6
    through = [s for s in truth.occluded if not got[s].occluded and not got[s].unsure]
    assert through == []
