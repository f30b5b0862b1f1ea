"""Cheops' column dots: each holds only the scarab of its own colour (the column's marker, rules
C18; the layout space's ``holds``), and the reader judges that scarab by size alone
(vision/sole_kind.py): on a dot printed in its own colour, a scarab differs from the empty board
by its shading and shadow only, and its colour is the board's there. Rendered frames of the
Cheops layout with its dots printed in their colours, as the photoreal boards print them."""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections import Counter

import pytest

from scorer.core.types import Board, Piece
from vision.enrolment import enrolment_plan, model_from_photos
from vision.layout import layout_from_json, load_layout
from vision.render import Conditions, Hand, Shadow, render
from vision.table_reader import TableReader

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.9, tilt_deg=25.0, tilt_azimuth_deg=270.0, roll_deg=2.0,
                    brightness=0.95, white_balance=(1.05, 1.0, 0.93), gradient=0.15, blur_sigma=0.6, noise_sigma=1.5,
                    jpeg_quality=90, seed=41)
N = "neutral"
COLOURS = ("red", "blue", "green", "yellow", "white", "black")
MARKED = ("red", "blue", "yellow", "black")  # these dots have their marker; green and white are empty


def test_each_dot_holds_only_its_own_colour():
    cheops = load_layout("cheops")
    for colour in COLOURS:
        sp = cheops.space(f"dot-{colour}")
        assert cheops.held_kinds(sp) == (f"treasure-{colour}",)
        assert cheops.usual_kinds(sp) == (f"treasure-{colour}",)
    assert len(cheops.held_kinds(cheops.space("r11c1"))) > len(COLOURS)  # the pyramid keeps every colour
    for colour in COLOURS:  # a price table holds the scarabs sold of its own colour only (rules, "Sell")
        assert cheops.held_kinds(cheops.space(f"price-{colour}")) == (f"treasure-{colour}",)


@functools.lru_cache(maxsize=1)
def printed_dots():
    """The Cheops layout with every dot printed in its own colour (each dot its own kind, only for
    the print: the reader goes by the space's ``holds``), and a table enrolled on it."""
    doc = copy.deepcopy(load_layout("cheops").to_json())
    rgb = {c: doc["pieces"][f"treasure-{c}"]["rgb"] for c in COLOURS}
    for s in doc["spaces"]:
        if s.get("kind") == "dot":
            colour = s["id"][len("dot-"):]
            s["kind"] = f"dot-{colour}"
            doc["space_fill"][f"dot-{colour}"] = rgb[colour]
    layout = layout_from_json(doc)
    plan = enrolment_plan(layout)
    assert not any(sid.startswith("dot-") for sid in plan)  # enrolled off the dots: the colours learned on other print
    empty = render(layout, Board(), CAMERA).image
    pieces = render(layout, Board.from_counts({s: Counter({p: 1}) for s, p in plan.items()}),
                    dataclasses.replace(CAMERA, seed=42)).image
    return layout, model_from_photos(layout, empty, pieces, plan)


@pytest.fixture(scope="module")
def reader():
    layout, model = printed_dots()
    return TableReader(layout, model, classifier=None)


def _board() -> Board:
    cells: dict[str, Counter] = {f"dot-{c}": Counter({Piece(N, f"treasure-{c}"): 1}) for c in MARKED}
    # things beside the empty dots: scarabs sold onto their price tables, tiles on the pyramid
    cells["price-green"] = Counter({Piece(N, "treasure-red"): 2})
    cells["price-white"] = Counter({Piece(N, "treasure-black"): 1})
    cells["r1c1"] = Counter({Piece(N, "family-A"): 1})
    cells["r2c1"] = Counter({Piece(N, "treasure-white"): 1})
    return Board.from_counts(cells)


def _dots(det) -> dict[str, dict | None]:
    """Each dot's reading (None: left unread)."""
    return {s.space: (None if s.occluded else dict(s.pieces)) for s in det.spaces if s.space.startswith("dot-")}


def test_a_scarab_on_a_dot_of_its_own_colour_is_read_and_an_empty_dot_is_empty(reader):
    reader.reset()
    det = reader.read(render(reader.layout, _board(), dataclasses.replace(CAMERA, seed=43)).image)
    dots = _dots(det)
    for c in MARKED:
        assert dots[f"dot-{c}"] == {Piece(N, f"treasure-{c}"): 1}, c
    for c in ("green", "white"):
        assert dots[f"dot-{c}"] == {}, c


def test_a_shadow_over_an_empty_dot_is_no_scarab(reader):
    """A person's shadow and a hand reaching in beside the dots: what they darken is not a marker."""
    layout = reader.layout
    (gx, gy), (wx, wy) = layout.space("dot-green").centre, layout.space("dot-white").centre
    shade = Shadow(((gx - 30, gy - 40), (gx + 25, gy - 40), (gx + 25, gy + 14), (gx - 30, gy + 14)), 0.55)
    for k, c in enumerate((dataclasses.replace(CAMERA, seed=44, shadows=(shade,)),
                           dataclasses.replace(CAMERA, seed=45, hand=Hand((wx + 10.0, wy - 45.0), 80.0, 70.0)))):
        reader.reset()
        r = render(layout, _board(), c)
        dots = _dots(reader.read(r.image))
        for colour in ("green", "white"):
            assert dots[f"dot-{colour}"] in ({}, None), (k, colour, dots)
        for colour in MARKED:  # in the shade a marker may be missed, never doubled
            assert dots[f"dot-{colour}"] in ({Piece(N, f"treasure-{colour}"): 1}, {}, None), (k, colour, dots)
