"""Training data for the learned per-space classifier (``vision.space_classifier``): labelled
space crops, cut by the reader's own pipeline (registration, rectification, light correction,
``vision.space_crops``) from

* **randomised renders** of the project's renderer (``vision.render``): per table its own camera
  pose and lamp, lens distortion (k1 -0.08..0.05) and tone curve (gamma 0.8-1.25), its own board
  artwork (paper, tints, space fills, scribbles), piece colours (hue +-12 deg, saturation and
  value x0.7-1.3) and piece sizes (each dimension x0.75-1.25), its own enrolment photos; per
  frame the issue's ranges (``vision.render_set.conditions``) plus glare spots (30 %) and motion
  blur (15 %);
* a **frame set** on disk in the evaluation format (docs/vision-eval.md): its frames and each
  table's enrolment photo. Only ever the photoreal *tuning* split: the held-out split is never
  read here (``load_frame_set`` refuses a set whose set.json says ``"split": "heldout"``).

Crops of spaces the truth marks occluded or partly occluded are left out. No torch here.
"""

from __future__ import annotations

import colorsys
import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from scorer.core.types import Board
from vision.enrolment import model_from_photos, placed_from_board
from vision.errors import CalibrationError, NotRegistered
from vision.evaluate import FrameTruth, _image_in, load_set, load_truth, read_image
from vision.layout import Layout
from vision.render import TEXTURE_PX_PER_MM, board_texture, random_board, render
from vision.render_set import conditions, draw_pose, enrol_board, perturb, render_fitting
from vision.scenes import game_position
from vision.space_classifier import Head
from vision.space_crops import CropSpec, crops_by_kind, evidence_map
from vision.table_reader import TableReader

DARK_NEUTRAL = 100  # a neutral piece kind whose nominal colour has no channel above this is dark (China's fortress)
Samples = dict[str, tuple[list[np.ndarray], list[np.ndarray]]]  # space kind -> (crops, targets)


def new_samples(heads: dict[str, Head]) -> Samples:
    return {k: ([], []) for k in heads}


def add_frame(samples: Samples, reader: TableReader, frame: np.ndarray, truth: FrameTruth,
              heads: dict[str, Head], specs: dict[str, CropSpec], weight_tag: int = 0,
              keep_empty: float = 1.0, rng: np.random.Generator | None = None) -> int:
    """Cut and label the crops of every visible space of one frame (stored as uint8, x255);
    returns how many. ``keep_empty``: the share of empty spaces kept (they are the easy many)."""
    reg, corrected, maps = reader.board_view(frame)
    reader.reset()
    if corrected is None or maps is None:
        return 0
    hidden = truth.occluded | truth.partly_occluded
    idx = [i for i, sp in enumerate(reader.layout.spaces) if sp.id not in hidden and sp.kind in heads]
    n = 0
    for kind, (ids, blob) in crops_by_kind(reader.layout.spaces, idx, specs, corrected, reader.model.reference,
                                           maps.lab, evidence_map(maps), reader.colours, reader.s).items():
        for i, crop in zip(ids, blob):
            pieces = [p for p, c in truth.content(reader.layout.spaces[i].id).items() for _ in range(c)]
            y = heads[kind].target(pieces)
            if y is None or (not pieces and keep_empty < 1.0 and rng is not None and rng.random() > keep_empty):
                continue
            samples[kind][0].append(np.round(crop * 255.0).astype(np.uint8))
            samples[kind][1].append(np.concatenate([y, [weight_tag]]).astype(np.int64))
            n += 1
    return n


# ------------------------------------------------------------------ randomised renders
def _jitter_rgb(rgb, rng: np.random.Generator, hue_deg: float = 12.0, sv: tuple[float, float] = (0.7, 1.3)):
    h, s, v = colorsys.rgb_to_hsv(*(np.asarray(rgb, float) / 255.0))
    h = (h + rng.uniform(-hue_deg, hue_deg) / 360.0) % 1.0
    s = float(np.clip(s * rng.uniform(*sv), 0, 1))
    v = float(np.clip(v * rng.uniform(*sv), 0.05, 1))
    return tuple(int(round(c * 255)) for c in colorsys.hsv_to_rgb(h, s, v))


def randomised_layout(layout: Layout, rng: np.random.Generator) -> Layout:
    """The same spaces with another copy of the game: piece colours and sizes, paper and tints."""
    players = {k: _jitter_rgb(v, rng) for k, v in layout.players.items()}
    pieces = {}
    for k, spec in layout.pieces.items():
        size = tuple(float(v * rng.uniform(0.75, 1.25)) for v in spec.size)
        rgb = spec.rgb
        if spec.neutral and rgb and max(rgb) <= DARK_NEUTRAL:  # a dark neutral piece (China's fortress): any dark grey
            g = rng.uniform(15, 70)
            rgb = tuple(int(np.clip(g + rng.normal(0, 6), 0, 255)) for _ in range(3))
        elif spec.neutral and rgb:  # a coloured one (Cheops' scarabs) is told by its colour: jittered as a player's
            rgb = _jitter_rgb(rgb, rng)
        pieces[k] = dataclasses.replace(spec, size=size, height=float(spec.height * rng.uniform(0.75, 1.25)), rgb=rgb)
    paper = _jitter_rgb((226, 214, 184), rng, 40.0, (0.3, 1.4))
    paper = tuple(int(max(120, c)) for c in paper)
    mode = rng.integers(3)
    regions = []
    for r in layout.regions:
        r = dict(r)
        if mode == 0 and r.get("tint_rgb"):
            r["tint_rgb"] = list(_jitter_rgb(r["tint_rgb"], rng, 20.0, (0.6, 1.4)))
        elif mode == 1:
            r["tint_rgb"] = list(_jitter_rgb((rng.integers(150, 250), rng.integers(150, 250), rng.integers(150, 250)),
                                             rng, 180.0, (0.3, 1.0)))
        else:
            r.pop("tint_rgb", None)
        regions.append(r)
    return dataclasses.replace(layout, players=players, pieces=pieces, background_rgb=paper, regions=tuple(regions))


def randomised_texture(layout: Layout, rng: np.random.Generator) -> np.ndarray:
    """The layout's artwork redrawn: its own space fills and rings, and ink scribbles and glyphs
    between the spaces (a real board's art is busier than the renderer's)."""
    tex = board_texture(layout)
    s = TEXTURE_PX_PER_MM
    keep = np.zeros(tex.shape[:2], np.uint8)  # markers and their quiet zones stay as printed
    for m in layout.markers:
        h = layout.marker_size * 0.75
        cv2.rectangle(keep, (int((m.centre[0] - h) * s), int((m.centre[1] - h) * s)),
                      (int((m.centre[0] + h) * s), int((m.centre[1] + h) * s)), 1, -1)
    ink = tex.copy()
    for _ in range(int(rng.integers(0, 160))):
        colour = tuple(int(v) for v in rng.integers(20, 200, 3))
        p = rng.uniform([0, 0], layout.size) * s
        if rng.random() < 0.5:
            q = p + rng.normal(0, 40, 2) * s
            cv2.line(ink, tuple(int(v) for v in p), tuple(int(v) for v in q), colour, int(rng.integers(1, 4)), cv2.LINE_AA)
        else:
            cv2.putText(ink, "".join(chr(int(c)) for c in rng.integers(65, 90, int(rng.integers(1, 6)))),
                        tuple(int(v) for v in p), cv2.FONT_HERSHEY_SIMPLEX, float(rng.uniform(0.4, 1.6)), colour,
                        int(rng.integers(1, 3)), cv2.LINE_AA)
    site_fill = tuple(int(v) for v in rng.integers(150, 256, 3))
    dragon_fill = tuple(int(v) for v in rng.integers(120, 256, 3))
    ring = tuple(int(v) for v in rng.integers(0, 140, 3))
    filled = rng.random() < 0.7
    for sp in layout.spaces:
        poly = (np.asarray(sp.polygon) * s * 16).astype(np.int32)
        if filled:
            cv2.fillPoly(ink, [poly], dragon_fill if sp.kind == "dragon" else site_fill, cv2.LINE_AA, 4)
        cv2.polylines(ink, [poly], True, ring, int(rng.integers(1, 5)), cv2.LINE_AA, 4)
    tex = np.where(keep[..., None] > 0, tex, ink)
    grain = cv2.GaussianBlur(rng.normal(0, rng.uniform(0, 8), tex.shape[:2]).astype(np.float32), (0, 0), 1.5)
    return np.clip(tex.astype(np.float32) + grain[..., None], 0, 255).astype(np.uint8)


def _lens(img: np.ndarray, k1: float) -> np.ndarray:
    """Radial distortion (the renderer's camera is an ideal pinhole; real lenses bend lines)."""
    h, w = img.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    f = float(w)
    x, y = (xs - w / 2) / f, (ys - h / 2) / f
    r2 = x * x + y * y
    scale = 1 + k1 * r2
    return cv2.remap(img, x * scale * f + w / 2, y * scale * f + h / 2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def camera_effects(img: np.ndarray, rng: np.random.Generator, k1: float, gamma: float, calm: bool) -> np.ndarray:
    """What the renderer leaves out (``vision.render_set``'s list): lens distortion, a camera's
    tone curve, and per frame glare spots and motion blur (15 % of frames, 3-15 px)."""
    out = _lens(img, k1) if abs(k1) > 1e-4 else img
    f = out.astype(np.float32) / 255.0
    f = f ** gamma
    if not calm and rng.random() < 0.3:  # a glare spot
        h, w = f.shape[:2]
        spot = np.zeros((h, w), np.float32)
        cv2.circle(spot, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), int(rng.uniform(8, 50)), 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(5, 30)))
        f = f + spot[..., None] * float(rng.uniform(0.2, 0.6))
    out = np.clip(f * 255.0, 0, 255).astype(np.uint8)
    if not calm and rng.random() < 0.15:  # motion blur
        n = int(rng.integers(3, 16))
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, rot, (n, n))
        out = cv2.filter2D(out, -1, k / max(1e-6, k.sum()))
    return out


def _jpeg(img: np.ndarray, q: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(q)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _truth(board: Board, occluded=frozenset()) -> FrameTruth:
    return FrameTruth({s: Counter(board.pieces(s)) for s in board.as_dict() if board.pieces(s)}, frozenset(occluded))


def rendered_tables(layout: Layout, tables: int, frames_per_table: int, seed: int, hands: float = 0.3,
                    positions: str = "layout") -> Iterator[tuple[str, TableReader | None, list[tuple[np.ndarray, FrameTruth]]]]:
    """Per randomised table: its id, a reader enrolled from its two photos (None when they could
    not be registered) and its frames with truth (the enrolment photo first). ``positions``: the
    boards from the layout's holds (``layout``), from random games of its game (``game``: a Ming
    province space with a dozen family members), or each frame either way (``mix``)."""
    for t in range(tables):
        rng = np.random.default_rng([seed, t])
        lay = randomised_layout(layout, rng)
        tex = randomised_texture(lay, rng)
        pose = draw_pose(rng)
        k1, gamma = float(rng.uniform(-0.08, 0.05)), float(rng.uniform(0.8, 1.25))
        c, q = conditions(lay, pose, rng, 0.0, calm=True)
        empty = _jpeg(camera_effects(render(lay, Board(), c, texture=tex).image, rng, k1, gamma, True), q)
        eboard = enrol_board(lay, rng)
        enrol = _jpeg(camera_effects(render(lay, eboard, c, texture=tex).image, rng, k1, gamma, True), q)
        try:
            model = model_from_photos(lay, empty, enrol, placed_from_board(eboard))
        except (NotRegistered, CalibrationError):
            yield f"r{t}", None, []
            continue
        frames = [(enrol, _truth(eboard))]
        for _ in range(frames_per_table):
            c, q = conditions(lay, perturb(pose, rng), rng, hands)
            def draw() -> Board:
                if positions == "game" or (positions == "mix" and rng.random() < 0.5):
                    return game_position(lay, rng)
                return random_board(lay, rng, occupancy=float(rng.uniform(0.3, 0.8)))

            r = render_fitting(lay, draw, c, texture=tex)
            frames.append((_jpeg(camera_effects(r.image, rng, k1, gamma, False), q), _truth(r.truth.board, r.truth.occluded)))
        yield f"r{t}", TableReader(lay, model, classifier=None), frames  # crops only: no classifier


# ------------------------------------------------------------------ a frame set on disk
def load_frame_set(root: str | Path, layout: Layout, tables: set[str] | None = None
                   ) -> Iterator[tuple[str, TableReader | None, list[tuple[np.ndarray, FrameTruth]]]]:
    """Per table of a set: a reader enrolled from its photos, and its enrolment photo and frames
    with truth (``tables``: only these). A held-out split is refused."""
    root = Path(root)
    info = json.loads((root / "set.json").read_text("utf-8")) if (root / "set.json").is_file() else {}
    if info.get("split") == "heldout" or "heldout" in root.parts:
        raise SystemExit(f"{root} is a held-out split: it is never used for training")
    fs = load_set(root, layout)
    by_table: dict[str, list] = {}
    for f in fs.frames:
        if f.truth.table and (tables is None or f.truth.table in tables):
            by_table.setdefault(f.truth.table, []).append(f)
    for t, frames in sorted(by_table.items()):
        tdir = root / "tables" / t
        empty, enrol = _image_in(tdir, "empty"), _image_in(tdir, "enrol")
        if empty is None or enrol is None:
            yield t, None, []
            continue
        etruth = load_truth(tdir / "enrol.json", layout)
        try:
            model = model_from_photos(layout, read_image(empty), read_image(enrol), placed_from_board(etruth.board()))
        except (NotRegistered, CalibrationError):
            yield t, None, []
            continue
        yield t, TableReader(layout, model, classifier=None), [(read_image(enrol), etruth)] + [(read_image(f.image), f.truth) for f in frames]


def collect(source: Iterator, heads: dict[str, Head], specs: dict[str, CropSpec], tag: int,
            log: Callable[[str], None] = print, keep_empty: float = 1.0, seed: int = 0) -> dict[str, Samples]:
    """Per table id: its samples (each target row ends with ``tag``, the source)."""
    out: dict[str, Samples] = {}
    rng = np.random.default_rng(seed)
    for tid, reader, frames in source:
        s = new_samples(heads)
        n = sum(add_frame(s, reader, img, truth, heads, specs, tag, keep_empty, rng) for img, truth in frames) \
            if reader else 0
        out[tid] = s
        log(f"table {tid}: {len(frames)} frames, {n} crops" + ("" if reader else " (not enrolled: skipped)"))
    return out


def stack(parts: list[Samples], kind: str) -> tuple[np.ndarray, np.ndarray]:
    xs = [x for p in parts for x in p[kind][0]]
    ys = [y for p in parts for y in p[kind][1]]
    if not xs:
        return np.zeros((0,), np.uint8), np.zeros((0,), np.int64)
    return np.stack(xs), np.stack(ys)


