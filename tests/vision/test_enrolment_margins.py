"""Enrolment margins (vision/enrolment_margins.py): a class whose lone piece the learned classifier
reads unsurely in this table's enrolment photo is raised for this table, within bounds, and a
table whose pieces it reads surely is read exactly as before."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from classifier_testkit import AlteredClassifier
from scorer.core.types import Board, Piece
from vision.enrolment import TableModel, enrolment_plan
from vision.enrolment_margins import (EMPTY_MARGIN, MARGIN, MOST, Raises, class_raises, class_rivals, enrolment_samples,
                                      with_a_piece_under)
from vision.render import Conditions, render
from vision.space_classifier import Head, SpaceClassifier
from vision.table_reader import TableReader

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.86, tilt_deg=14.0, tilt_azimuth_deg=30.0,
                    blur_sigma=0.6, noise_sigma=1.5, jpeg_quality=90, seed=11)
RED, BLUE = Piece("red", "house"), Piece("blue", "house")
FORT = Piece("neutral", "fortress")
HEAD = Head("site", "single", ((), (RED,), (BLUE,), (FORT,), (FORT, RED)))


def _row(**logits: float) -> np.ndarray:
    order = ["empty", "red", "blue", "fort", "fort_red"]
    return np.array([logits.get(k, 0.0) for k in order], np.float32)


def test_a_surely_read_piece_raises_nothing():
    samples = [(_row(red=9.0), 1), (_row(empty=8.0), 0), (_row(empty=8.0), 0)]
    assert not class_raises(HEAD, samples).any()


def test_an_unsure_lone_piece_is_raised_by_its_shortfall_within_bounds():
    # a lone red house read 0.5 logits above "red house on a fortress": raised to MARGIN above it
    raised = class_raises(HEAD, [(_row(red=5.0, fort_red=4.5), 1)] + [(_row(empty=20.0), 0)] * 5)
    assert raised[1] == pytest.approx(MARGIN - 0.5) and raised[[0, 2, 3, 4]].sum() == 0
    # a piece read as something else by far: at most MOST
    assert class_raises(HEAD, [(_row(red=0.0, fort_red=20.0), 1)])[1] == pytest.approx(MOST)


def test_the_photos_empty_spaces_stay_empty():
    # the blue house unsure, but empty spaces read only 4 logits above blue: the raise stops there
    empties = [(_row(empty=4.0), 0)] * 20
    raised = class_raises(HEAD, [(_row(blue=3.0, empty=3.0), 2)] + empties)
    assert raised[2] == pytest.approx(4.0 - EMPTY_MARGIN)
    # no room at all: no raise (never negative)
    assert class_raises(HEAD, [(_row(blue=3.0, empty=3.0), 2)] + [(_row(empty=1.0), 0)] * 20)[2] == 0


def test_a_raise_counts_only_against_what_the_photo_showed_it_losing_to():
    # the photo's blue house read empty (as a dark table's violet did): blue is raised against empty,
    # not against the red house it beat there by far
    samples = [(_row(empty=3.0, blue=2.0, red=-4.0, fort=-9.0, fort_red=-9.0), 2), (_row(red=9.0), 1)] + [(_row(empty=20.0), 0)] * 5
    raises = Raises(class_raises(HEAD, samples), class_rivals(HEAD, samples))
    assert raises.by_class[2] == pytest.approx(MARGIN + 1.0)
    assert raises.rivals[2].tolist() == [True, False, False, False, False] and not raises.rivals[1].any()
    frames = np.stack([_row(empty=3.0, blue=1.0),  # the photo's misreading: put right
                       _row(red=3.0, blue=1.0),  # a red house the network reads red: stays red
                       _row(blue=2.0, red=1.0)])  # blue already: surer
    out = raises.apply(frames)
    assert np.argmax(out, axis=1).tolist() == [2, 1, 2]
    assert out[1].tolist() == frames[1].tolist() and out[2, 2] == pytest.approx(2.0 + MARGIN + 1.0)


def test_a_raise_carries_over_to_the_same_piece_on_a_fortress():
    # red read empty in the photo: "fortress + red" is raised against "fortress" as red is against empty,
    # no further than the photo's lone fortress allows (it reads 3 + EMPTY_MARGIN above "fortress + red")
    samples = [(_row(empty=3.0, red=2.0, blue=-9.0, fort=-9.0, fort_red=-9.0), 1),
               (_row(fort=5.0, fort_red=2.0 - EMPTY_MARGIN), 3)] + [(_row(empty=20.0), 0)] * 5
    raises = with_a_piece_under(HEAD, Raises(class_raises(HEAD, samples), class_rivals(HEAD, samples)), samples)
    assert raises.by_class[1] == pytest.approx(MARGIN + 1.0)
    assert raises.by_class[4] == pytest.approx(3.0) and raises.rivals[4].tolist() == [False, False, False, True, False]
    out = raises.apply(np.stack([_row(fort=4.0, fort_red=2.0), _row(fort=4.0, fort_red=0.5)]))
    assert np.argmax(out, axis=1).tolist() == [4, 3]


def test_a_counting_head_is_left_as_it_is():
    counts = Head("dragon", "counts", groups=(Piece("red", "emissary"),), max_count=6)
    assert not class_raises(counts, [(np.zeros(7, np.float32), 1)]).any()


def test_samples_are_the_photos_spaces_with_what_lay_there():
    samples = enrolment_samples(HEAD, {"a": _row(red=1.0), "b": _row(), "c": _row()},
                                {"a": RED, "c": Piece("green", "house")})  # green: no class, left out
    assert [c for _, c in samples] == [1, 0]


class _Biased(AlteredClassifier):
    """The committed classifier, made to see a fortress under every house on this table (as a
    network trained on other tables did on a photoreal one)."""

    def __init__(self, inner: SpaceClassifier, bias: float):
        super().__init__(inner)
        self.bias = bias

    def alter(self, kind: str, out: np.ndarray) -> np.ndarray:
        if kind == "site":
            lone = out.copy()
            for c, cls in enumerate(self.inner.heads["site"].classes):
                if len(cls) == 2:  # fortress + house: as sure as the lone house, and then some
                    alone = self.inner.heads["site"].classes.index((cls[1],))
                    lone[:, c] = np.maximum(out[:, c], out[:, alone] + self.bias)
            out = lone
        return out


@pytest.fixture(scope="module")
def table(china_layout, tmp_path_factory, enrolled_table) -> TableModel:
    return enrolled_table(china_layout, CAMERA, tmp_path_factory.mktemp("table"))



def test_the_table_model_keeps_its_enrolment_photo(table, china_layout):
    assert table.pieces_view is not None and table.pieces_view.shape == table.reference.shape
    assert table.placed == enrolment_plan(china_layout)


def test_a_table_the_network_misreads_in_its_photo_is_read_right_after_the_raise(china_layout, table):
    inner = SpaceClassifier.load(layout=china_layout)
    biased = _Biased(inner, 1.0)
    sites = [s.id for s in china_layout.spaces if s.kind == "site"][5:13]
    board = Board.from_counts({s: Counter({Piece(c, "house"): 1})
                               for s, c in zip(sites, ["red", "blue", "green", "yellow", "violet"] * 2)})
    frame = render(china_layout, board, dataclasses.replace(CAMERA, seed=30)).image
    want = {s: {p: 1 for p in board.pieces(s)} for s in sites}

    def read(model: TableModel) -> dict:
        det = TableReader(china_layout, model, classifier=biased).read(frame)
        return {s.space: dict(s.pieces) for s in det.spaces if s.space in sites}

    # without its photo the reader cannot know: every lone house read on a fortress
    without = read(dataclasses.replace(table, pieces_view=None))
    assert all(Piece("neutral", "fortress") in got for got in without.values())
    assert read(table) == want
    # the network as it is reads this table's frame the same with or without its photo's raises
    plain = TableReader(china_layout, dataclasses.replace(table, pieces_view=None), classifier=inner).read(frame)
    raised = TableReader(china_layout, table, classifier=inner).read(frame)
    assert [s.pieces for s in plain.spaces] == [s.pieces for s in raised.spaces]
