"""Shared fixtures for the vision tests: small layouts and rendered frames (seeded)."""

from __future__ import annotations

import pytest

from vision.layout import layout_from_json, load_layout
from vision.make_layouts import small_test_layout


@pytest.fixture(scope="session")
def small_layout():
    return layout_from_json(small_test_layout())


@pytest.fixture(scope="session")
def china_layout():
    return load_layout("china-a")
