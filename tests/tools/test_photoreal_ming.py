"""tools/photoreal/ming.py (the independent renderer's Ming Dynasty module) without Blender:
positions obey the layout's holds and the rules' capacities, name only the layout's owners and
kinds, pieces lie inside their spaces without interpenetrating, enrolment puts one piece of each
type alone on its own space, the artwork prints the corner markers, and the module shares no code
with the project."""

from __future__ import annotations

import ast
import importlib
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
PHOTOREAL = ROOT / "tools" / "photoreal"
LAYOUT = ROOT / "vision" / "layouts" / "ming-provisional.json"
PROJECT_PACKAGES = {"vision", "scorer", "tableref", "hardware", "web"}


@pytest.fixture(scope="module")
def mods():
    sys.path.insert(0, str(PHOTOREAL))
    try:
        ming = importlib.import_module("ming")
        layout_io = importlib.import_module("layout_io")
    finally:
        sys.path.remove(str(PHOTOREAL))
    return ming, layout_io.Layout(str(LAYOUT))


@pytest.fixture(scope="module")
def style(mods):
    ming, layout = mods
    return ming.table_piece_style(layout, np.random.default_rng(5), 1)


def _positions(mods, style, n=12):
    ming, layout = mods
    rng = np.random.default_rng([1, 2, 3])
    return [ming.game_position(rng, layout, style) for _ in range(n)]


def test_layout_is_recognised(mods):
    ming, layout = mods
    assert ming.is_ming(layout)
    assert ming.family_kind(layout) == "family" and ming.prince_kind(layout) == "prince"


def test_game_truth_obeys_holds_capacities_and_names(mods, style):
    _, layout = mods
    owners, kinds = set(layout.players), set(layout.pieces)
    holds = layout.raw["holds"]
    seen_kinds = Counter()
    for pieces, truth in _positions(mods, style):
        princes = Counter()
        for sid, toks in truth.items():
            assert sid in layout.space_by_id, sid
            sk = layout.space_by_id[sid]["kind"]
            c = Counter()
            for tok in toks:
                owner, _, kind = tok.partition(":")
                assert owner in owners and kind in kinds, tok
                assert kind in holds[sk], (sid, tok)
                c[kind] += 1
                seen_kinds[sk, kind] += 1
                if kind == "prince":
                    princes[owner] += 1
            if sk == "cloister":
                assert c["family"] <= 1, (sid, toks)
            if sk == "city":
                assert c["family"] <= 3, (sid, toks)
            assert c["prince"] <= 1, (sid, toks)          # no two princes in one district
        assert all(n == 1 for n in princes.values())      # one prince per owner
        # truth = the pieces placed, space by space
        placed = Counter((p["space"], f"{p['owner']}:{p['kind']}") for p in pieces)
        assert placed == Counter((sid, t) for sid, toks in truth.items() for t in toks)
        assert all(toks for toks in truth.values())
        # each player has at most 30 family members out of the box (rules: 31, one on the score track)
        fam = Counter(p["owner"] for p in pieces if p["kind"] == "family")
        assert all(n <= 30 for n in fam.values())
    # the positions use every kind of space
    for sk, kind in [("district", "family"), ("district", "prince"), ("cloister", "family"),
                     ("city", "family"), ("province-space", "family")]:
        assert seen_kinds[sk, kind] > 0, (sk, kind)


def test_pieces_inside_their_space_and_apart(mods, style):
    ming, layout = mods
    for pieces, _ in _positions(mods, style, 6):
        by_space = {}
        for p in pieces:
            fp = ming.footprint(layout, style, p["kind"], p["x_mm"], p["y_mm"], p["rot"], p["scale"])
            assert ming.fits(layout, p["space"], fp, 0.0), p
            by_space.setdefault(p["space"], []).append(fp)
        for fps in by_space.values():
            for i in range(len(fps)):
                for j in range(i + 1, len(fps)):
                    assert not ming._overlap(fps[i], fps[j], gap=0.0)


def test_enrolment_one_piece_of_each_type_alone(mods, style):
    ming, layout = mods
    pieces, truth = ming.enrol_position(np.random.default_rng(9), layout, style)
    assert all(len(toks) == 1 for toks in truth.values())
    types = sorted(t for toks in truth.values() for t in toks)
    assert types == sorted(f"{o}:{k}" for o in layout.players for k in layout.pieces)
    assert len(pieces) == len(truth) == len(layout.players) * len(layout.pieces)
    for sid, (tok,) in truth.items():
        assert tok.split(":")[1] in layout.raw["holds"][layout.space_by_id[sid]["kind"]]


def test_artwork_prints_the_corner_markers(mods):
    ming, layout = mods
    import cv2

    img = ming.make_artwork(layout, np.random.default_rng(2), ppm=2)
    assert img.shape == (int(layout.H * 2), int(layout.W * 2), 3)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11))
    _, ids, _ = det.detectMarkers(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]


def test_shares_no_code_with_the_project():
    for name in ("ming.py", "render_set.py", "overlay.py"):
        tree = ast.parse((PHOTOREAL / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not roots & PROJECT_PACKAGES, (name, roots)
            assert name != "ming.py" or "bpy" not in roots   # ming.py is imported here without Blender
