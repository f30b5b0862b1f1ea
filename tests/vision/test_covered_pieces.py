"""A fortress read under a house only where the reader saw it before the house went on
(vision/covered_pieces.py): the pure rule, then a live reader whose network sees a fortress under
every house."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from classifier_testkit import AlteredClassifier
from scorer.core.types import Board, Piece
from vision.covered_pieces import CoveredPieces, seen_before
from vision.detection import SpaceResult
from vision.render import Conditions, render
from vision.space_classifier import SpaceClassifier
from vision.table_reader import TableReader

FORT, HOUSE, RED = Piece("neutral", "fortress"), Piece("blue", "house"), Piece("red", "house")
CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.86, tilt_deg=14.0, tilt_azimuth_deg=30.0,
                    blur_sigma=0.6, noise_sigma=1.5, jpeg_quality=90, seed=21)


def _read(covered: CoveredPieces, *pieces: Piece, occluded: bool = False, unsure: bool = False) -> tuple:
    r = SpaceResult("qi-1", tuple((p, 1) for p in pieces), 0.9, occluded, unsure=unsure)
    return covered.apply([r])[0].pieces


def test_the_layout_names_the_fortress_as_what_a_house_may_hide(china_layout):
    assert CoveredPieces.for_layout(china_layout).bases == {FORT: frozenset({"house"})}


def test_a_fortress_first_seen_under_a_house_is_dropped_and_stays_dropped():
    c = CoveredPieces({FORT: frozenset({"house"})})
    assert _read(c) == ()
    assert _read(c, FORT, HOUSE) == ((HOUSE, 1),)
    assert _read(c, FORT, HOUSE) == ((HOUSE, 1),)
    assert _read(c, HOUSE) == ((HOUSE, 1),)


def test_a_fortress_seen_bare_is_kept_under_the_house_laid_on_it():
    c = CoveredPieces({FORT: frozenset({"house"})})
    assert _read(c) == ()
    assert _read(c, FORT) == ((FORT, 1),)
    assert _read(c, HOUSE) == ((HOUSE, 1),)  # the house hides it whole in this frame: nothing to keep, nothing forgotten
    assert _read(c, FORT, HOUSE) == ((FORT, 1), (HOUSE, 1))
    assert _read(c, RED, FORT) == ((RED, 1), (FORT, 1))  # another player's house on the same fortress


def test_a_fortress_taken_away_is_forgotten():
    c = CoveredPieces({FORT: frozenset({"house"})})
    assert _read(c, FORT) == ((FORT, 1),)
    assert _read(c) == ()
    assert _read(c, FORT, HOUSE) == ((HOUSE, 1),)


def test_a_hand_or_an_unsure_read_changes_nothing_and_a_first_look_is_taken_as_read():
    c = CoveredPieces({FORT: frozenset({"house"})})
    assert _read(c, FORT, HOUSE) == ((FORT, 1), (HOUSE, 1))  # the reader's first look at the space
    c.reset()
    assert _read(c) == ()
    assert _read(c, occluded=True) == ()
    assert _read(c, unsure=True) == ()
    assert _read(c, FORT, HOUSE) == ((HOUSE, 1),)  # still last seen empty
    assert CoveredPieces({}).apply([SpaceResult("qi-1", ((FORT, 1), (HOUSE, 1)))])[0].pieces == ((FORT, 1), (HOUSE, 1))


def test_seen_before_drops_a_base_under_a_cover_beyond_what_was_there():
    bases = {FORT: frozenset({"house"})}
    assert seen_before({FORT: 1, HOUSE: 1}, {HOUSE: 1}, bases) == Counter({HOUSE: 1})
    assert seen_before({FORT: 1, HOUSE: 1}, {FORT: 1}, bases) == Counter({FORT: 1, HOUSE: 1})
    assert seen_before({FORT: 1}, {}, bases) == Counter({FORT: 1})  # bare: seen, not dropped
    assert seen_before({FORT: 1, HOUSE: 1}, {}, {}) == Counter({FORT: 1, HOUSE: 1})


class _SeesFortresses(AlteredClassifier):
    """The committed classifier, made to read a fortress under every lone house it sees (as the site
    network did on a photoreal table whose houses' dark walls looked like a fortress's rim)."""

    def alter(self, kind: str, out: np.ndarray) -> np.ndarray:
        if kind != "site":
            return out
        classes = self.heads["site"].classes
        for row in out:
            pieces = classes[int(np.argmax(row))]
            if len(pieces) == 1 and pieces[0].kind == "house":
                # (the neutral piece first, as heads_for orders a two-piece class); beyond the enrolment raises (at most 6)
                row[classes.index((FORT, pieces[0]))] = row.max() + 20.0
        return out


@pytest.fixture(scope="module")
def table(china_layout, tmp_path_factory, enrolled_table):
    return enrolled_table(china_layout, CAMERA, tmp_path_factory.mktemp("table"))


def _pieces(det) -> dict:
    return {s.space: dict(s.pieces) for s in det.spaces if s.pieces}


def test_a_live_reader_reads_a_house_laid_on_an_empty_site_without_the_fortress_its_network_sees(china_layout, table):
    sites = [s.id for s in china_layout.spaces if s.kind == "site"]
    camera = dataclasses.replace(CAMERA, seed=43)
    reader = TableReader(china_layout, table, classifier=_SeesFortresses(SpaceClassifier.load(layout=china_layout)))
    assert _pieces(reader.read(render(china_layout, Board.from_counts({}), camera).image, at=0.0)) == {}
    one = Board.from_counts({sites[5]: Counter({HOUSE: 1})})
    assert _pieces(reader.read(render(china_layout, one, camera).image, at=1.0)) == {sites[5]: {HOUSE: 1}}
    # a fortress laid bare, then a house on it: the fortress stays
    bare = Board.from_counts({sites[5]: Counter({HOUSE: 1}), sites[9]: Counter({FORT: 1})})
    assert _pieces(reader.read(render(china_layout, bare, camera).image, at=2.0))[sites[9]] == {FORT: 1}
    both = Board.from_counts({sites[5]: Counter({HOUSE: 1}), sites[9]: Counter({FORT: 1, RED: 1})})
    assert _pieces(reader.read(render(china_layout, both, camera).image, at=3.0)) == \
        {sites[5]: {HOUSE: 1}, sites[9]: {FORT: 1, RED: 1}}
    # a new reader has seen nothing yet: its first look is taken as the network reads it
    fresh = TableReader(china_layout, table, classifier=_SeesFortresses(SpaceClassifier.load(layout=china_layout)))
    assert _pieces(fresh.read(render(china_layout, one, camera).image, at=0.0)) == {sites[5]: {HOUSE: 1, FORT: 1}}
