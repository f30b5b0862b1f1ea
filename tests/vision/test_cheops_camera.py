"""Cheops read by the camera: tiles told apart by their printed faces (vision/faces.py), scarabs by
their colour (vision/appearance.py), on rendered frames of the provisional Cheops layout with known
truth. The enrolment photos are rendered as a user takes them (same camera, calm)."""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter

import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.enrolment import TableModel, enrolment_plan, model_from_photos
from vision.layout import load_layout
from vision.render import Conditions, Hand, render
from vision.render_set import render_set
from vision.scenes import game_position, random_board
from vision.table_reader import TableReader

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.9, tilt_deg=12.0, tilt_azimuth_deg=30.0, roll_deg=2.0,
                    brightness=0.95, white_balance=(1.05, 1.0, 0.93), gradient=0.15, blur_sigma=0.6, noise_sigma=1.5,
                    jpeg_quality=90, seed=11)
N = "neutral"
COLOURS = ("red", "blue", "green", "yellow", "white", "black")


@pytest.fixture(scope="module")
def cheops():
    return load_layout("cheops")


@functools.lru_cache(maxsize=1)
def enrolled_model() -> TableModel:
    """The Cheops table enrolled from its two rendered photos, once per test run (tests/vision/test_cheops_hands.py
    reads with it too)."""
    cheops = load_layout("cheops")
    plan = enrolment_plan(cheops)
    empty = render(cheops, Board(), CAMERA).image
    pieces = render(cheops, Board.from_counts({s: Counter({p: 1}) for s, p in plan.items()}),
                    dataclasses.replace(CAMERA, seed=12)).image
    return model_from_photos(cheops, empty, pieces, plan)


@pytest.fixture(scope="module")
def model():
    return enrolled_model()


@pytest.fixture(scope="module")
def reader(cheops, model):
    return TableReader(cheops, model, classifier=None)


def _board() -> Board:
    """Every tile face and scarab colour, as a game shows them: tiles on the lower rows, laws on the
    eye spaces, scarabs on open spaces, on their dots and sold onto price tables."""
    cells: dict[str, Counter] = {}
    tiles = ("family-A", "family-B", "family-C", "family-D", "neighbour")
    for i in range(1, 12):
        cells[f"r11c{i}"] = Counter({Piece(N, tiles[i % 5]): 1})
    for i in range(1, 11):
        cells[f"r10c{i}"] = Counter({Piece(N, tiles[(i * 2) % 5]): 1})
    for sid in ("r6c3", "r7c5", "r8c4"):
        cells[sid] = Counter({Piece(N, "law"): 1})
    cells["r6c4"] = Counter({Piece(N, "family-B"): 1})
    for k, colour in enumerate(COLOURS):
        cells[f"dot-{colour}"] = Counter({Piece(N, f"treasure-{colour}"): 1})
        cells[f"r{3 + k}c1"] = Counter({Piece(N, f"treasure-{colour}"): 1})
        cells[f"r9c{2 + k}"] = Counter({Piece(N, f"treasure-{colour}"): 1})
    cells["price-blue"] = Counter({Piece(N, "treasure-blue"): 3})
    cells["price-red"] = Counter({Piece(N, "treasure-red"): 1})
    return Board.from_counts(cells)


def _read(det) -> dict[str, dict]:
    return {s.space: dict(s.pieces) for s in det.spaces if s.pieces}


def _truth(board: Board) -> dict[str, dict]:
    return {s: dict(board.pieces(s)) for s in board.spaces() if board.pieces(s)}


def test_enrolment_plan_and_model_cover_every_kind(cheops, model):
    plan = enrolment_plan(cheops)
    assert len(plan) == 12 and {p.kind for p in plan.values()} == set(cheops.pieces)
    for sid, p in plan.items():
        assert p.kind in cheops.holds[cheops.space(sid).kind]
    printed = {k for k, p in cheops.pieces.items() if p.printed}
    assert {f"{N}:{k}" for k in printed} == set(model.faces)
    assert {f"{N}:treasure-{c}" for c in COLOURS} == set(model.kind_colours)


def test_reads_every_tile_face_and_scarab(cheops, reader):
    board = _board()
    reader.reset()
    det = reader.read(render(cheops, board, dataclasses.replace(CAMERA, seed=21, tilt_deg=18.0)).image)
    assert not [s.space for s in det.spaces if s.occluded]
    assert _read(det) == _truth(board)


def test_positions_of_random_games_are_read(cheops, reader):
    rng = np.random.default_rng(3)
    wrong = 0
    for k in range(2):
        board = game_position(cheops, rng)
        reader.reset()
        det = reader.read(render(cheops, board, dataclasses.replace(CAMERA, seed=30 + k, tilt_azimuth_deg=120.0 * k)).image)
        truth = _truth(board)
        wrong += sum(1 for s in det.spaces if not s.occluded and dict(s.pieces) != truth.get(s.space, {}))
    assert wrong <= 1


def test_a_hand_over_the_pyramid_gives_no_reading_through_it(cheops, reader):
    board = _board()
    target = cheops.space("r10c5").centre
    c = dataclasses.replace(CAMERA, seed=23, hand=Hand(target, 100.0, 60.0))
    r = render(cheops, board, c)
    assert r.truth.occluded
    reader.reset()
    det = reader.read(r.image)
    unread = {s.space for s in det.spaces if s.occluded}
    assert r.truth.occluded <= unread
    truth = _truth(board)
    assert all(dict(s.pieces) == truth.get(s.space, {}) for s in det.spaces if not s.occluded)


def test_a_face_it_cannot_match_is_unsure_not_guessed(cheops, model):
    """Without family C's face (as if its enrolment failed), its tiles are left unread; the other
    faces are still read."""
    faces = {k: v for k, v in model.faces.items() if k != f"{N}:family-C"}
    reader = TableReader(cheops, dataclasses.replace(model, faces=faces), classifier=None)
    board = _board()
    det = reader.read(render(cheops, board, dataclasses.replace(CAMERA, seed=24)).image)
    truth = _truth(board)
    c_spaces = {s for s, c in truth.items() if Piece(N, "family-C") in c}
    by_space = {s.space: s for s in det.spaces}
    assert c_spaces and all(by_space[s].unsure and not by_space[s].occluded for s in c_spaces)  # seen, no hand
    others = [s for s in det.spaces if s.space not in c_spaces]
    assert all(dict(s.pieces) == truth.get(s.space, {}) for s in others if not s.occluded)
    assert sum(s.occluded for s in others) <= 1


def test_rendered_positions_are_physically_possible(cheops, tmp_path):
    rng = np.random.default_rng(5)
    for board in (game_position(cheops, rng), random_board(cheops, rng)):
        for sid in board.spaces():
            kind = cheops.space(sid).kind
            n = sum(board.pieces(sid).values())
            if kind in ("pyramid", "eye", "dot"):
                assert n == 1, (sid, board.pieces(sid))
            for p in board.pieces(sid):
                assert p.kind in cheops.holds[kind]
    summary = render_set(cheops, tmp_path / "set", 2, seed=7, positions="game")
    assert summary["frames"] == 2


def test_without_enrolment_nothing_is_guessed(cheops):
    """The layout says nothing of how the tiles and scarabs look: a reader without the table's
    enrolment leaves every space unread instead of guessing."""
    reader = TableReader(cheops, classifier=None)
    det = reader.read(render(cheops, _board(), dataclasses.replace(CAMERA, seed=25)).image)
    assert det.registration.usable
    assert all((s.unsure or s.occluded) and not s.pieces for s in det.spaces if cheops.held_kinds(cheops.space(s.space)))


def test_a_tile_laid_is_read_in_part_and_matches_a_full_read(cheops, model):
    """One tile laid on a scarab's space: only the spaces near it are read again (the tiles around it
    still explained as the last read found them), and the result is what a full read says."""
    before = _board()
    cells = {s: Counter(dict(before.pieces(s))) for s in before.spaces()}
    cells["r9c4"] = Counter({Piece(N, "family-A"): 1})  # on the green scarab's space: the scarab kept
    after = Board.from_counts(cells)
    camera = dataclasses.replace(CAMERA, seed=41, noise_sigma=0.0, jpeg_quality=None)
    reader = TableReader(cheops, model, classifier=None)
    first = reader.read(render(cheops, before, camera).image)
    assert first.partial is None and _read(first) == _truth(before)
    frame = render(cheops, after, camera).image
    det = reader.read(frame)
    assert det.partial is not None and det.partial < 12, det.partial
    full = TableReader(cheops, model, classifier=None).read(frame)
    assert full.partial is None and _read(det) == _read(full) == _truth(after)
