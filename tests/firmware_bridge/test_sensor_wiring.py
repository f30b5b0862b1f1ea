"""Wiring maps (antenna -> space) and the table -> Observation step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_bridge.wiring import WiringMap, map_table, observation
from hardware.tag_registry import Card, TagRegistry
from scorer.core import InvalidRecord, Piece

SAMPLE = Path(__file__).resolve().parents[2] / "firmware_bridge" / "wiring" / "china-a.json"


def test_sample_china_wiring_map_is_valid_and_consistent():
    w = WiringMap.load(SAMPLE)
    assert w.board == "china-a" and w.provisional
    antennas = [a for a, _ in w.antennas]
    assert antennas == list(range(len(antennas)))          # no holes in the reader chain
    spaces = [s for _, s in w.antennas]
    assert len(spaces) == len(set(spaces))
    provinces = {s.split("-")[0] for s in spaces}
    assert len(provinces) == 9
    assert all(f"{p}-dragon" in spaces for p in provinces)
    main_py = (SAMPLE.parents[1] / "firmware" / "main.py").read_text()
    assert f"ANTENNAS = {len(antennas)} " in main_py       # the firmware scans as many antennas


@pytest.mark.parametrize(
    "data",
    [{"board": "x", "antennas": {}},
     {"board": "x", "antennas": {"255": "wei-1"}},
     {"board": "x", "antennas": {"1": "Wei 1"}},
     {"antennas": {"1": "wei-1"}}],
)
def test_bad_wiring_maps_are_refused(data):
    with pytest.raises(InvalidRecord):
        WiringMap.from_json(data)


def test_mapping_reports_every_covered_space_and_never_guesses():
    w = WiringMap.of({0: "wei-1", 1: "wei-2", 2: "wei-dragon", 3: "wei-dragon"})
    reg = TagRegistry(tags={"04000001": Piece("red", "house"), "04000002": Piece("red", "emissary"),
                            "04000003": Piece("blue", "emissary"), "1A003B5C7E": Card("red")})
    table = {0: [bytes.fromhex("04000001")], 2: [bytes.fromhex("04000002"), bytes.fromhex("04FFFFFF")],
             3: [bytes.fromhex("04000003")], 9: [bytes.fromhex("04000009")]}
    m = map_table(table, w, reg)
    obs = observation(m, 12.5)
    assert obs.source == "sensor-board" and obs.at == 12.5
    assert obs.covered() == ("wei-1", "wei-2", "wei-dragon")
    by = {r.space: r for r in obs.readings}
    assert by["wei-2"].pieces == () and by["wei-2"].unknown == ()          # covered, empty
    assert by["wei-dragon"].counter() == {Piece("red", "emissary"): 1, Piece("blue", "emissary"): 1}
    assert by["wei-dragon"].unknown == ("04FFFFFF",)
    assert m.unmapped == ((9, "04000009"),)
    assert obs.board().count("wei-1", Piece("red", "house")) == 1


def test_a_card_tag_on_the_board_is_not_taken_for_a_piece():
    w = WiringMap.of({0: "wei-1"})
    reg = TagRegistry(tags={"1A003B5C7E": Card("red")})
    m = map_table({0: [bytes.fromhex("1A003B5C7E")]}, w, reg)
    assert m.readings[0].pieces == () and m.readings[0].unknown == ("1A003B5C7E",)
    assert m.not_pieces == (("wei-1", "1A003B5C7E", Card("red")),)


def test_wiring_json_round_trip():
    w = WiringMap.of({3: "qin-1", 1: "qin-dragon"}, board="t")
    assert WiringMap.from_json(json.loads(json.dumps(w.to_json()))) == w
