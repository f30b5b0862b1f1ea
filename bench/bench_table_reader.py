"""The reader that learns the table (``vision.table_reader``): accuracy on every evaluation set
side by side, and its speed on one core at 1280x720.

    python -m bench table_reader                      # all sets found + speed, classical and learned
    python -m bench table_reader -- --own-frames 60 --skip-speed --readers learned
    python -m bench table_reader -- --speed-only --readers learned            # speed alone
    python -m bench table_reader -- --board ming-provisional --positions game   # another game's layout
    python -m bench table_reader -- --board zhang-yi-sample --positions game --detail 3840x2160   # with stills

``--board``: the layout (default ``china-a``). The committed photoreal sets are China's, Cheops' and
The Great Wall's (evalsets/photoreal-china-a, evalsets/photoreal-cheops, evalsets/photoreal-great-wall):
each is read only for the layout it was made for, and the learned reader only for a layout its committed
model fits (Ming is read by counting). ``--positions``: where the own set's and the speed boards'
pieces come from (``vision.scenes``: ``layout``, or ``game`` for positions of random games).

Sets, each read through ``vision.evaluate`` exactly as ``tableref vision eval`` reads them:
* ``own``: rendered now by the project's renderer (``tableref vision render-set``, seed 5, the
  issue's ranges); the reader was developed on such frames;
* ``photoreal tune``: the committed Blender set's tuning split (evalsets/photoreal-china-a/tune),
  looked at while developing;
* ``photoreal held-out``: the committed Blender set's held-out split, never used for tuning.

Speed: one OpenCV thread, a fixed table; "unmoved" is the same board again with fresh sensor
noise (the change test answers), "one piece moved" is one piece taken away (only the spaces
near it are read again; checked against a full read of the same frame, and again on that frame with
the first one's pixels wherever the move changed nothing: fresh sensor noise alone makes a full read
count a near-tie on an unmoved space otherwise, a Ming heap or where an owner's one prince goes), "full read" a new
board read by a new reader (its registration included: the markers looked for first where the
table's enrolment photo had them, as a mounted camera shows them), "full read, moved" the same
with no pose known (the markers looked for in the whole frame, as after the camera was bumped),
"full read, kept" a new board read by a reader that has seen the last one (the camera has not
moved: the usual case). Machines here are shared: compare them within one run.

``--detail WxH``: the own set and the speed boards are rendered as stills of that size, watched at
1280x720 (scaled, not timed: a camera's ISP does it) and read with the still as the reader's detail
frame (``tableref vision eval --detail``), as a camera with a detail stream is read; the table's
photos are stills. The photoreal sets have no stills: they are read as they are.

Readers (``--readers``): ``table`` counts colour blobs (the classical step), ``learned`` reads each
space with the learned per-space classifier (``vision.space_classifier``, the committed model);
both share registration, light correction and the hand test.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from tableref.commands.vision import WATCH_WIDTH  # the watched frame's width beside a detail still (--detail)

ROOT = Path(__file__).resolve().parent.parent
SETS = (("photoreal tune", ROOT / "evalsets" / "photoreal-china-a" / "tune"),
        ("photoreal held-out", ROOT / "evalsets" / "photoreal-china-a" / "heldout"),
        ("photoreal tune", ROOT / "evalsets" / "photoreal-cheops" / "tune"),
        ("photoreal held-out", ROOT / "evalsets" / "photoreal-cheops" / "heldout"),
        ("photoreal tune", ROOT / "evalsets" / "photoreal-great-wall" / "tune"),
        ("photoreal held-out", ROOT / "evalsets" / "photoreal-great-wall" / "heldout"))




def _evaluate(name: str, root: Path, layout, reader: str = "table", watch_width: int | None = None) -> dict | None:
    from vision.eval_readers import make_reader_factory
    from vision.evaluate import evaluate_set, load_set, summarise

    if not (root / "frames").is_dir():
        print(f"{name}: no set at {root}")
        return None
    fs = load_set(root, layout)
    t0 = time.perf_counter()

    def progress(i: int, n: int, result, acc: float) -> None:
        if i % 20 == 0 or i == n:
            print(f"  {name}: frame {i}/{n}, per space so far {acc:.2%}", file=sys.stderr, flush=True)

    results, _ = evaluate_set(fs, make_reader_factory(layout, root, reader=reader), [s.id for s in layout.spaces],
                              progress=progress, watch_width=watch_width)
    m = summarise(results)
    m["seconds"] = time.perf_counter() - t0
    return m


def _line(name: str, m: dict) -> str:
    ps, wb = m["per_space"], m["whole_board"]
    pct = lambda r: f"{r['percent']:6.2f}%" if r["of"] else "   n/a"
    return (f"{name:30s} frames {m['frames']:4d}  per space {pct(ps)}  whole board (no hand) {pct(wb['without_hand'])}"
            f"  read through a hand {m['read_through_occlusion']['count']:3d}/{m['read_through_occlusion']['of']:<4d}"
            f"  false flags {pct(m['false_occlusion_flags'])}  not registered {m['not_registered']['count']}"
            f"  ({m['seconds']:.0f} s)")


def _speed(layout, rounds: int, reader_kind: str = "table", positions: str = "layout",
           detail: tuple[int, int] | None = None) -> None:
    from scorer.core.types import Board
    from vision.enrolment import model_from_photos
    from vision.render import Conditions, render, without_piece
    from vision.render_set import render_position
    from vision.space_classifier import SpaceClassifier
    from vision.card_enrol import card_model_from_photos, plan_items
    from vision.card_reader import reader_for_layout
    from vision.card_rows import is_card_layout
    from vision.evaluate import watched_frame
    from vision.hand_network import committed_hand_network
    from vision.scarab_network import scarab_heads
    from vision.render_conditions import SKIN_TONES, Hand

    cv2.setNumThreads(1)
    classifier = SpaceClassifier.load(layout=layout) if reader_kind == "learned" else None
    cam = Conditions(size=detail or (1280, 720), fov_deg=62.0, fill=0.86, tilt_deg=14.0, tilt_azimuth_deg=30.0,
                     blur_sigma=0.6, noise_sigma=3.0, jpeg_quality=90, seed=11)
    cells: dict = {}
    for s, p in plan_items(layout):  # one piece per space, or a row of cards (vision.card_enrol)
        cells.setdefault(s, Counter())[p] += 1
    empty = render(layout, Board.from_counts({}), cam).image
    planned = Board.from_counts(cells)
    pieces = render(layout, planned, dataclasses.replace(cam, seed=12)).image
    model = card_model_from_photos(layout, empty, pieces, planned) if is_card_layout(layout) else \
        model_from_photos(layout, empty, pieces, {s: p for s, p in plan_items(layout)})
    rng = np.random.default_rng(3)
    unmoved, moved_ms, full, full_kept, full_lost, hand_net, hand_alone = [], [], [], [], [], [], []
    look_alone: list[float] = []  # Cheops: a full read without the scarab network (vision.scarab_network)
    scarabs = bool(scarab_heads(layout))
    kept = reader_for_layout(layout, model, classifier=classifier)  # one reader for every board: its registration kept
    partial = same = same_kept = 0
    clean = dataclasses.replace(cam, noise_sigma=0.0, jpeg_quality=None)

    def noisy(img: np.ndarray) -> np.ndarray:  # fresh sensor noise, sigma 3
        return np.clip(img + rng.normal(0, 3.0, img.shape), 0, 255).astype(np.uint8)

    for r in range(rounds):
        # (a position whose pieces do not fit on a space is drawn again: Zhang Yi's strong armies)
        first = render_position(layout, rng, positions, dataclasses.replace(clean, seed=100 + r))
        a, again = noisy(first.image), noisy(first.image)
        # one piece taken away, everything else where it was
        gone = first.truth.placements[int(rng.integers(len(first.truth.placements)))]
        bare_b = without_piece(layout, first, gone)
        b = noisy(bare_b)
        # the same frame with a's pixels (its sensor noise) wherever the move changed nothing
        b_kept = np.where((bare_b != first.image).any(axis=2, keepdims=True), b, a)
        reader = reader_for_layout(layout, model, classifier=classifier)
        # with --detail: the watched frames and the stills beside them (the camera's ISP scales: not timed)
        width = WATCH_WIDTH if detail else None
        (a, sa), (again, sagain), (b, sb), (bk, sbk) = (watched_frame(x, width) for x in (a, again, b, b_kept))
        lost = reader_for_layout(layout, model, classifier=classifier)
        lost.registrar.expect(None, None)  # a bumped camera: the markers looked for in the whole frame
        t0 = time.perf_counter(); lost.read(a, detail=sa); full_lost.append(time.perf_counter() - t0)
        t0 = time.perf_counter(); reader.read(a, detail=sa); full.append(time.perf_counter() - t0)
        if scarabs:
            alone = reader_for_layout(layout, model, classifier=classifier, scarab_network=None)
            t0 = time.perf_counter(); alone.read(a, detail=sa); look_alone.append(time.perf_counter() - t0)
        t0 = time.perf_counter(); d = kept.read(a, detail=sa); t = time.perf_counter() - t0
        if r and not d.reused and d.partial is None:  # (the first board registers it)
            full_kept.append(t)
        t0 = time.perf_counter(); d = reader.read(again, detail=sagain); unmoved.append(time.perf_counter() - t0)
        assert d.reused, "an unmoved board was read again"
        t0 = time.perf_counter(); d = reader.read(b, detail=sb); moved_ms.append(time.perf_counter() - t0)
        partial += d.partial is not None
        full_b = reader_for_layout(layout, model, classifier=classifier).read(b, detail=sb)
        same += {s.space: dict(s.pieces) for s in d.spaces} == {s.space: dict(s.pieces) for s in full_b.spaces}
        twice = reader_for_layout(layout, model, classifier=classifier)
        twice.read(a, detail=sa)
        d = twice.read(bk, detail=sbk)
        full_b = reader_for_layout(layout, model, classifier=classifier).read(bk, detail=sbk)
        same_kept += {s.space: dict(s.pieces) for s in d.spaces} == {s.space: dict(s.pieces) for s in full_b.spaces}
        if not is_card_layout(layout):  # a hand over the board: the learned hand outline runs (vision.hand_network)
            target = layout.spaces[int(rng.integers(len(layout.spaces)))].centre
            hand = Hand(target, float(rng.uniform(0, 360)), 60.0, 1.0, SKIN_TONES[r % len(SKIN_TONES)], 0.7)
            h = watched_frame(noisy(render(layout, first.truth.board, dataclasses.replace(clean, seed=200 + r,
                                                                                          hand=hand)).image), width)
            for net, times in ((committed_hand_network(), hand_net), (None, hand_alone)):
                fresh = reader_for_layout(layout, model, classifier=classifier, hand_network=net)
                t0 = time.perf_counter(); fresh.read(h[0], detail=h[1]); times.append(time.perf_counter() - t0)
    ms = lambda v: f"median {1e3 * statistics.median(v):6.1f} ms  p90 {1e3 * float(np.percentile(v, 90)):6.1f} ms"
    shown = "1280x720" + (f" with {detail[0]}x{detail[1]} stills" if detail else "")
    print(f"speed ({reader_kind} reader, {layout.id}), one core, {shown}, {rounds} boards:")
    print(f"  unmoved board    {ms(unmoved)}")
    print(f"  one piece moved  {ms(moved_ms)}   ({partial}/{rounds} read in part; {same}/{rounds} equal to a full read, "
          f"{same_kept}/{rounds} with the unmoved part's pixels as before)")
    print(f"  full read        {ms(full)}   (a new reader: the markers looked for where the enrolment photo had them)")
    if look_alone:
        print(f"  ... without net  {ms(look_alone)}   (the same frames, the scarabs by the look alone: vision.scarab_network)")
    print(f"  full read, moved {ms(full_lost)}   (a new reader, no pose known: the markers looked for in the whole frame, "
          f"as after a bump)")
    if hand_net:
        print(f"  full read, hand  {ms(hand_net)}   (a hand over the board: the hand test's hand vetoed by the learned "
              f"outline, vision.hand_network)")
        print(f"  ... without net  {ms(hand_alone)}   (the same frames, the hand test's hand whole)")
    if full_kept:
        print(f"  full read, kept  {ms(full_kept)}   (every piece new, the registration kept: a new game laid out; "
              f"{len(full_kept)} boards)")


def main(argv: list[str]) -> int:
    from vision.layout import load_layout

    ap = argparse.ArgumentParser(prog="python -m bench table_reader")
    ap.add_argument("--own-frames", type=int, default=80)
    ap.add_argument("--speed-rounds", type=int, default=20)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--readers", help="comma-separated: table (classical), learned (default: both, or table alone for "
                                      "a layout the committed learned model was not made for)")
    ap.add_argument("--skip-own", action="store_true", help="leave out the project's own renderer's set")
    ap.add_argument("--speed-only", action="store_true", help="no accuracy: only the speed boards")
    ap.add_argument("--board", default="china-a", help="board id or layout file (default china-a)")
    ap.add_argument("--positions", choices=("layout", "game"), default="layout",
                    help="pieces of the own set and the speed boards: from the layout, or positions of random games")
    ap.add_argument("--detail", metavar="WxH", help="the own set and the speed boards as stills of this size, watched "
                                                   "at 1280x720 and read with the still (see above)")
    args = ap.parse_args(argv)
    detail = tuple(int(v) for v in args.detail.lower().split("x")) if args.detail else None
    layout = load_layout(args.board)
    readers = [r for r in (args.readers or ("table,learned" if _learned_fits(layout) else "table")).split(",") if r]
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        own = Path(tmp) / "own"
        from tableref.cli import main as cli

        sets = [(name, root) for name, root in SETS if _made_for(root, layout) and not args.speed_only]
        if not args.skip_own and not args.speed_only:
            print(f"rendering {args.own_frames} frames with the project's renderer ...", file=sys.stderr, flush=True)
            cli(["vision", "render-set", "--board", args.board, "--out", str(own), "--frames", str(args.own_frames),
                 "--tables", "4", "--seed", "5", "--positions", args.positions]
                + (["--size", args.detail] if detail else []))
            sets.insert(0, ("own renderer" + (" (stills)" if detail else ""), own))
        for name, root in sets:
            for r in readers:
                label = f"{name} [{r}]"
                m = _evaluate(label, root, layout, r, WATCH_WIDTH if detail and root == own else None)
                if m:
                    lines.append(_line(label, m))
    if lines:
        print("accuracy (colour mode, tableref vision eval's metrics):")
        for ln in lines:
            print("  " + ln)
    if not args.skip_speed:
        for r in readers:
            _speed(layout, args.speed_rounds, r, args.positions, detail)
    return 0


def _made_for(root: Path, layout) -> bool:
    """Whether a committed set was made for this layout (its set.json's board; absent: China's)."""
    import json

    try:
        board = json.loads((root / "set.json").read_text("utf-8")).get("board", "china-a")
    except (OSError, ValueError):
        board = "china-a"
    return board == layout.id


def _learned_fits(layout) -> bool:
    from vision.space_classifier import ClassifierError, SpaceClassifier

    try:
        SpaceClassifier.load(layout=layout)
    except ClassifierError:
        return False
    return True
