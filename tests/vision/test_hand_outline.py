"""The hand test against the hand's true outline (``vision.hand_outline``).

False occlusion flags and readings through a hand are counted per space; where they start from is
the hand the reader outlines, pixel by pixel. The photoreal renderer draws each frame's scene again
without rendering (``render_set.py --hand-masks-only``) and writes the hand as the frame shows it
(``hands/<stem>.png``); ``tableref vision eval`` then reports how much of the true hand the reader
missed and how much it took for a hand beyond it. One kept photoreal frame (China seed 31 t04, a
dark hand in a blue sleeve) holds its outline here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.hand_outline import HandOutline, outline_score, summarise_outlines

ROOT = Path(__file__).resolve().parents[2]
KEPT = Path(__file__).with_name("photoreal-china31-t04")


def _eval(set_dir: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "tableref", "vision", "eval", "--board", "china-a", "--reader", "learned",
                          "--set", str(set_dir), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_missed_hand_and_what_was_taken_beyond_it_in_mm2():
    true = np.zeros((100, 200), bool)
    true[20:60, 20:100] = True  # 40 x 80 px at 2 px/mm: 800 mm^2
    read = np.zeros_like(true)
    read[20:60, 40:110] = True  # misses 20 columns of it (200 mm^2), reaches 10 px past it (within 5 mm)
    read[80:90, 150:190] = True  # a shadow far away: 400 px = 100 mm^2
    o = outline_score(true, read, 2.0)
    assert o.hand_mm2 == pytest.approx(800.0)
    assert o.missed_mm2 == pytest.approx(200.0)
    assert o.beyond_mm2 == pytest.approx(100.0)


def test_masks_of_different_boards_are_refused():
    with pytest.raises(ValueError, match="different sizes"):
        outline_score(np.zeros((10, 10), bool), np.zeros((10, 12), bool), 1.0)


def test_a_set_summary_counts_hands_read_where_there_was_none():
    s = summarise_outlines([HandOutline(1000.0, 50.0, 300.0), HandOutline(0.0, 0.0, 120.0), HandOutline(0.0, 0.0, 0.0)])
    assert s["frames"] == 3 and s["frames_with_hand"] == 1
    assert s["missed_percent"] == pytest.approx(5.0)
    assert s["beyond_mm2"] == pytest.approx(420.0) and s["beyond_mm2_per_hand_frame"] == pytest.approx(300.0)
    assert s["frames_without_hand_with_one_read"] == 1
    assert summarise_outlines([]) is None


def test_the_photoreal_scene_drawn_again_gives_the_kept_frames_hand(tmp_path):
    """No Blender needed: the scenes are drawn from the set's seed, and the truth drawn again must be
    the truth file's (else the hand is another one and no mask is written)."""
    out = tmp_path / "set"
    shutil.copytree(KEPT, out / "tune", ignore=shutil.ignore_patterns("hands"))
    run = subprocess.run([sys.executable, str(ROOT / "tools/photoreal/render_set.py"), "--layout",
                          str(ROOT / "vision/layouts/china-a.json"), "--out", str(out), "--seed", "31", "--tables", "6",
                          "--tune-tables", "6", "--frames-per-table", "5", "--only-tables", "4", "--hand-masks-only"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "truth differs in 0 frames" in run.stdout + run.stderr
    drawn = cv2.imread(str(out / "tune/hands/t04-003.png"), cv2.IMREAD_GRAYSCALE)
    kept = cv2.imread(str(KEPT / "hands/t04-003.png"), cv2.IMREAD_GRAYSCALE)
    assert drawn is not None and np.array_equal(drawn > 0, kept > 0)
    assert (kept > 0).mean() > 0.05  # an arm across the frame


def test_a_scene_drawn_differently_writes_no_mask(tmp_path):
    out = tmp_path / "set"
    shutil.copytree(KEPT, out / "tune", ignore=shutil.ignore_patterns("hands"))
    truth = out / "tune/truth/t04-003.json"
    data = json.loads(truth.read_text())
    data["occluded"] = data["occluded"][1:]  # not the hand this seed draws
    truth.write_text(json.dumps(data))
    run = subprocess.run([sys.executable, str(ROOT / "tools/photoreal/render_set.py"), "--layout",
                          str(ROOT / "vision/layouts/china-a.json"), "--out", str(out), "--seed", "31", "--tables", "6",
                          "--tune-tables", "6", "--frames-per-table", "5", "--only-tables", "4", "--hand-masks-only"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    assert "t04-003 (hand differs)" in run.stdout + run.stderr
    assert not (out / "tune/hands/t04-003.png").exists()


def test_eval_reports_the_hand_outline_where_the_set_has_one(tmp_path):
    m = _eval(KEPT)
    ho = m["hand_outline"]
    assert ho["frames"] == 1 and ho["frames_with_hand"] == 1
    assert ho["hand_mm2"] > 10000  # the arm over the board (~635 cm^2)
    assert ho["missed_percent"] < 10.0  # the hand test covers nearly all of it (1.9 % when written)
    assert m["per_frame"][0]["hand_outline"]["hand_mm2"] == ho["hand_mm2"]
    plain = tmp_path / "plain"
    shutil.copytree(KEPT, plain, ignore=shutil.ignore_patterns("hands"))
    m2 = _eval(plain)
    assert "hand_outline" not in m2 and "hand_outline" not in m2["per_frame"][0]
    assert m2["per_space"] == m["per_space"]  # the outline is measured, it changes no reading


def test_the_projects_renderer_writes_each_frames_hand(tmp_path):
    from vision.layout import load_layout
    from vision.render_set import render_set

    render_set(load_layout("china-a"), tmp_path, 4, seed=7601, hands=1.0, tables=1)
    for truth in sorted((tmp_path / "truth").glob("*.json")):
        hand = cv2.imread(str(tmp_path / "hands" / f"{truth.stem}.png"), cv2.IMREAD_GRAYSCALE)
        assert hand is not None and hand.shape == (720, 1280)
        # a hand covers spaces where the truth says so (one drawn beside the board covers none)
        if json.loads(truth.read_text()).get("occluded"):
            assert (hand > 0).sum() > 1000
