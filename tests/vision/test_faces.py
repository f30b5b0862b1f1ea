"""Printed faces (vision/faces.py, vision/face_art.py): pieces of one footprint told apart by the
artwork on their top face, drawn by the renderer and learned from the enrolment photo.

Uses the Cheops layout (its tiles differ only by their faces) and a copy of it with player-owned
printed counters (a digit on each, the owner's colour as border) to show that nothing is
Cheops-specific."""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter

import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.enrolment import TableModel, enrolment_plan, model_from_photos
from vision.errors import LayoutError
from vision.face_art import face_art, printed_kinds
from vision.faces import FaceBook
from vision.layout import layout_from_json, load_layout
from vision.render import Conditions, render
from vision.table_reader import TableReader

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.9, tilt_deg=12.0, tilt_azimuth_deg=30.0, roll_deg=2.0,
                    brightness=0.95, white_balance=(1.05, 1.0, 0.93), gradient=0.15, blur_sigma=0.6, noise_sigma=1.5,
                    jpeg_quality=90, seed=11)
TILES = ("family-A", "family-B", "family-C", "family-D", "neighbour")


@pytest.fixture(scope="module")
def cheops():
    return load_layout("cheops")


@pytest.fixture(scope="module")
def model(cheops) -> TableModel:
    plan = {s: p for s, p in enrolment_plan(cheops).items() if cheops.pieces[p.kind].printed}
    empty = render(cheops, Board(), CAMERA).image
    pieces = render(cheops, Board.from_counts({s: Counter({p: 1}) for s, p in plan.items()}),
                    dataclasses.replace(CAMERA, seed=12)).image
    return model_from_photos(cheops, empty, pieces, plan)


def test_layout_face_field_is_validated_and_read(cheops):
    assert cheops.pieces["family-A"].printed and cheops.pieces["family-A"].face_label == "A"
    assert cheops.pieces["neighbour"].printed and cheops.pieces["neighbour"].face_label is None
    assert not cheops.pieces["treasure-red"].printed
    raw = copy.deepcopy(cheops.to_json())
    raw["pieces"]["family-A"]["face"] = {"label": "A", "colour": "red"}
    with pytest.raises(LayoutError):
        layout_from_json(raw)


def test_artwork_differs_per_kind_and_per_turn_and_is_deterministic(cheops):
    arts = {k: face_art(cheops, k).astype(np.float32) for k in printed_kinds(cheops)}
    assert set(arts) == set(TILES) | {"law"}
    for a in arts:
        assert np.array_equal(arts[a], face_art(cheops, a))
        for b in arts:
            if a < b:
                assert np.abs(arts[a] - arts[b]).mean() > 20, (a, b)
        for k in (1, 2, 3):  # a face turned is not the same face (so matching can tell the turn)
            assert np.abs(arts[a] - np.rot90(arts[a], k)).mean() > 10


def test_owned_printed_pieces_carry_their_owner_colour(cheops):
    raw = copy.deepcopy(cheops.to_json())
    raw["players"] = {"red": [200, 40, 40], "blue": [40, 80, 200]}
    raw["pieces"]["counter-3"] = {"footprint": "rect", "size_mm": [16, 16], "height_mm": 3, "owners": "players",
                                  "face": {"label": "3"}}
    lay = layout_from_json(raw)
    red, blue = face_art(lay, "counter-3", "red"), face_art(lay, "counter-3", "blue")
    assert tuple(red[1, 1]) == (40, 40, 200) and tuple(blue[1, 1]) == (200, 80, 40)  # BGR border
    assert np.array_equal(red[30:60, 30:60], blue[30:60, 30:60])  # the same print inside


def test_renderer_draws_each_kind_distinctly(cheops):
    """Two frames alike but for the kind of the tile on one space differ there."""
    c = dataclasses.replace(CAMERA, blur_sigma=0.0, noise_sigma=0.0, jpeg_quality=None)
    a = render(cheops, Board.from_counts({"r6c1": Counter({Piece("neutral", "family-A"): 1})}), c)
    b = render(cheops, Board.from_counts({"r6c1": Counter({Piece("neutral", "family-B"): 1})}), c)
    diff = np.abs(a.image.astype(int) - b.image.astype(int)).sum(axis=2)
    assert (diff > 60).sum() > 150


def test_enrolment_learns_faces_and_the_model_keeps_them(cheops, model, tmp_path):
    assert {f"neutral:{k}" for k in TILES} <= set(model.faces)
    assert all(f.shape[0] >= 20 for f in model.faces.values())
    path = tmp_path / "table.npz"
    model.save(path)
    back = TableModel.load(path)
    assert set(back.faces) == set(model.faces)
    assert all(np.array_equal(back.faces[k], model.faces[k]) for k in model.faces)
    plain = dataclasses.replace(model, faces={})  # a model without faces (older files) loads as before
    plain.save(path)
    assert TableModel.load(path).faces == {}


def test_faces_are_matched_in_any_turn_and_unknown_artwork_is_unsure(cheops, model):
    book = FaceBook(cheops, model.faces, model.px_per_mm)
    rng = np.random.default_rng(4)
    pyramid = [sp for sp in cheops.spaces if sp.kind == "pyramid"]
    cells = {sp.id: Counter({Piece("neutral", TILES[int(rng.integers(len(TILES)))]): 1}) for sp in pyramid}
    reader = TableReader(cheops, model, classifier=None)
    _, corrected, _ = reader.board_view(render(cheops, Board.from_counts(cells), dataclasses.replace(CAMERA, seed=40)).image)
    candidates = [Piece("neutral", k) for k in TILES]
    right = unsure = 0
    turns = set()
    for sid, content in cells.items():
        m = book.match(corrected, cheops.space(sid).centre, candidates)
        truth = next(iter(content))
        assert m.piece in (None, truth), (sid, m)  # never a wrong kind
        right += m.piece == truth
        unsure += m.piece is None
        turns.add(m.turn)
    assert right >= 0.95 * len(cells) and turns == {0, 1, 2, 3}
    # artwork it never learned (a law tile asked among the family faces): weak, so not sure
    laws = {sp.id: Counter({Piece("neutral", "law"): 1}) for sp in pyramid[:12]}
    _, corrected, _ = reader.board_view(render(cheops, Board.from_counts(laws), dataclasses.replace(CAMERA, seed=41)).image)
    said = [book.match(corrected, cheops.space(s).centre, candidates).piece for s in laws]
    assert said.count(None) >= 11


def test_several_faces_in_one_area_are_found_each_once(cheops, model):
    """A space holding several printed pieces (a row of cards): ``find`` names each where it lies."""
    book = FaceBook(cheops, model.faces, model.px_per_mm)
    row = {"r11c3": "family-C", "r11c4": "neighbour", "r11c5": "family-A"}
    board = Board.from_counts({s: Counter({Piece("neutral", k): 1}) for s, k in row.items()})
    reader = TableReader(cheops, model, classifier=None)
    _, corrected, _ = reader.board_view(render(cheops, board, dataclasses.replace(CAMERA, seed=42)).image)
    pts = np.array([p for s in row for p in cheops.space(s).polygon])
    x0, y0 = pts.min(axis=0) - 3
    x1, y1 = pts.max(axis=0) + 3
    found = book.find(corrected, (x0, y0, x1, y1), [Piece("neutral", k) for k in TILES], 3)
    got = {}
    for m in found:
        assert m.piece is not None
        sid = min(row, key=lambda s: np.hypot(*(np.subtract(cheops.space(s).centre, m.offset_mm))))
        got[sid] = m.piece.kind
    assert got == row
