"""Whether a table's token faces, as enrolled at the camera's scale, tell token values apart at all
(``vision.card_tokens.values_legible``): printed digits a few pixels high do not, and then no value
read in the watched frame is sure (only one read on a detail still can be): the margin rule alone,
picking among near-equal correlations, read four photoreal tokens' values wrong and sure."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np

from scorer.core.types import Board
from vision.card_enrol import card_model_from_photos, faces_of
from vision.card_reader import CardReader
from vision.card_tokens import values_legible
from vision.eval_set import load_truth, read_image
from vision.faces import from_token
from vision.layout import load_layout

PHOTOREAL_TUNE = Path(__file__).resolve().parents[2] / "evalsets" / "photoreal-great-wall" / "tune"


def _digit_faces(side: int) -> dict[str, np.ndarray]:
    """Cardboard tokens with a dark printed digit, ``side`` px square (a 18 mm face at side/18 px per mm)."""
    out = {}
    for v in "13478":
        f = np.full((72, 72, 3), (90, 180, 214), np.uint8)
        cv2.putText(f, v, (14, 60), cv2.FONT_HERSHEY_SIMPLEX, 2.2, (40, 40, 40), 7, cv2.LINE_AA)
        out[f"neutral:token-{v}"] = cv2.resize(f, (side, side), interpolation=cv2.INTER_AREA)
    return out


def test_sharp_digits_are_legible_and_the_same_digits_a_few_pixels_high_are_not() -> None:
    assert values_legible(_digit_faces(36))
    blurred = {k: cv2.resize(cv2.resize(f, (8, 8), interpolation=cv2.INTER_AREA), (18, 18)) for k, f in _digit_faces(72).items()}
    assert not values_legible(blurred)


def test_a_photoreal_table_at_1280_cannot_read_token_values_in_the_watched_frame() -> None:
    """The committed photoreal tune split's first table, enrolled from its own photos: its tokens'
    printed digits at ~0.5 px/mm are not legible, so the reader never calls a watched-frame value sure."""
    layout = load_layout("great-wall")
    tdir = PHOTOREAL_TUNE / "tables" / "t00"
    board: Board = load_truth(tdir / "enrol.json", layout).board()
    model = card_model_from_photos(layout, read_image(tdir / "empty.jpg"), read_image(tdir / "enrol.jpg"), board)
    tokens = {k: f for k, f in faces_of(model, layout).items()
              if str(from_token(k).owner) == "neutral" and from_token(k).kind.startswith("token-")}
    assert len(tokens) >= 5 and not values_legible(tokens)
    assert not CardReader(layout, model).token_finder.legible


def test_the_enrolment_says_what_the_camera_cannot_read_at_this_distance() -> None:
    """The photoreal table at 1280 is told, in the players' languages, that token values will come
    from the game; a table whose faces tell values apart, or that has detail stills' faces, is not."""
    from tableref.camera_enrolment import model_summary
    from vision.card_detail import DETAIL
    from vision.readability import cannot_read

    layout = load_layout("great-wall")
    tdir = PHOTOREAL_TUNE / "tables" / "t00"
    board: Board = load_truth(tdir / "enrol.json", layout).board()
    model = card_model_from_photos(layout, read_image(tdir / "empty.jpg"), read_image(tdir / "enrol.jpg"), board)
    said = model_summary(model, layout)["cannot_read"]
    assert [m["en"] for m in said] == [cannot_read(layout, model)[0].get("en")]
    assert "detail_width" in said[0]["en"] and said[0]["zh"] and said[0]["zh-Hant"]
    legible = dataclasses.replace(model, faces={**model.faces, **{k: _digit_faces(36)[k] for k in _digit_faces(36)}})
    legible = dataclasses.replace(legible, faces={k: f for k, f in legible.faces.items()
                                                  if not (k.startswith("neutral:token-") and k not in _digit_faces(36))})
    assert cannot_read(layout, legible) == []
    stills = dataclasses.replace(model, faces={**model.faces, f"neutral:token-5{DETAIL}": model.faces["neutral:token-5"]})
    assert cannot_read(layout, stills) == []
