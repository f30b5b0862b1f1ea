import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.render import (Conditions, Hand, PlacementError, default_tag_map, random_board, random_conditions,
                           render)


def test_rendering_is_deterministic_from_the_seed(small_layout):
    rng = np.random.default_rng(4)
    board = random_board(small_layout, rng)
    cond = random_conditions(small_layout, np.random.default_rng(9), size=(480, 270), hand_probability=1.0)
    a = render(small_layout, board, cond)
    b = render(small_layout, board, cond)
    assert np.array_equal(a.image, b.image)
    assert a.truth.occluded == b.truth.occluded
    c = render(small_layout, board, Conditions(size=(480, 270), seed=cond.seed + 1))
    assert not np.array_equal(a.image, c.image)


def test_ground_truth_matches_the_board_and_camera(small_layout):
    board = Board.from_counts({"wei-1": [Piece("red", "house")], "han-dragon": {Piece("blue", "emissary"): 3}})
    r = render(small_layout, board, Conditions(size=(640, 360), tilt_deg=15, roll_deg=30))
    assert r.image.shape == (360, 640, 3)
    assert r.truth.board == board
    assert len(r.truth.placements) == 4
    assert r.truth.occluded == frozenset()
    # the homography maps the board centre into the frame, near the image centre
    w, h = small_layout.size
    p = r.truth.homography @ np.array([w / 2, h / 2, 1.0])
    assert abs(p[0] / p[2] - 320) < 60 and abs(p[1] / p[2] - 180) < 60


def test_a_hand_over_a_space_occludes_it(small_layout):
    target = small_layout.space("han-dragon").centre
    r = render(small_layout, Board(), Conditions(size=(640, 360), hand=Hand(target, 270.0, 60.0)))
    assert "han-dragon" in r.truth.occluded
    assert "wei-1" not in r.truth.occluded  # far away on the other province


def test_too_many_pieces_for_a_space_is_an_error(small_layout):
    with pytest.raises(PlacementError):
        render(small_layout, Board.from_counts({"wei-1": {Piece("red", "emissary"): 9}}), Conditions(size=(320, 180)))


def test_marker_mode_puts_tags_on_the_pieces(small_layout):
    tm = default_tag_map(small_layout)
    board = Board.from_counts({"wei-1": [Piece("red", "house")], "wei-2": [Piece("red", "house")]})
    r = render(small_layout, board, Conditions(size=(640, 360)), tag_map=tm)
    tags = [p.tag for p in r.truth.placements]
    assert all(t is not None and tm[t] == Piece("red", "house") for t in tags)
    assert len(set(tags)) == 1  # a tag names a piece type: identical pieces, identical stickers


def test_default_tag_map_has_one_code_per_piece_type(small_layout):
    from vision.markers import PIECE_DICTIONARY, dictionary_size

    tm = default_tag_map(small_layout)
    types = {Piece(p, k) for k in small_layout.player_kinds() for p in small_layout.players}
    types |= {Piece("neutral", k) for k in small_layout.neutral_kinds()}
    assert set(tm.values()) == types and len(tm) == len(types)
    assert max(tm) < dictionary_size(PIECE_DICTIONARY)


def test_a_fortress_sticker_fits_under_a_house(small_layout):
    from vision.render import sticker_size_mm, tag_size_mm

    house, fortress = small_layout.pieces["house"], small_layout.pieces["fortress"]
    assert sticker_size_mm(fortress, small_layout) <= sticker_size_mm(house, small_layout) <= house.min_width
    assert sticker_size_mm(fortress) > sticker_size_mm(fortress, small_layout)  # it would fit a larger one
    assert tag_size_mm(house, layout=small_layout) == tag_size_mm(fortress, layout=small_layout)


def test_a_piece_put_down_leaves_the_untouched_pieces_as_they_were(small_layout):
    """The synthetic camera renders each new board afresh: pieces nobody touched must keep their place and
    colour (they once moved and changed shade whenever any piece was put down elsewhere, and a reader
    borderline on one of them saw a move nobody made)."""
    before = Board.from_counts({"wei-1": [Piece("red", "house")], "han-dragon": {Piece("blue", "emissary"): 2}})
    after = before.with_added("wei-2", Piece("green", "house"))
    cond = Conditions(size=(640, 360))
    a = render(small_layout, before, cond)
    b = render(small_layout, after, cond)
    assert set(a.truth.placements) <= set(b.truth.placements)  # same spot, same angle
    # and the same pixels around them (the new piece stands elsewhere)
    for space in ("wei-1", "han-dragon"):
        p = b.truth.homography @ np.array([*small_layout.space(space).centre, 1.0])
        x, y = int(p[0] / p[2]), int(p[1] / p[2])
        assert np.array_equal(a.image[y - 8:y + 8, x - 8:x + 8], b.image[y - 8:y + 8, x - 8:x + 8]), space
