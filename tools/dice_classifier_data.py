"""Training data of the learned die reader (``tools/train_dice_classifier.py``): crops cut by the
reader's own pipeline (``DiceReader.find`` then ``DiceReader.crop``) around every die blob it finds
in rolls of Zhang Yi's sample tray, with the roll's true value (0: no die to read there: the die is
under a hand, or the blob is not the die).

Sources, as ``bench/bench_dice.py`` draws them (issue 12's ranges, hands in 30 % of frames):

* ``tools/dice_eval`` **tuning** seeds only (``TUNE_SEEDS``), tables from ``FIRST_TABLE`` on, so that
  the benchmark's tuning tables (the first few dozen) stay apart from training: they choose the
  probability thresholds. The held-out seeds are refused.
* the project's renderer (``own``), tables from ``FIRST_TABLE`` on.

Frame sizes cycle over ``SIZES``. Each die blob gives its plain crop and ``jitter`` crops turned,
scaled and shifted a little (as a face found a little off would be).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIRST_TABLE = 1000  # the benchmark reads tables 0.. of each set: training starts well after them
SIZES = ((1920, 1080), (2560, 1440), (3840, 2160))


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _tables_job(job: tuple) -> dict:
    """Crops of tables [first, first + count) of ``source`` (one worker)."""
    source, first, count, per_table, jitter, seed = job
    import cv2

    cv2.setNumThreads(1)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench.bench_dice import LAYOUT, _scale_h, _small, _tables
    from vision.dice import DiceReader
    from vision.enrolment import enrol
    from vision.layout import LAYOUT_DIR, load_layout
    from vision.registration import Registrar

    if source not in ("tune", "own"):
        raise ValueError(f"training data comes from the tuning seeds and the project's renderer, not {source!r}")
    layout = load_layout(LAYOUT)
    layout_json = json.loads((LAYOUT_DIR / f"{LAYOUT}.json").read_text("utf-8"))
    rng = np.random.default_rng([seed, first])
    X, y, table, face, src = [], [], [], [], []
    for t in range(first, first + count):
        size = SIZES[t % len(SIZES)]
        (empty, rolls), = list(_tables(source, layout, layout_json, t, 1, per_table, size))
        reg = Registrar(layout).detect(cv2.cvtColor(_small(empty), cv2.COLOR_BGR2GRAY))
        if not reg.usable:
            continue
        H = _scale_h(reg.homography, empty.shape[1] / _small(empty).shape[1])
        reader = DiceReader(layout, model=enrol(layout, empty, H), reader="classical")  # only its view and blobs
        for frame, origin, truth in rolls():
            reader._last = None  # every roll is a new scene
            found = reader.find(frame, H, origin=origin, frame_size=(empty.shape[1], empty.shape[0]))
            if not isinstance(found, tuple):
                continue
            pose, det, blobs, res, _ = found
            side = reader.look.size_mm
            for b in blobs:
                ys, xs = np.nonzero(b.mask)
                c = det.mm(np.array([xs.mean() + b.box[0], ys.mean() + b.box[1]]))
                label = 0
                if not truth["empty"] and not truth["die_covered"] and truth.get("centre_mm") is not None \
                        and math.dist(c, truth["centre_mm"]) <= 1.2 * side:
                    label = int(truth["value"])
                jit = [(0.0, 1.0, (0.0, 0.0))] + [
                    (float(rng.uniform(-12, 12)), float(rng.uniform(0.92, 1.08)),
                     tuple(float(v) for v in rng.uniform(-0.12, 0.12, 2) * side)) for _ in range(jitter)]
                for turn, scale, shift in jit:
                    X.append(reader.crop(frame, pose, det, b, origin, turn, scale, shift).astype(np.float16))
                    y.append(label)
                    table.append(t)
                    face.append(side * res)
                    src.append(0 if source == "tune" else 1)
    return {"x": np.array(X, np.float16).reshape(-1, 4, 48, 48), "y": np.array(y, np.int64),
            "table": np.array(table, np.int64), "face_px": np.array(face, np.float32), "source": np.array(src, np.int64)}


def build(sources: dict[str, int], per_table: int, jitter: int, seed: int, workers: int = 2) -> dict:
    """``sources``: tables per source (``tune``, ``own``), from ``FIRST_TABLE`` on."""
    jobs = []
    for source, tables in sources.items():
        share = max(1, min(10, math.ceil(tables / (4 * workers))))
        jobs += [(source, FIRST_TABLE + i, min(share, tables - i), per_table, jitter, seed)
                 for i in range(0, tables, share)]
    t0 = time.perf_counter()
    parts = []
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for k, part in enumerate(pool.imap_unordered(_tables_job, jobs)):
            parts.append(part)
            log(f"data: {k + 1}/{len(jobs)} jobs, {sum(len(p['y']) for p in parts)} crops, "
                f"{time.perf_counter() - t0:.0f} s")
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def cached(path: Path, sources: dict[str, int], per_table: int, jitter: int, seed: int, workers: int = 2) -> dict:
    """``build``'s arrays, kept in ``path`` (an .npz) and reused while the arguments are the same."""
    from vision.dice_classifier import CHANNELS, CROP_PX, CROP_SIDES

    key = json.dumps({"sources": sources, "per_table": per_table, "jitter": jitter, "seed": seed,
                      "first": FIRST_TABLE, "sizes": SIZES, "crop": [CROP_PX, CROP_SIDES, CHANNELS]}, sort_keys=True)
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            if "key" in z.files and str(z["key"]) == key:
                log(f"data from {path}")
                return {k: z[k] for k in z.files if k != "key"}
    out = build(sources, per_table, jitter, seed, workers)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, key=key, **out)
    log(f"data: {len(out['y'])} crops written to {path}")
    return out


if __name__ == "__main__":  # python -m tools.dice_classifier_data: build the default cache only
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tools.train_dice_classifier import SOURCES

    cached(ROOT / "data" / "dice_classifier" / "crops.npz", SOURCES, 25, 1, 0)
