"""A tile that barely differs from the board in colour is read by its face (``AppearanceStep``,
``vision.faces.bare_likeness``).

On a table of the independent photoreal renderer (``tools/photoreal``, Cheops seed 6, a tuning set;
frame t02-004 kept in ``photoreal-cheops6-t02`` with its table's photos) the laws' backs on the eye
spaces are a dull brown-grey on a brown pyramid: less than 40 % of each space differed from the empty
board, so no face was looked for, and five of the six laws were read as bare spaces (the sixth, 42 %
covered, was matched). Their faces match sure (0.75-0.83) where the empty board's own print there
matches far worse; a bare space's print matches itself best, so no face is read on it.
"""

from __future__ import annotations

from pathlib import Path

from kept_frames_testkit import read_kept_frame
from scorer.core.types import Piece

SET = Path(__file__).with_name("photoreal-cheops6-t02")
LAWS = ("r6c3", "r6c4", "r7c3", "r7c5", "r8c4", "r8c5")


def test_laws_the_colour_of_the_pyramid_are_read() -> None:
    got, truth = read_kept_frame(SET, "cheops", "table")
    for space in LAWS:
        assert truth.content(space) == {Piece("neutral", "law"): 1}
        assert not got[space].occluded and not got[space].unsure
        assert dict(got[space].pieces) == {Piece("neutral", "law"): 1}, space


def test_no_tile_is_read_on_a_bare_space() -> None:
    got, truth = read_kept_frame(SET, "cheops", "table")
    bare = [s for s in got if not truth.content(s) and s not in truth.occluded and s not in truth.partly_occluded]
    assert bare
    tiles = [s for s in bare if any(p.kind in ("law", "neighbour") or p.kind.startswith("family")
                                    for p, _ in got[s].pieces)]
    assert not tiles
