from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from scorer.core.observation import Observation
from scorer.core.types import Board, Piece
from vision.reader import BoardReader, Mode
from vision.registration import RegistrationStatus
from vision.render import Conditions, Hand, default_tag_map, random_board, random_conditions, render


def _wrong(det, truth):
    bad = {}
    for s in det.spaces:
        if s.occluded:
            continue
        got = Counter(dict(s.pieces))
        want = truth.board.pieces(s.space)
        if got != want:
            bad[s.space] = (dict(want), dict(got))
    return bad


def test_colour_mode_tells_houses_emissaries_and_fortresses_apart(small_layout):
    board = Board.from_counts({
        "wei-1": [Piece("red", "house")],
        "wei-2": [Piece("neutral", "fortress")],
        "wei-3": [Piece("blue", "house"), Piece("neutral", "fortress")],  # a house on a fortress
        "wei-4": [Piece("yellow", "emissary")],  # illegal but must be seen as it is
        "wei-dragon": {Piece("green", "emissary"): 3, Piece("violet", "emissary"): 2},
        "han-dragon": {Piece("red", "emissary"): 5},
        "han-2": [Piece("violet", "house")],
    })
    reader = BoardReader(small_layout)
    for seed in range(3):
        r = render(small_layout, board, Conditions(size=(960, 540), tilt_deg=6 * seed, roll_deg=10 * seed,
                                                   blur_sigma=0.6, noise_sigma=3, jpeg_quality=85, seed=seed))
        reader.registrar.reset()
        det = reader.read(r.image, at=1.5)
        assert det.registration.status is RegistrationStatus.OK
        assert not det.occluded
        assert _wrong(det, r.truth) == {}, seed
        assert det.at == 1.5 and det.mode is Mode.COLOUR


def test_colour_mode_over_random_positions_and_perturbations(small_layout):
    rng = np.random.default_rng(2024)
    reader = BoardReader(small_layout)
    wrong_spaces = total = 0
    for _ in range(12):
        board = random_board(small_layout, rng, occupancy=0.7)
        cond = random_conditions(small_layout, rng, size=(960, 540), hand_probability=0.0, strength=0.8)
        r = render(small_layout, board, cond)
        reader.registrar.reset()
        det = reader.read(r.image, at=0.0)
        if not det.registration.usable:
            continue
        total += len(det.spaces)
        wrong_spaces += len(_wrong(det, r.truth))
    assert total >= 100
    assert wrong_spaces <= 1, wrong_spaces  # the benchmark measures the rate; here: no systematic error


def test_a_hand_is_flagged_and_never_read_through(small_layout):
    rng = np.random.default_rng(7)
    reader = BoardReader(small_layout)
    checked = 0
    for i in range(8):
        board = random_board(small_layout, rng, occupancy=0.8)
        target = small_layout.spaces[i % len(small_layout.spaces)].centre
        cond = replace(random_conditions(small_layout, rng, size=(960, 540), hand_probability=0.0, strength=0.5),
                       hand=Hand(target, float(rng.uniform(0, 360)), float(rng.uniform(40, 120)),
                                 rgb=[(232, 190, 160), (120, 80, 55), (210, 160, 120)][i % 3]))
        r = render(small_layout, board, cond)
        reader.registrar.reset()
        det = reader.read(r.image, at=0.0)
        if not det.registration.usable:
            continue  # the arm hid the markers: nothing is read at all
        checked += 1
        assert r.truth.occluded, "the test hand should cover something"
        assert r.truth.occluded <= set(det.occluded), (sorted(r.truth.occluded), det.occluded)
        for s in det.spaces:
            if s.occluded:
                assert s.pieces == () and s.reading().occluded
    assert checked >= 5


def test_observation_has_one_reading_per_space(small_layout):
    board = Board.from_counts({"wei-1": [Piece("red", "house")]})
    reader = BoardReader(small_layout)
    target = small_layout.space("han-dragon").centre
    r = render(small_layout, board, Conditions(size=(960, 540), hand=Hand(target, 270.0, 60.0)))
    obs = reader.read(r.image, at=3.25).observation()
    assert isinstance(obs, Observation) and obs.source == "camera" and obs.at == 3.25
    assert sorted(obs.covered()) == sorted(small_layout.space_ids)
    assert "han-dragon" in obs.occluded()
    assert obs.board() == board
    empty = next(rd for rd in obs.readings if rd.space == "wei-2")
    assert empty.pieces == () and not empty.occluded and empty.confidence > 0.5


def test_unregistered_frames_read_nothing(small_layout):
    det = BoardReader(small_layout).read(np.zeros((360, 640, 3), np.uint8), at=0.0)
    assert not det.registration.usable
    assert all(s.occluded for s in det.spaces)


def test_unchanged_frames_reuse_the_last_reading(small_layout):
    board = Board.from_counts({"han-1": [Piece("green", "house")]})
    reader = BoardReader(small_layout)
    cond = Conditions(size=(960, 540), noise_sigma=2)
    r = render(small_layout, board, cond)
    first = reader.read(r.image, at=0.0)
    # the same scene with new sensor noise
    again = reader.read(render(small_layout, board, replace(cond, seed=5), placements=r.truth.placements).image, at=0.1)
    assert again.reused and again.spaces == first.spaces and again.at == 0.1
    moved = board.with_added("han-2", Piece("blue", "house"))
    third = reader.read(render(small_layout, moved, replace(cond, seed=6)).image, at=0.2)
    assert not third.reused and third.observation().board() == moved


def test_marker_mode_reads_tags_and_reports_unknown_ones(small_layout):
    tm = default_tag_map(small_layout)
    board = Board.from_counts({
        "wei-1": [Piece("red", "house")],
        "wei-3": [Piece("blue", "house"), Piece("neutral", "fortress")],
        "wei-2": [Piece("neutral", "fortress")],
        "han-dragon": {Piece("yellow", "emissary"): 2, Piece("green", "emissary"): 1},
        "han-3": [Piece("violet", "house")],
    })
    r = render(small_layout, board, Conditions(size=(1280, 720), tilt_deg=8, blur_sigma=0.5, noise_sigma=2), tag_map=tm)
    reader = BoardReader(small_layout, mode="marker", tag_map=tm)
    det = reader.read(r.image, at=0.0)
    assert _wrong(det, r.truth) == {}
    # a tag that is in no map is reported, never guessed
    violet_tag = next(p.tag for p in r.truth.placements if p.space == "han-3")
    partial = {k: v for k, v in tm.items() if k != violet_tag}
    det2 = BoardReader(small_layout, mode="marker", tag_map=partial).read(r.image, at=0.0)
    han3 = next(s for s in det2.spaces if s.space == "han-3")
    assert han3.pieces == () and han3.unknown == (f"tag:{violet_tag}",)


def test_marker_mode_needs_a_tag_map(small_layout):
    with pytest.raises(ValueError):
        BoardReader(small_layout, mode="marker")


def test_china_board_frame(china_layout):
    rng = np.random.default_rng(3)
    board = random_board(china_layout, rng, occupancy=0.5)
    r = render(china_layout, board, Conditions(size=(1280, 720), tilt_deg=8, noise_sigma=2, jpeg_quality=90))
    det = BoardReader(china_layout).read(r.image, at=0.0)
    assert len(det.spaces) == len(china_layout.spaces) == 61
    assert _wrong(det, r.truth) == {}


def _without_last_piece(layout, r, cond):
    """The frame of ``r`` with its last placed piece taken away: only that piece's pixels change."""
    import cv2

    kept = r.truth.placements[:-1]
    gone = r.truth.placements[-1]
    after = render(layout, r.truth.board, cond, placements=kept)
    spec = layout.pieces[gone.piece.kind]
    outline = spec.outline(gone.x, gone.y, gone.angle)
    cam = r.truth.camera
    pts = np.vstack([cam.project(outline, -gone.base), cam.project(outline, -(gone.base + spec.height))])
    mask = np.zeros(r.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, cv2.convexHull(pts.astype(np.float32)).astype(np.int32), 1)
    mask = cv2.dilate(mask, np.ones((7, 7), np.uint8)).astype(bool)
    img = r.image.copy()
    img[mask] = after.image[mask]
    return img, r.truth.board.with_removed(gone.space, gone.piece), gone.space


def test_after_one_move_only_the_changed_spaces_are_read_again(china_layout):
    rng = np.random.default_rng(5)
    board = random_board(china_layout, rng, occupancy=0.5)
    cond = Conditions(size=(1280, 720), tilt_deg=8, noise_sigma=2, jpeg_quality=90)
    r = render(china_layout, board, cond)
    reader = BoardReader(china_layout)
    first = reader.read(r.image, at=0.0)
    assert first.partial is None and _wrong(first, r.truth) == {}
    img, after, space = _without_last_piece(china_layout, r, cond)
    det = reader.read(img, at=1.0)
    assert det.partial is not None and 0 < det.partial < 15, det.partial
    assert det.observation().board() == after, space
    full = BoardReader(china_layout, incremental=False).read(img, at=1.0)
    assert full.partial is None and full.observation().board() == after
