"""A frame set (docs/vision-eval.md) from the project's own renderer (``vision.render``), so that
its scores can be put side by side with those on independent sets (``tableref vision
render-set``).

Per table: one camera (field of view, pose); ``tables/<t>/empty.jpg`` (the empty board, calm: no
hand, no person's shadow, little blur and noise) and ``enrol.jpg`` / ``enrol.json``, taken right
after it under the same light: one piece of each type on its own space of a kind that holds it
(``enrol_board``: China's houses and the fortress on sites, each emissary on its own dragon
space; Ming's family members in cloisters, each prince in a district).
Frames of a table keep its pose with small perturbations (a camera knocked a little); pieces
(``vision.scenes``: from the layout, or positions of random games with ``positions="game"``),
light and image quality are drawn per frame:

=====================  ==========================================  =============================
quantity               range                                       how
=====================  ==========================================  =============================
camera tilt            0-35 deg off vertical, any direction        per table, +-1 deg per frame
yaw                    any (the board at any angle in the image)   per table, +-1 deg per frame
roll                   +-4 deg about the axis, from level          per table, +-0.5 deg per frame
horizontal FOV         50-75 deg                                   per table
board fill             50-95 % of the 1280x720 frame               per table, +-2 % per frame
Gaussian blur          sigma 0-2 px                                per frame
sensor noise           sigma 0-12 grey levels                      per frame
light gain             0.6-1.3, vignetting 0-0.4, uneven 0-0.3     per frame
colour cast            +-15 % per channel                          per frame
JPEG                   quality 40-95 (the file written)            per frame
hand and arm           in ``hands`` of the frames (default 0.3)    per frame
a person's shadow      as ``random_conditions`` draws it           per frame
=====================  ==========================================  =============================

What the renderer cannot model, so these sets never contain it: lens distortion (an ideal
pinhole), motion blur and rolling shutter, depth of field (blur is uniform), noise that depends
on brightness or comes out of a camera's processing (it adds the same Gaussian noise to every
channel and pixel), automatic exposure or white balance changing between frames, glare and
specular highlights, pieces off their spaces, worn or differently made pieces, cluttered
surroundings other than the plain table. Occlusion is all or nothing: a space is occluded when
the hand's silhouette touches it (its outline grown by 3 mm) or one of its pieces; the renderer
has no notion of a space touched only a little, so ``partly_occluded`` is never written. Every frame's
hand as drawn is written to ``hands/<stem>.png`` (all black without one), for the hand-outline figures of
``tableref vision eval`` (``vision.hand_outline``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.evaluate import truth_to_json
from vision.hand_outline import HANDS_DIR
from vision.layout import Layout
from vision.placement import PlacementError
from vision.render import Rendered, render
from vision.render_conditions import Conditions, random_conditions
from vision.scenes import random_position

SIZE = (1280, 720)
TILT = (0.0, 35.0)
ROLL = 4.0
FOV = (50.0, 75.0)
FILL = (0.50, 0.95)
BLUR = (0.0, 2.0)
NOISE = (0.0, 12.0)
GAIN = (0.6, 1.3)
CAST = 0.15
JPEG = (40, 95)


@dataclass(frozen=True)
class Pose:
    fov_deg: float
    fill: float
    tilt_deg: float
    yaw_deg: float
    roll_deg: float  # from level
    offset: tuple[float, float]


def level_roll(tilt_deg: float, yaw_deg: float) -> float:
    """``Conditions.roll_deg`` that makes a camera tilted ``tilt_deg`` towards ``yaw_deg`` level
    (its image x axis horizontal, the image's top towards where it looks). For a camera straight
    above, ``yaw_deg`` turns the board in the image."""
    t, a = math.radians(tilt_deg), math.radians(yaw_deg)
    f = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)])
    x_c = np.cross([0.0, 1.0, 0.0], f)
    x_c /= np.linalg.norm(x_c)
    y_c = np.cross(f, x_c)
    x_level = np.array([-math.sin(a), math.cos(a), 0.0])  # horizontal, perpendicular to f
    return math.degrees(math.atan2(float(x_level @ y_c), float(x_level @ x_c)))


def draw_pose(rng: np.random.Generator) -> Pose:
    return Pose(float(rng.uniform(*FOV)), float(rng.uniform(*FILL)), float(rng.uniform(*TILT)),
                float(rng.uniform(0, 360)), float(rng.uniform(-ROLL, ROLL)),
                (float(rng.uniform(-0.03, 0.03)), float(rng.uniform(-0.03, 0.03))))


def perturb(p: Pose, rng: np.random.Generator) -> Pose:
    return Pose(p.fov_deg, float(np.clip(p.fill + rng.uniform(-0.02, 0.02), *FILL)),
                float(np.clip(p.tilt_deg + rng.uniform(-1, 1), *TILT)), p.yaw_deg + float(rng.uniform(-1, 1)),
                float(np.clip(p.roll_deg + rng.uniform(-0.5, 0.5), -ROLL, ROLL)),
                (p.offset[0] + float(rng.uniform(-0.005, 0.005)), p.offset[1] + float(rng.uniform(-0.005, 0.005))))


def conditions(layout: Layout, pose: Pose, rng: np.random.Generator, hands: float, calm: bool = False,
               size: tuple[int, int] = SIZE) -> tuple[Conditions, int]:
    """A frame's conditions over the ranges above (and its JPEG quality). ``calm``: a table
    photo: no hand, no shadow, a little blur and noise at most, the lamp of the table's pose.
    ``size``: a frame with more pixels than ``SIZE`` shows the same view (a camera's still beside its
    watched stream); blur and noise are drawn from the same ranges in its own pixels, as the marker
    mode's 4K detail frames are (``bench vision --size``): a still focused as sharply as its sensor allows."""
    base = random_conditions(layout, rng, size=size, hand_probability=0.0 if calm else hands, strength=1.0)
    c = replace(
        base, fov_deg=pose.fov_deg, fill=pose.fill, tilt_deg=pose.tilt_deg, tilt_azimuth_deg=pose.yaw_deg,
        roll_deg=level_roll(pose.tilt_deg, pose.yaw_deg) + pose.roll_deg, offset=pose.offset,
        brightness=float(rng.uniform(*GAIN)) if not calm else float(rng.uniform(0.85, 1.1)),
        white_balance=tuple(float(v) for v in rng.uniform(1 - CAST, 1 + CAST, 3)),
        gradient=float(rng.uniform(0, 0.3 if not calm else 0.1)), vignette=float(rng.uniform(0, 0.4 if not calm else 0.2)),
        blur_sigma=float(rng.uniform(*BLUR)) if not calm else float(rng.uniform(0, 0.5)),
        noise_sigma=float(rng.uniform(*NOISE)) if not calm else float(rng.uniform(0, 3)),
        jpeg_quality=None, shadows=() if calm else base.shadows)
    q = int(rng.integers(JPEG[0], JPEG[1] + 1)) if not calm else 92
    return c, q


def enrol_board(layout: Layout, rng: np.random.Generator) -> Board:
    """One piece of each type, each alone on a random space of a kind that holds it: on a space
    for one piece (China's house and fortress on sites, Ming's family member in a cloister) when
    such a space holds the kind, else on a space for a heap (China's emissary on a dragon space,
    Ming's prince in a district); on any space when none is left."""
    from vision.card_rows import enrol_board as card_enrol_board, is_card_layout
    from vision.counted_values import enrolment_pieces
    from vision.piece_looks import face_kinds, read_kinds

    if is_card_layout(layout):  # cards in rows (The Great Wall): one of each kind laid in a row
        return Board.from_counts(card_enrol_board(layout))
    sites = [s.id for s in layout.spaces if not layout.heap_kinds(s)]
    heaps = [s.id for s in layout.spaces if layout.heap_kinds(s)]
    rng.shuffle(sites)
    rng.shuffle(heaps)
    # by space kind, as ``enrolment_plan``: where a piece is put to learn its look (a space's own
    # ``holds``, a Cheops column's marker, is the rules' and would put a scarab on its own colour)
    holds = {s.id: layout.kind_holds(s) for s in layout.spaces}
    cells: dict[str, list[Piece]] = {}
    players = list(layout.players)
    # look-alike kinds are enrolled as one (vision.piece_looks), but for those told apart by face
    read = set(read_kinds(layout)) | set(face_kinds(layout))
    for kind, spec in layout.pieces.items():
        if kind not in read:
            continue
        # a kind shown by printed counters is enrolled as them, one per owner (``enrolment_pieces``)
        for piece in enrolment_pieces(layout, kind, spec.owners_in(players)):
            pk = piece.kind
            pools = [sites, heaps] if any(pk in holds[s] for s in sites) else [heaps, sites]
            pool = next((p for p in pools if any(pk in holds[s] for s in p)), None)
            if pool is None:
                pool = next(p for p in pools if p)
                cells[pool.pop()] = [piece]
                continue
            at = max(i for i, s in enumerate(pool) if pk in holds[s])  # the last that holds it
            cells[pool.pop(at)] = [piece]
    return Board.from_counts(cells)


POSITION_TRIES = 50


def render_fitting(layout: Layout, draw: Callable[[], Board], c: Conditions, **render_args: Any) -> Rendered:
    """``draw()``'s position rendered (``render``); one whose pieces do not fit on a space is drawn
    again (many counters on a small area; a game's heap on a table with bigger pieces)."""
    for _ in range(POSITION_TRIES - 1):
        try:
            return render(layout, draw(), c, **render_args)
        except PlacementError:
            continue
    return render(layout, draw(), c, **render_args)


def render_position(layout: Layout, rng: np.random.Generator, positions: str, c: Conditions) -> Rendered:
    """A random position rendered (``render_fitting``)."""
    return render_fitting(layout, lambda: random_position(layout, rng, positions), c)


def _write_jpeg(path: Path, image: np.ndarray, quality: int) -> None:
    if not cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)]):
        from vision.errors import UnreadableImage

        raise UnreadableImage(f"cannot write {path}")


def _write_hand(out: Path, stem: str, r: Rendered) -> None:
    """``hands/<stem>.png``: where the hand lies in the frame (``vision.hand_outline``), 1 bit a pixel."""
    (out / HANDS_DIR).mkdir(exist_ok=True)
    hand = r.hand if r.hand is not None else np.zeros(r.image.shape[:2], np.uint8)
    cv2.imwrite(str(out / HANDS_DIR / f"{stem}.png"), np.where(hand > 0, 255, 0).astype(np.uint8),
                [cv2.IMWRITE_PNG_BILEVEL, 1, cv2.IMWRITE_PNG_COMPRESSION, 9])


def _write_counters(layout: Layout, out: Path, stem: str, r: Rendered) -> None:
    """``counters/<stem>.json``: where each printed value counter lies (layout ``counts_as``; the
    truth states what they count as), for checking the values read (``tools/read_values.py``)."""
    kinds = {k for k, spec in layout.pieces.items() if spec.counts_as is not None}
    if not kinds:
        return
    rows = [{"space": p.space, "piece": f"{p.piece.owner}:{p.piece.kind}", "at_mm": [round(p.x, 2), round(p.y, 2)]}
            for p in r.truth.placements if p.piece.kind in kinds]
    (out / "counters").mkdir(exist_ok=True)
    (out / "counters" / f"{stem}.json").write_text(json.dumps(rows, indent=1) + "\n", "utf-8")


def render_set(layout: Layout, out: str | Path, frames: int, *, seed: int = 0, hands: float = 0.3, tables: int = 1,
               positions: str = "layout", progress: Callable[[int, int, str], None] | None = None,
               size: tuple[int, int] = SIZE) -> dict:
    """Write the set; returns its set.json. Frame i belongs to table ``t<i mod tables + 1>``.
    ``positions``: where the pieces come from (``vision.scenes.random_position``: ``layout``, or
    ``game`` for positions reached in random games of the layout's game). ``size``: the frames'
    pixels (a larger one: the detail stills ``tableref vision eval --detail`` reads; the same
    scenes and poses as at ``SIZE`` for a seed)."""
    out = Path(out)
    for d in ("frames", "truth", "tables"):
        (out / d).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    poses: dict[str, Pose] = {}
    for k in range(tables):
        tid = f"t{k + 1}"
        pose = poses[tid] = draw_pose(rng)
        tdir = out / "tables" / tid
        tdir.mkdir(parents=True, exist_ok=True)
        # both photos are taken one after the other: same pose, same lamp
        c, q = conditions(layout, pose, rng, 0.0, calm=True, size=size)
        _write_jpeg(tdir / "empty.jpg", render(layout, Board(), c).image, q)
        board = enrol_board(layout, rng)
        _write_jpeg(tdir / "enrol.jpg", render(layout, board, c).image, q)
        (tdir / "enrol.json").write_text(json.dumps(truth_to_json(board), indent=1) + "\n", "utf-8")
    described = {}
    width = max(4, len(str(frames)))
    for i in range(frames):
        tid = f"t{i % tables + 1}"
        stem = f"{tid}-{i:0{width}d}"
        pose = perturb(poses[tid], rng)
        c, q = conditions(layout, pose, rng, hands, size=size)
        r = render_position(layout, rng, positions, c)
        _write_jpeg(out / "frames" / f"{stem}.jpg", r.image, q)
        truth = truth_to_json(r.truth.board, r.truth.occluded, table=tid, markers_covered=r.truth.markers_covered)
        (out / "truth" / f"{stem}.json").write_text(json.dumps(truth, indent=1) + "\n", "utf-8")
        _write_counters(layout, out, stem, r)
        _write_hand(out, stem, r)
        described[stem] = {**c.describe(), "jpeg": q, "yaw_deg": round(pose.yaw_deg % 360, 1),
                           "roll_deg": round(pose.roll_deg, 1)}
        if progress:
            progress(i + 1, frames, stem)
    info = {"board": layout.id, "source": "tableref vision render-set (the project's own renderer, vision.render)",
            "split": "tune", "seed": seed, "frames": frames, "tables": tables, "hands": hands, "positions": positions,
            "size": list(size),
            "note": "the reader was developed on this renderer: not an independent test",
            "conditions": described}
    (out / "set.json").write_text(json.dumps(info, indent=1) + "\n", "utf-8")
    return info
