"""The Great Wall read by the camera (``vision.card_rows``, ``vision.card_enrol``, ``vision.card_reader``):
cards in a fanned row per section, their owners by the index square, their kinds by the type panel,
a dragon across the card it covers, tokens by their printed value; a hand holds a section back."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.card_detail import DETAIL
from vision.card_enrol import card_model_from_photos
from vision.card_reader import CardReader, reader_for_layout
from vision.card_rows import INDEX_X, card_row, enrol_board, is_card_layout, place_row
from vision.layout import load_layout
from vision.render import Conditions, Hand, render

B, R, Y, G = "blue", "red", "yellow", "green"


@pytest.fixture(scope="module")
def layout():
    return load_layout("great-wall")


def board() -> Board:
    return Board.from_counts({
        "section-1": Counter({Piece(B, "wall"): 2, Piece(R, "gate"): 1, Piece(Y, "tower"): 1,
                              Piece("neutral", "token-5"): 1, Piece("neutral", "token-3"): 1}),
        "section-2": Counter({Piece(G, "soldier"): 3, Piece(R, "cavalry"): 1, Piece(B, "dragon"): 1,
                              Piece("neutral", "token-7"): 1, Piece(R, "token-4"): 1}),
        "section-3": Counter({Piece(Y, "noble"): 1, Piece("neutral", "token-2"): 1, Piece("neutral", "token-8"): 1}),
    })


def owners(counts) -> Counter:
    """Cards per owner (tokens and card kinds left out): what the index squares alone say."""
    out: Counter = Counter()
    for p, n in counts.items():
        if not p.kind.startswith("token"):
            out[str(p.owner)] += n
    return out


def test_the_great_wall_layout_is_a_card_layout_and_the_fan_keeps_every_index_visible(layout) -> None:
    assert is_card_layout(layout) and not is_card_layout(load_layout("china-a"))
    row = card_row(layout, "section-1")
    assert row is not None and row.card_w == 57 and row.card_h == 88
    content = Counter({Piece(B, "wall"): 31})  # the most cards seen in a section in random 5-player games
    placed = [p for p in place_row(layout, "section-1", content, np.random.default_rng(1)) if p.piece.kind == "wall"]
    xs = sorted(p.x for p in placed)
    assert len(xs) == 31 and min(np.diff(xs)) > INDEX_X[1] + 1.0  # each card's index strip shows
    assert max(xs) + row.card_w / 2 <= row.x1 + 2.0  # and the row holds them
    dragon = place_row(layout, "section-1", Counter({Piece(B, "wall"): 1, Piece(R, "dragon"): 1}), np.random.default_rng(2))
    d = next(p for p in dragon if p.piece.kind == "dragon")
    w = next(p for p in dragon if p.piece.kind == "wall")
    assert abs(d.angle - 90) < 5 and abs(d.x - w.x) < 3 and d.y > w.y  # across the lower part of the card it covers


def test_rendered_sections_are_read_cards_by_owner_and_kind_and_tokens_by_value(layout) -> None:
    b = board()
    r = render(layout, b, Conditions(size=(1280, 720), fill=0.9, seed=11))
    det = reader_for_layout(layout, None).read(r.image)
    assert isinstance(reader_for_layout(layout, None), CardReader)
    got = {s.space: Counter(dict(s.pieces)) for s in det.spaces}
    for sid in ("section-1", "section-2", "section-3"):
        want = Counter(dict(b.pieces(sid)))
        assert owners(got[sid]) == owners(want), sid
        assert got[sid] == want, sid
    assert not got["section-4"]


def test_a_hand_over_a_section_gives_no_reading_through_it(layout) -> None:
    b = board()
    centre = layout.space("section-2").centre
    r = render(layout, b, Conditions(size=(1280, 720), fill=0.9, seed=12, hand=Hand((centre[0] + 60, centre[1]), 0.0, 60.0)))
    assert "section-2" in r.truth.occluded
    det = CardReader(layout).read(r.image)
    by_id = {s.space: s for s in det.spaces}
    assert by_id["section-2"].occluded and not by_id["section-2"].pieces
    for sid in r.truth.occluded:
        assert by_id[sid].occluded, f"{sid} read through the hand"


def test_enrolment_learns_the_deck_colours_panels_and_token_faces_from_one_photo(layout) -> None:
    c = Conditions(size=(1280, 720), fill=0.88, seed=21, tilt_deg=8.0, tilt_azimuth_deg=40.0)
    empty = render(layout, Board(), c).image
    plan = Board.from_counts(enrol_board(layout))
    model = card_model_from_photos(layout, empty, render(layout, plan, c).image, plan)
    assert model.enrolled
    kinds = {k.split(":", 1)[1] for k in model.faces if not k.endswith(DETAIL)}
    assert kinds == set(layout.pieces)  # every card kind's panel and every token's face (and, where the photo
    # is fine enough, the tokens' faces for the detail still: vision.card_detail)
    assert set(layout.players) <= set(model.colours)
    b = board()
    det = CardReader(layout, model).read(render(layout, b, Conditions(size=(1280, 720), fill=0.88, seed=22, tilt_deg=8.0,
                                                                       tilt_azimuth_deg=40.0)).image)
    got = {s.space: Counter(dict(s.pieces)) for s in det.spaces}
    for sid in ("section-1", "section-2", "section-3"):
        assert owners(got[sid]) == owners(Counter(dict(b.pieces(sid)))), sid


def test_a_frame_brighter_than_the_enrolment_is_read_not_taken_for_a_hand(layout) -> None:
    """The sections' white clips in a bright frame: the light correction's one white balance then
    tints the coloured mat around them, which was foreground everywhere (every section flagged);
    ``CardReader`` balances that margin on its own."""
    from dataclasses import replace

    c = Conditions(size=(1280, 720), fill=0.85, seed=41, tilt_deg=8.0, tilt_azimuth_deg=40.0, brightness=1.25,
                   noise_sigma=2.0, jpeg_quality=85)
    plan = Board.from_counts(enrol_board(layout))
    model = card_model_from_photos(layout, render(layout, Board(), c).image, render(layout, plan, replace(c, seed=42)).image,
                                   plan)
    b = board()
    det = CardReader(layout, model).read(render(layout, b, replace(c, seed=43, brightness=1.35)).image)
    assert not [s.space for s in det.spaces if s.occluded]
    got = {s.space: Counter(dict(s.pieces)) for s in det.spaces}
    for sid in ("section-1", "section-2", "section-3"):
        assert got[sid] == Counter(dict(b.pieces(sid))), sid
