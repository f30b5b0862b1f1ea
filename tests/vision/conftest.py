"""Shared fixtures for the vision tests: small layouts and rendered frames (seeded)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from scorer.core.types import Board
from vision.enrolment import TableModel, enrolment_plan, model_from_photos
from vision.layout import Layout, layout_from_json, load_layout
from vision.make_layouts import small_test_layout
from vision.render import Conditions, render


def _enrolled_table(layout: Layout, camera: Conditions, folder: Path) -> TableModel:
    """A table enrolled from two rendered photos (the empty board; one piece of each type on the
    spaces the plan marks, at the next seed), saved and loaded back as a user's would be."""
    plan = enrolment_plan(layout)
    empty = render(layout, Board.from_counts({}), camera).image
    pieces = render(layout, Board.from_counts({s: Counter({p: 1}) for s, p in plan.items()}),
                    dataclasses.replace(camera, seed=camera.seed + 1)).image
    path = folder / "table.npz"
    model_from_photos(layout, empty, pieces, plan).save(path)
    return TableModel.load(path, layout)


@pytest.fixture(scope="session")
def small_layout():
    return layout_from_json(small_test_layout())


@pytest.fixture(scope="session")
def china_layout():
    return load_layout("china-a")


@pytest.fixture(scope="session")
def enrolled_table():
    """``enrolled_table(layout, camera, folder)``: a table enrolled from two rendered photos, saved
    and loaded back (``_enrolled_table``)."""
    return _enrolled_table


@pytest.fixture
def look_alone(monkeypatch):
    """Cheops read by the look alone, without the scarab network (``vision.scarab_network``): for the tests of
    what the look itself does; the network's own are in test_scarab_network.py."""
    from vision.scarab_network import ScarabNetwork

    monkeypatch.setattr(ScarabNetwork, "for_reader", classmethod(lambda cls, *a, **k: None))
