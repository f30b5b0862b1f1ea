"""Die pips read by the camera (``vision.dice``): accuracy on rendered rolls and time per read.

    python -m bench dice                                   # tune and heldout, 1000 rolls each, 1280x720
    python -m bench dice -- --rolls 300 --size 3840x2160   # a detail frame
    python -m bench dice -- --sets own,tune --dump /tmp/dice-failures
    python -m bench dice -- --reader classical             # the pip fits alone (default: both, side by side)

Rolls of Zhang Yi's sample layout (its ``dice-tray`` and ``die``), over issue 12's ranges
(``vision/render_set.py``: camera pose, light, blur, noise, colour cast, JPEG, hands in 30 % of
frames, most of them near the tray), each table enrolled from a calm photo of its empty board as a
user would (``vision.enrolment.enrol``; the camera is mounted, so the registration of that photo
serves its rolls; a frame wider than 1280 is registered on its 1280-wide preview). Sets:

* ``tune``: the independent generator (``tools/dice_eval``, no code shared with ``vision/``),
  tuning seeds; looked at while developing;
* ``heldout``: the same generator's held-out seeds, never looked at while tuning;
* ``own`` (not by default: full frames of the project's renderer, slower): ``vision.render``;
  the reader was developed on it.

Figures per set: **right** = rolls whose die was read with its true value, of the rolls whose
die is in view (not under a hand): the issue's "die pips" figure; **misread** = a wrong value
(the referee would enter it); **unreadable** = no value (the referee asks for a declaration);
**through a hand** = a value given while a hand covered the die (its silhouette grown by 2 px);
empty trays read as empty. ``--reader both`` (the default) reads with the learned reader
(``vision.dice_classifier``: pip fits and network) and gives the pip fits' own values from the
same reads beside it (their time: the read's less the network's). Time: per read, one OpenCV thread, median and 90th percentile (a read
of an unchanged tray reuses the last one; every roll here is a new scene).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = "zhang-yi-sample"
FACE_BINS = (0, 8, 12, 16, 24, 1e9)  # the die's side in frame pixels


# ------------------------------------------------------------------------------------------ sources

def _own_table(layout, seed: int, size: tuple[int, int]):
    """The project's renderer: a camera pose and the calm empty-board photo."""
    from scorer.core.types import Board
    from vision.render import render
    from vision.render_set import conditions, draw_pose

    rng = np.random.default_rng([seed, 11])
    pose = draw_pose(rng)
    c, q = conditions(layout, pose, rng, 0.0, calm=True)
    img = render(layout, Board(), replace(c, size=size)).image
    return pose, _jpeg(img, q)


def _own_roll(layout, pose, seed: int, k: int, size: tuple[int, int]):
    from scorer.core.types import Board, Piece
    from vision.dice import dice_space, die_kinds
    from vision.render import Placement, hand_polygons, render
    from vision.render_set import conditions

    rng = np.random.default_rng([seed, 12, k])
    c, q = conditions(layout, pose, rng, 0.3)
    c = replace(c, size=size)
    tray = dice_space(layout)
    kind = die_kinds(layout)[0]
    spec = layout.pieces[kind]
    empty = bool(rng.random() < 0.04)
    value = int(rng.integers(1, 7))
    xs, ys = [p[0] for p in tray.polygon], [p[1] for p in tray.polygon]
    m = spec.max_width / 2 + 2
    x, y = float(rng.uniform(min(xs) + m, max(xs) - m)), float(rng.uniform(min(ys) + m, max(ys) - m))
    placements = () if empty else (Placement(tray.id, Piece("neutral", kind), x, y, float(rng.uniform(0, 360)), 0.0),)
    board = Board() if empty else Board.from_counts({tray.id: {Piece("neutral", kind): 1}})
    if c.hand is not None and rng.random() < 0.7:  # most hands over a tray reach for the die
        cx, cy = tray.centre
        c = replace(c, hand=replace(c.hand, target=(cx + float(rng.uniform(-90, 90)), cy + float(rng.uniform(-60, 60)))))
    r = render(layout, board, c, placements=placements, dice=[value])
    covered = False
    if c.hand is not None and not empty:
        cam = r.truth.camera
        W, H = size
        hand = np.zeros((H, W), np.uint8)
        for p in hand_polygons(c.hand):
            cv2.fillPoly(hand, [np.round(cam.project(p, -c.hand.height)).astype(np.int32)], 1)
        pl = r.truth.placements[0]
        out = spec.outline(pl.x, pl.y, pl.angle)
        die = cv2.convexHull(np.vstack([cam.project(out, 0), cam.project(out, -spec.height)]).astype(np.float32))
        dm = np.zeros((H, W), np.uint8)
        cv2.fillConvexPoly(dm, np.round(die.reshape(-1, 2)).astype(np.int32), 1)
        covered = bool((hand & cv2.dilate(dm, np.ones((5, 5), np.uint8))).any())
    truth = {"value": None if empty else value, "empty": empty, "hand": c.hand is not None, "die_covered": covered,
             "centre_mm": None if empty else [x, y], "size_mm": spec.min_width}
    return _jpeg(r.image, q), (0, 0), truth


def _jpeg(img: np.ndarray, q: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(q)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _tables(source: str, layout, layout_json: dict, first: int, count: int, per_table: int, size: tuple[int, int]):
    """Yields (empty photo, [(frame, origin, truth) ...]) per table."""
    if source == "own":
        for t in range(first, first + count):
            pose, empty = _own_table(layout, t, size)
            yield empty, (lambda t=t, pose=pose: (_own_roll(layout, pose, t, k, size) for k in range(per_table)))
        return
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tools.dice_eval.frames import HELDOUT_SEEDS, TUNE_SEEDS, empty_photo, make_roll, make_table, tray_window

    seeds = TUNE_SEEDS if source == "tune" else HELDOUT_SEEDS
    for t in range(first, first + count):
        table = make_table(layout_json, seeds[t], size)

        def rolls(table=table):
            win = tray_window(table)
            for k in range(per_table):
                frame, truth = make_roll(table, k, window=win)
                truth["size_mm"] = table.style.size
                yield frame, (win.x0, win.y0), truth
        yield empty_photo(table), rolls


# ------------------------------------------------------------------------------------------ reading

def _outcome(reading, truth: dict, values: list | None = None) -> str:
    """``values``: the dice's values as another reader gave them (``DiceReader.last_dice``), in
    place of the reading's (``--reader both``: the pip fits alone, from the same read)."""
    from vision.dice import DiceState

    if values is not None:
        value = values[0] if len(values) == 1 else None
    else:
        value = reading.values[0] if reading.state == DiceState.READ and len(reading.values) == 1 else None
    if truth["empty"]:
        return "empty_ok" if reading.state == DiceState.EMPTY else ("empty_false_die" if value else "empty_other")
    if truth["die_covered"]:
        return "covered_read" if value is not None else "covered_ok"
    if value is None:
        return "unreadable"
    return "right" if value == truth["value"] else "misread"


def _work(job: tuple) -> list[dict]:
    """One worker's share: tables [first, first + count) of a source."""
    source, first, count, per_table, size, dump, mode, min_face_px = job
    cv2.setNumThreads(1)
    import json

    from vision.dice import DiceReader
    from vision.dice_view import camera_pose, frame_resolution
    from vision.enrolment import enrol
    from vision.layout import LAYOUT_DIR, load_layout
    from vision.registration import Registrar

    layout = load_layout(LAYOUT)
    layout_json = json.loads((LAYOUT_DIR / f"{LAYOUT}.json").read_text("utf-8"))
    out: list[dict] = []
    for t, (empty, rolls) in enumerate(_tables(source, layout, layout_json, first, count, per_table, size)):
        reg = Registrar(layout).detect(cv2.cvtColor(_small(empty), cv2.COLOR_BGR2GRAY))
        if not reg.usable:
            out += [{"outcome": "not_registered", "truth": truth, "ms": None, "face_px": None}
                    for _, _, truth in rolls()]
            continue
        H = _scale_h(reg.homography, empty.shape[1] / _small(empty).shape[1])
        reader = DiceReader(layout, model=enrol(layout, empty, H), reader="classical" if mode == "classical" else "learned")
        if mode != "classical" and reader.classifier is None:
            raise SystemExit("no dice classifier model (vision/models/dice_classifier): train it, or --reader classical")
        if min_face_px is not None and reader.classifier is not None:
            reader.classifier.min_face_px = min_face_px
        pose = camera_pose(H, (empty.shape[1], empty.shape[0]))
        for k, (frame, origin, truth) in enumerate(rolls()):
            t0 = time.perf_counter()
            reading = reader.read(frame, H, origin=origin, frame_size=(empty.shape[1], empty.shape[0]))
            ms = (time.perf_counter() - t0) * 1e3
            face_px = truth["size_mm"] * frame_resolution(pose, reader.look.height_mm, reader.tray.centre) if pose else None
            o = _outcome(reading, truth)
            row = {"outcome": o, "truth": truth, "ms": ms, "face_px": face_px, "state": str(reading.state),
                   "dice": list(reader.last_dice)}
            if mode == "both":  # the pip fits alone, from the same read
                alone = [d["classical"] for d in reader.last_dice]
                row["classical"] = _outcome(reading, truth, alone if reader.last_dice else None)
                row["classical_ms"] = ms - sum(d.get("net_ms", 0.0) for d in reader.last_dice)
            fit = getattr(reader, "last_fit", None)
            if fit is not None:  # what decided the last die (for --pickle)
                row["fit"] = {"value": fit[1].value, "confidence": fit[1].confidence, "contrast": fit[1].contrast,
                              "quality": fit[1].quality, "blur": fit[1].blur, "size_mm": fit[0].side}
                reader.last_fit = None
            out.append(row)
            if dump and o in ("misread", "unreadable", "covered_read", "empty_false_die"):
                d = Path(dump) / source / o
                d.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(d / f"t{first + t}-r{k}-truth{truth['value']}-read{reading.values}.jpg"), frame)
    return out


def _small(img: np.ndarray) -> np.ndarray:
    """Registration works on a frame no wider than 1280 (a detail frame is registered on its preview)."""
    w = img.shape[1]
    return img if w <= 1280 else cv2.resize(img, (1280, round(img.shape[0] * 1280 / w)), interpolation=cv2.INTER_AREA)


def _scale_h(H: np.ndarray, k: float) -> np.ndarray:
    # pixel centres: x_big = k (x + 0.5) - 0.5
    S = np.array([[k, 0, 0.5 * k - 0.5], [0, k, 0.5 * k - 0.5], [0, 0, 1.0]])
    return S @ H


def _summary(name: str, rows: list[dict], key: str = "outcome", ms_key: str = "ms") -> list[str]:
    c = Counter(r[key] for r in rows)
    visible = c["right"] + c["misread"] + c["unreadable"]
    covered = c["covered_read"] + c["covered_ok"]
    empties = c["empty_ok"] + c["empty_false_die"] + c["empty_other"]
    pct = lambda a, b: f"{100 * a / b:6.2f} %" if b else "   n/a"
    ms = [r[ms_key] for r in rows if r.get(ms_key) is not None]
    lines = [f"{name:9s} rolls {len(rows):5d}  die in view {visible:5d}: right {pct(c['right'], visible)}  "
             f"misread {c['misread']:3d} ({pct(c['misread'], visible).strip()})  unreadable {pct(c['unreadable'], visible)}  "
             f"| under a hand {covered:4d}, read through it {c['covered_read']}  | empty trays {empties:3d}, "
             f"read empty {c['empty_ok']}, a die seen {c['empty_false_die']}  | not registered {c['not_registered']}",
             f"{'':9s} time per read: median {statistics.median(ms):6.1f} ms, p90 {float(np.percentile(ms, 90)):6.1f} ms"
             if ms else ""]
    parts = []
    for lo, hi in zip(FACE_BINS, FACE_BINS[1:]):
        sel = [r for r in rows if r["face_px"] is not None and lo <= r["face_px"] < hi
               and r[key] in ("right", "misread", "unreadable")]
        if sel:
            right = sum(r[key] == "right" for r in sel)
            label = f"{lo:g}-{hi:g}" if hi < 1e9 else f">={lo:g}"
            parts.append(f"{label} px: {pct(right, len(sel)).strip()} of {len(sel)}")
    lines.append(f"{'':9s} right by the die's side in frame pixels: " + "; ".join(parts))
    return [ln for ln in lines if ln]


def run_set(source: str, rolls: int, per_table: int, size: tuple[int, int], workers: int, dump: str | None,
            first: int = 0, mode: str = "classical", min_face_px: float | None = None) -> list[dict]:
    tables = math.ceil(rolls / per_table)
    share = math.ceil(tables / workers)
    jobs = [(source, first + i, min(share, tables - i), per_table, size, dump, mode, min_face_px)
            for i in range(0, tables, share)]
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(_work, jobs)
    else:
        parts = [_work(j) for j in jobs]
    return [r for p in parts for r in p][:rolls]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench dice")
    ap.add_argument("--rolls", type=int, default=1000, help="rolls per set (default 1000)")
    ap.add_argument("--per-table", type=int, default=25, help="rolls per table (one camera pose, one die, one board)")
    ap.add_argument("--size", default="1280x720", help="frame size (default 1280x720, issue 12's frame)")
    ap.add_argument("--sets", default="tune,heldout",
                    help="comma-separated: tune, heldout (the default), own (the project's renderer: slower, full frames)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dump", help="write the frames of misreads and unreadable dice here")
    ap.add_argument("--pickle", help="write every roll's outcome (and what decided it) to this file")
    ap.add_argument("--reader", default="both", choices=("classical", "learned", "both"),
                    help="learned: the pip fits and the network (vision/models/dice_classifier; the reader's "
                         "default); classical: the pip fits alone; both (default): the learned reader, and the "
                         "pip fits alone from the same reads, side by side")
    ap.add_argument("--min-face-px", type=float,
                    help="(tuning) ask the network about faces down to this many frame pixels")
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    lines = []
    for source in [s for s in args.sets.split(",") if s]:
        if source not in ("own", "tune", "heldout"):
            print(f"unknown set {source!r} (own, tune, heldout)", file=sys.stderr)
            return 2
        t0 = time.perf_counter()
        print(f"{source}: {args.rolls} rolls at {size[0]}x{size[1]} ...", file=sys.stderr, flush=True)
        rows = run_set(source, args.rolls, args.per_table, (int(size[0]), int(size[1])), args.workers, args.dump,
                       mode=args.reader, min_face_px=args.min_face_px)
        if args.pickle:
            import pickle

            with open(f"{args.pickle}.{source}", "wb") as fh:
                pickle.dump(rows, fh)
        if args.reader == "both":
            lines += [f"{source} -- classical (the pip fits alone):"] + _summary(source, rows, "classical", "classical_ms")
            lines += [f"{source} -- learned (pip fits and network):"]
        lines += _summary(source, rows) + [f"{'':9s} ({time.perf_counter() - t0:.0f} s)"]
    print(f"die pips ({LAYOUT}, {size[0]}x{size[1]}; own = the project's renderer, tune / heldout = tools/dice_eval):")
    for ln in lines:
        print("  " + ln)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
