"""Builders for China positions used by the worked-example tests."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from importlib import resources
from typing import Mapping

import pytest

from scorer.core.game import SetupOptions
from scorer.games.china import GAME
from scorer.games.china.board import board_from_json
from scorer.games.china.state import ChinaState


def board_doc(ref: str = "china-a") -> dict:
    return json.loads(resources.files("scorer.games.china").joinpath("boards", f"{ref}.json").read_text("utf-8"))


def position(
    players: tuple[str, ...] = ("blue", "green", "red", "yellow"),
    houses: Mapping[str, str] | None = None,
    emissaries: Mapping[str, Mapping[str, int]] | None = None,
    fortresses: tuple[str, ...] = (),
    active: str | None = None,
    variants: tuple[str, ...] = (),
    board=None,
    **extra,
) -> ChinaState:
    """A mid-game position: ``houses`` site -> owner, ``emissaries`` province -> owner -> n."""
    setup = {"players": list(players), "variants": list(variants), **extra}
    opts = SetupOptions.from_json(setup)
    if board is not None:
        opts = replace(opts, board=board)
    state = GAME.setup(opts)
    b = state.board
    owner = list(state.site_owner)
    fort = list(state.site_fortress)
    houses_left = list(state.houses_left)
    for site, who in (houses or {}).items():
        owner[b.site_index[site]] = players.index(who)
        houses_left[players.index(who)] -= 1
    for site in fortresses:
        fort[b.site_index[site]] = True
    emiss = [list(e) for e in state.emissaries]
    em_left = list(state.emissaries_left)
    for prov, counts in (emissaries or {}).items():
        for who, n in counts.items():
            emiss[b.province_index[prov]][players.index(who)] += n
            em_left[players.index(who)] -= n
    return replace(
        state,
        site_owner=tuple(owner),
        site_fortress=tuple(fort),
        emissaries=tuple(tuple(e) for e in emiss),
        houses_left=tuple(houses_left),
        emissaries_left=tuple(em_left),
        active=players.index(active) if active else 0,
    )


@pytest.fixture
def make_position():
    return position


@pytest.fixture
def custom_board():
    """Build a validated board from the shipped one with edits applied by the test."""

    def build(edit) -> object:
        doc = copy.deepcopy(board_doc())
        edit(doc)
        return board_from_json(doc)

    return build
