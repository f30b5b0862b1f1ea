"""The learned die reader (vision.dice_classifier, vision.dice ``reader="learned"``): the committed
model loads and reads rendered dice, alone too; a damaged or missing model is an error naming the
file, or, for the committed one, a logged fallback to the pip fits; the network's say is combined
with the pip fits' as documented; a hand over the die is still no reading."""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import replace

import numpy as np
import pytest

import vision.dice_classifier as dc
from vision.dice import DiceReader, DiceState, DieRead, dice_space
from vision.dice_classifier import DEFAULT_MODEL, DiceClassifier, DiceClassifierError, DieGuess, combine
from vision.layout import load_layout
from vision.render import Conditions, Hand

from tests.vision.test_dice import roll

# a detail camera: the die's face about 17 frame pixels wide
DETAIL = Conditions(size=(2560, 1440), fill=0.8, tilt_deg=18.0, tilt_azimuth_deg=150.0, noise_sigma=3.0,
                    blur_sigma=0.8, jpeg_quality=85, seed=7)


@pytest.fixture(scope="module")
def layout():
    return load_layout("zhang-yi-sample")


@pytest.fixture(scope="module")
def model():
    return DiceClassifier.load()


def test_the_committed_model_loads_and_is_small(model):
    assert model.meta["format"] == dc.FORMAT
    assert 0.5 < model.min_probability <= 1.0
    size = sum(p.stat().st_size for p in DEFAULT_MODEL.iterdir())
    assert size < 1_000_000


@pytest.mark.parametrize("value,at", [(1, (600.0, 602.0, 17.0)), (2, (630.0, 590.0, 40.0)), (3, (585.0, 610.0, 75.0)),
                                      (4, (640.0, 600.0, 5.0)), (5, (600.0, 585.0, 62.0)), (6, (575.0, 596.0, 30.0))])
def test_the_network_alone_reads_rendered_dice(layout, model, value, at):
    """The network's own say on its crop of the reader's view (no pip fit involved)."""
    img, H = roll(layout, value, replace(DETAIL, seed=50 + value), at)
    reader = DiceReader(layout, reader="learned", classifier=model)
    found = reader.find(img, H)
    assert isinstance(found, tuple), found
    pose, det, blobs, res, _ = found
    assert len(blobs) == 1
    guess = model.guess(reader.crop(img, pose, det, blobs[0]))
    assert guess.value == value, guess
    assert guess.probability >= model.min_probability


def test_the_learned_reader_reads_when_the_pip_fits_cannot(layout, model, monkeypatch):
    """With the pip fits giving nothing, the value comes from the network."""
    img, H = roll(layout, 5, replace(DETAIL, seed=61), (610.0, 596.0, 22.0))
    reader = DiceReader(layout, reader="learned", classifier=model)
    monkeypatch.setattr(reader, "_read_die", lambda *a, **k: DieRead(None, 0.0, (610.0, 596.0), 0.0, 16.0))
    got = reader.read(img, H)
    assert got.state == DiceState.READ and got.values == (5,), got
    assert reader.last_dice[0]["classical"] is None
    assert got.dice[0].confidence >= model.min_probability


def test_a_hand_over_the_die_is_still_no_reading(layout, model):
    tray = dice_space(layout)
    for seed, frm in ((41, 60.0), (42, 250.0)):
        c = replace(DETAIL, seed=seed, hand=Hand((tray.centre[0] + 10, tray.centre[1]), frm, 70.0))
        img, H = roll(layout, 6, c, (610.0, 600.0, 10.0))
        got = DiceReader(layout, reader="learned", classifier=model).read(img, H)
        assert got.state == DiceState.OCCLUDED and got.values == (), got


class _Model:
    min_probability = 0.99
    veto_probability = 0.9


def _guess(k: int, p: float) -> DieGuess:
    probs = [(1 - p) / 6] * 7
    probs[k] = p
    return DieGuess(k if k and p >= _Model.min_probability else None, p, tuple(probs))


def test_how_the_two_readers_are_combined():
    m = _Model()
    assert combine(3, 0.9995, _guess(3, 0.7), m) == (3, 0.9995)  # the pip fits' value stands
    assert combine(3, 0.9995, _guess(5, 0.8), m) == (3, 0.9995)  # ... unless the network is sure of another
    assert combine(3, 0.9995, _guess(5, 0.95), m)[0] is None
    assert combine(3, 0.9995, _guess(0, 0.95), m)[0] is None  # ... or sure there is no die to read
    assert combine(None, 0.2, _guess(4, 0.995), m) == (4, 0.995)  # the network alone when sure
    assert combine(None, 0.2, _guess(4, 0.98), m)[0] is None
    assert combine(None, 0.2, _guess(0, 0.999), m)[0] is None


def _copy(tmp_path):
    d = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL, d)
    return d


def test_a_damaged_network_is_an_error_naming_the_file(tmp_path):
    d = _copy(tmp_path)
    onnx = d / json.loads((d / "model.json").read_text())["onnx"]
    onnx.write_bytes(onnx.read_bytes()[: onnx.stat().st_size // 3])
    with pytest.raises(DiceClassifierError, match=str(onnx.name)):
        DiceClassifier.load(d)
    onnx.unlink()
    with pytest.raises(DiceClassifierError, match="missing.*" + onnx.name):
        DiceClassifier.load(d)


def test_a_damaged_description_is_an_error_naming_the_file(tmp_path):
    d = _copy(tmp_path)
    meta = json.loads((d / "model.json").read_text())
    (d / "model.json").write_text("{not json")
    with pytest.raises(DiceClassifierError, match="model.json"):
        DiceClassifier.load(d)
    (d / "model.json").write_text(json.dumps({**meta, "crop": {**meta["crop"], "px": 32}}))
    with pytest.raises(DiceClassifierError, match="other crops"):
        DiceClassifier.load(d)
    with pytest.raises(DiceClassifierError, match="no dice classifier model"):
        DiceClassifier.load(tmp_path / "nowhere")


def test_without_the_committed_model_the_reader_falls_back_and_says_so(layout, tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(dc, "DEFAULT_MODEL", tmp_path / "gone")
    monkeypatch.setattr(dc, "_committed", [])
    with caplog.at_level(logging.WARNING, logger="vision.dice_classifier"):
        reader = DiceReader(layout, reader="learned")
    assert reader.reader == "classical" and reader.classifier is None
    assert any("gone" in r.getMessage() and "pip fits alone" in r.getMessage() for r in caplog.records)
    with pytest.raises(ValueError, match="unknown dice reader"):
        DiceReader(layout, reader="guess")
    img, H = roll(layout, 4, replace(DETAIL, seed=62))
    assert reader.read(img, H).values in ((), (4,))  # the pip fits alone: a value only when sure
    assert np.all([d == {"classical": d["classical"]} for d in reader.last_dice])
