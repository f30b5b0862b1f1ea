"""The Great Wall's token values read on the detail still (``vision.card_detail``): a token whose
value the watched frame shows too coarsely to be sure is read in the still (a higher-resolution
frame of the same view) against token faces enrolled at the still's scale; without a still the
section stays unread, never guessed. Real renders of the project's renderer, tokens printed with
their value alone (layout ``face.motif`` false, as cardboard tokens are: a motif per value would
tell them apart at any scale)."""

from __future__ import annotations

import json
from collections import Counter

import cv2
import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.card_detail import DETAIL, DetailValues
from vision.card_enrol import card_model_from_photos
from vision.card_reader import CardReader
from vision.card_rows import enrol_board
from vision.counted_values import MIN_FRAME_PX_PER_MM, frame_scale
from vision.layout import LAYOUT_DIR, layout_from_json
from vision.render import Conditions, render

STILL = (1920, 1080)  # the detail still
WATCHED = (480, 270)  # a coarse watched stream: the play mat at ~0.2 px/mm, a token's value a few pixels


@pytest.fixture(scope="module")
def layout():
    data = json.loads((LAYOUT_DIR / "great-wall.json").read_text("utf-8"))
    for kind, spec in data["pieces"].items():
        if kind.startswith("token-"):
            spec["face"]["motif"] = False
    return layout_from_json(data)


@pytest.fixture(scope="module")
def table(layout):
    """The table enrolled from stills (a camera with a still port takes its enrolment photos so), and
    a frame of it as a still."""
    c = Conditions(size=STILL, fill=0.6, seed=5)
    plan = Board.from_counts(enrol_board(layout))
    model = card_model_from_photos(layout, render(layout, Board(), c).image, render(layout, plan, c).image, plan)
    board = Board.from_counts({"section-1": Counter({Piece("neutral", "token-5"): 1,
                                                     Piece("neutral", "token-8"): 1})})
    still = render(layout, board, c).image
    return model, board, still, cv2.resize(still, WATCHED, interpolation=cv2.INTER_AREA)


def test_enrolment_learns_each_token_face_for_the_still_at_its_scale(layout, table) -> None:
    model = table[0]
    fine = {k for k in model.faces if k.endswith(DETAIL)}
    assert fine == {f"neutral:{k}{DETAIL}" for k in layout.pieces if k.startswith("token-")}
    assert DetailValues(layout, model.faces)


def test_a_token_value_not_sure_in_the_watched_frame_is_read_on_the_still(layout, table) -> None:
    model, board, still, watched = table
    taken = []

    def take() -> np.ndarray:
        taken.append(1)
        return still

    det = CardReader(layout, model).read(watched, detail=take)
    assert det.registration.usable
    assert frame_scale(det.registration.homography, layout.space("section-1").centre) < MIN_FRAME_PX_PER_MM
    got = {s.space: Counter(dict(s.pieces)) for s in det.spaces if not s.occluded}
    assert got["section-1"] == Counter(dict(board.pieces("section-1")))
    assert taken == [1]  # the still taken once, for the whole read

    bare = CardReader(layout, model)  # without it: the watched frame finds the tokens, not sure of a value ...
    tokens: list = []
    find = bare.token_finder.find
    bare.token_finder.find = lambda corrected, box: (tokens.extend(found := find(corrected, box)), found)[1]
    spaces = {s.space: s for s in bare.read(watched).spaces}
    assert {t.kind for t in tokens} == {"token-5", "token-8"} and not all(t.sure for t in tokens)
    # ... and reports what it is sure of: the section read, the token not sure of without its value, never guessed
    sure = {Piece("neutral", t.kind) for t in tokens if t.sure}
    assert not spaces["section-1"].occluded and Counter(dict(spaces["section-1"].pieces)) == Counter(
        {p: 1 for p in sure} | {Piece("neutral", "token-?"): 2 - len(sure)})


def test_a_table_enrolled_from_stills_expects_the_board_where_the_watched_frame_shows_it(layout, table) -> None:
    """The enrolment photo's pose (a mounted camera keeps it) is used for frames of another size too:
    scaled to the watched frame (``TableRegistration.known_pose``)."""
    model, _, _, watched = table
    reader = CardReader(layout, model)
    expected = reader.registration.known_pose((watched.shape[1], watched.shape[0]))
    det = reader.read(watched)
    corners = np.float32([[[0, 0]], [[layout.size[0], 0]], [[layout.size[0], layout.size[1]]], [[0, layout.size[1]]]])
    got = cv2.perspectiveTransform(corners, det.registration.homography)
    assert expected is not None and np.abs(cv2.perspectiveTransform(corners, expected) - got).max() < 1.0


def test_a_token_on_its_printed_spot_is_found_by_its_colour_when_its_rim_is_not(layout, table) -> None:
    """A real token lying on its printed spot of its own size: the spot's outline cancels the
    token's rim in the rim map (photoreal tables), so the rim search finds nothing there. The
    spot's middle, against the empty board, shows the token; its value is read as before (here on
    the still). The other spot, empty, stays empty."""
    model, board, still, watched = table
    reader = CardReader(layout, model)
    reader.token_finder.find = lambda corrected, box: []  # the rim search misses both tokens
    det = reader.read(watched, detail=lambda: still)
    got = {s.space: (s.occluded, Counter(dict(s.pieces))) for s in det.spaces}
    assert got["section-1"] == (False, Counter(dict(board.pieces("section-1"))))
    assert got["section-2"] == (False, Counter())  # both of its spots empty: no token made up

    one = Board.from_counts({"section-1": Counter({Piece("neutral", "token-5"): 1})})
    c = Conditions(size=STILL, fill=0.6, seed=5)
    still_one = render(layout, one, c).image
    det = reader.read(cv2.resize(still_one, WATCHED, interpolation=cv2.INTER_AREA), detail=lambda: still_one)
    s1 = next(s for s in det.spaces if s.space == "section-1")
    assert not s1.occluded and Counter(dict(s1.pieces)) == Counter({Piece("neutral", "token-5"): 1})


def test_a_rim_spot_the_still_shows_no_token_face_at_is_no_token(layout, table) -> None:
    """What the rim search takes for a token on a card's print is dropped when the still's best
    token face matches it less than ``PHANTOM_SCORE``; a weak match above that is a token whose value
    is not sure (the section unread), a good one with its lead a sure value."""
    from vision.card_tokens import FINE_SCORE, PHANTOM_SCORE, TOKEN_MARGIN

    finder = CardReader(layout, table[0]).token_finder
    five = Piece("neutral", "token-5")
    for still_score, expected in ((PHANTOM_SCORE - 0.1, None), ((PHANTOM_SCORE + FINE_SCORE) / 2, False),
                                  (FINE_SCORE + 0.1, True)):
        finder.finer = lambda at, candidates, score=still_score: (five, score, TOKEN_MARGIN + 0.05)
        token = finder._valued(10.0, 20.0, Piece("neutral", "token-8"), 0.6, 0.0)
        assert (token if token is None else token.sure) == expected
        assert token is None or token.kind == "token-5"


def test_the_camera_enrolment_learns_the_still_faces_from_a_camera_with_a_detail_stream(layout, tmp_path) -> None:
    """The dashboard's enrolment (``CameraEnrolment``) on a camera with a detail stream takes its two
    photos as stills (``CameraDevice.capture``), so the token faces for the still are learned there:
    the reader then reads a value in the still that the watched frame shows too coarsely. The camera
    renders its coarse frame apart (not a still scaled down), whose pose, scaled to the still, is
    off by a few still pixels: the still is placed by its own corner markers (``DetailStill.
    homography``; with the scaled pose the token 8 here matched 0.54, under ``FINE_SCORE``)."""
    from hardware.camera import SyntheticCamera
    from tableref.camera_device import CameraDevice
    from tableref.camera_enrolment import CameraEnrolment
    from vision.enrolment import TableModel

    cam = SyntheticCamera(layout, conditions=Conditions(size=WATCHED, fill=0.6, seed=5), seed=5, noise_sigma=0.0,
                          detail_size=STILL)
    device = CameraDevice(cam, layout, fps=4.0, emulated=True)
    try:
        path = tmp_path / "table-model.npz"
        enrolment = CameraEnrolment(device, default_path=str(path))
        assert enrolment.run("empty", "admin").ok
        cells: dict[str, Counter] = {}
        for sid, piece in enrolment.plan():
            cells.setdefault(sid, Counter())[piece] += 1
        cam.set_board(Board.from_counts(cells))
        assert enrolment.run("pieces", "admin").ok
        assert enrolment.run("save", "admin").ok
        model = TableModel.load(str(path), layout)
        assert {k for k in model.faces if k.endswith(DETAIL)} == {f"neutral:{k}{DETAIL}" for k in layout.pieces
                                                                  if k.startswith("token-")}
        board = Board.from_counts({"section-1": Counter({Piece("neutral", "token-5"): 1,
                                                         Piece("neutral", "token-8"): 1})})
        cam.set_board(board)
        frame = cam.read()
        det = CardReader(layout, model).read(frame.image, detail=cam.detail_for(frame))
    finally:
        device.close()
    s1 = next(s for s in det.spaces if s.space == "section-1")
    assert not s1.occluded and Counter(dict(s1.pieces)) == Counter(dict(board.pieces("section-1")))
