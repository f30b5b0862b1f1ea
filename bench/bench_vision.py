"""Vision benchmark: accuracy, occlusion handling and speed of the board reader on rendered
frames with varied perturbations, in colour mode and marker mode.

    python -m bench vision                         # 500 frames per mode, 1280x720, china-a
    python -m bench vision -- --frames 100 --modes colour
    python -m bench vision -- --modes marker --size 3840x2160     # tags read at 4K, watched at 720p

Frames come in groups of ``--per-pose`` with one camera pose each (a fixed camera over a game):
the first frame of a group registers the board (full marker detection, timed separately), the
others keep the registration and read the pieces ("the board has not moved"). Each frame is also
read a second time with fresh sensor noise only (nothing on the table changed), and every
``--move-every``-th frame a third time with one piece taken away and nothing else changed (the
frame differs only where that piece was seen: the per-space change detection re-reads only the
spaces near it; the line reports its time and whether those boards came out right). Timings use one
OpenCV thread. Accuracy counts spaces the reader did not flag as occluded; a frame's whole board
is correct when every space is read right and nothing is flagged that was not covered.

Marker mode at a ``--size`` larger than ``--watch`` (default 1280x720) reads as the camera would
deliver it (picamera2: a main and a lores stream of the same view): the reader watches the frame
scaled down to the watch size (registration, change detection, occlusion, colours) and decodes the
tags in the full-size frame only when it reads the board. The scaling is not timed (the camera's
ISP does it on a Pi).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import cv2
import numpy as np



def _parse_size(text: str) -> tuple[int, int]:
    w, h = (int(v) for v in text.lower().split("x"))
    return w, h


def _dump(folder: str, i: int, space: str, r, reader, layout, want, got, tag: str = "wrong", image=None) -> None:
    """Save the frame's rectified board around a misread space, for looking at."""
    import os

    os.makedirs(folder, exist_ok=True)
    reg = reader.registrar.current
    rect = reader._rectify(r.image if image is None else image, reg.homography)
    sp = layout.space(space)
    x, y = (int(v) for v in sp.centre)
    R = int((sp.radius or 20) + 14)
    crop = rect[max(0, y - R):y + R, max(0, x - R):x + R]
    name = f"{folder}/{tag}-{i:04d}-{space}.png"
    cv2.imwrite(name, cv2.resize(crop, None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST))
    print(f"   {tag} frame {i} {space}: want {dict(want)} got {dict(got)} {r.conditions.describe()}")


def board_ok_full(det, r) -> bool:
    """Every space not flagged occluded read right (the same test as for the one-move read)."""
    return all(s.occluded or Counter(dict(s.pieces)) == r.truth.board.pieces(s.space) for s in det.spaces)


def _one_move(layout, r, cond, tag_map, rng):
    """The frame of ``r`` with one piece taken away: the scene rendered without that piece,
    pasted in only where the piece was seen (its prism's outline, grown by 3 px)."""
    from vision.render import render

    pls = list(r.truth.placements)
    gone = pls.pop(int(rng.integers(len(pls))))
    # a piece standing on the removed one goes too (a house on a fortress)
    pls = [p for p in pls if not (p.space == gone.space and p.base > 0 and gone.base == 0
                                  and layout.pieces[gone.piece.kind].neutral)]
    after = render(layout, r.truth.board, cond, tag_map=tag_map, placements=tuple(pls))
    cam = r.truth.camera
    mask = np.zeros(r.image.shape[:2], np.uint8)
    for p in r.truth.placements:
        if p in pls:
            continue
        spec = layout.pieces[p.piece.kind]
        outline = spec.outline(p.x, p.y, p.angle)
        pts = np.vstack([cam.project(outline, -p.base), cam.project(outline, -(p.base + spec.height))])
        cv2.fillConvexPoly(mask, cv2.convexHull(pts.astype(np.float32)).astype(np.int32), 1)
    mask = cv2.dilate(mask, np.ones((7, 7), np.uint8)).astype(bool)
    img = r.image.copy()
    img[mask] = after.image[mask]
    from scorer.core.types import Board

    counts: dict[str, Counter] = {}
    for p in pls:
        counts.setdefault(p.space, Counter())[p.piece] += 1
    return img, Board.from_counts({k: dict(v) for k, v in counts.items()})


def run_mode(mode: str, layout, frames: int, size: tuple[int, int], per_pose: int, seed: int,
             hand_probability: float, strength: float, dump: str | None = None, move_every: int = 2,
             watch: tuple[int, int] | None = None) -> dict:
    from vision.reader import BoardReader
    from vision.render import default_tag_map, random_board, random_conditions, render

    rng = np.random.default_rng(seed)
    move_rng = np.random.default_rng(seed + 7)  # its own stream: the frames stay those of earlier runs
    tag_map = default_tag_map(layout) if mode == "marker" else None
    reader = BoardReader(layout, mode=mode, tag_map=tag_map)
    if mode != "marker" or watch is None or tuple(watch) == tuple(size):
        watch = None

    def read(img, at):
        """(reader's detection, the frame the reader watched)"""
        if watch is None:
            return reader.read(img, at=at), img
        small = cv2.resize(img, watch, interpolation=cv2.INTER_AREA)
        t = time.perf_counter()
        det = reader.read(small, at=at, detail=img)
        read.spent += time.perf_counter() - t
        return det, small

    read.spent = 0.0
    stats = Counter()
    errors: Counter[str] = Counter()
    t_read: list[float] = []
    t_same: list[float] = []
    t_reg: list[float] = []
    t_move: list[float] = []
    move_spaces: list[int] = []
    t_parts: dict[str, list[float]] = {}
    cover: dict[str, list[float]] = {k: [] for k in ("tilt_deg", "roll_deg", "fill", "fov_deg", "blur", "noise",
                                                     "gradient", "vignette", "brightness")}
    flags = Counter()
    pose = None
    noise = np.empty((size[1], size[0], 3), np.int16)
    for i in range(frames):
        if i % per_pose == 0:
            pose = random_conditions(layout, rng, size=size, hand_probability=0.0, strength=strength)
            reader.registrar.reset()
            reader._last = None
        # same camera pose, a new position, new light noise, maybe a hand
        c = random_conditions(layout, rng, size=size, hand_probability=hand_probability, strength=strength)
        from dataclasses import replace

        cond = replace(c, fov_deg=pose.fov_deg, fill=pose.fill, tilt_deg=pose.tilt_deg,
                       tilt_azimuth_deg=pose.tilt_azimuth_deg, roll_deg=pose.roll_deg, offset=pose.offset)
        board = random_board(layout, rng, occupancy=float(rng.uniform(0.2, 0.8)))
        r = render(layout, board, cond, tag_map=tag_map)
        for k, v in cond.describe().items():
            if k in cover:
                cover[k].append(float(v))
        flags["jpeg"] += cond.jpeg_quality is not None
        flags["shadow"] += bool(cond.shadows)
        flags["hand"] += cond.hand is not None
        reader._last = None  # a new position: time (and check) a full read, not a partial one
        read.spent = 0.0
        t0 = time.perf_counter()
        det, watched = read(r.image, float(i))
        dt = (time.perf_counter() - t0) * 1e3 if watch is None else read.spent * 1e3
        if det.registration.fresh:
            t_reg.append(det.timings_ms.get("registration", 0.0))
            # time the read alone once the registration is known (board has not moved)
            reader._last = None
            read.spent = 0.0
            t0 = time.perf_counter()
            det, watched = read(r.image, float(i))
            dt = (time.perf_counter() - t0) * 1e3 if watch is None else read.spent * 1e3
        stats["frames"] += 1
        if not det.registration.usable:
            stats["unregistered"] += 1
            stats["unregistered_hand"] += cond.hand is not None
            continue
        t_read.append(dt)
        for k, v in det.timings_ms.items():
            t_parts.setdefault(k, []).append(v)
        # nothing on the table changed, new sensor noise only
        cv2.randn(noise, 0, 2)
        again = np.clip(r.image.astype(np.int16) + noise, 0, 255).astype(np.uint8)
        read.spent = 0.0
        t0 = time.perf_counter()
        det2, _ = read(again, float(i) + 0.5)
        t_same.append((time.perf_counter() - t0) * 1e3 if watch is None else read.spent * 1e3)
        stats["same_reused"] += det2.reused
        if move_every and i % move_every == 0 and r.truth.placements:
            # one piece taken away, nothing else changed: the frame is the same but for the
            # piece's own pixels (taken from a render of the scene without it)
            moved, board_after = _one_move(layout, r, cond, tag_map, move_rng)
            cv2.randn(noise, 0, 2)
            moved = np.clip(moved.astype(np.int16) + noise, 0, 255).astype(np.uint8)
            read.spent = 0.0
            t0 = time.perf_counter()
            det3, _ = read(moved, float(i) + 0.7)
            t_move.append((time.perf_counter() - t0) * 1e3 if watch is None else read.spent * 1e3)
            if det3.partial is not None:
                move_spaces.append(det3.partial)
            ok = all(s.occluded or Counter(dict(s.pieces)) == board_after.pieces(s.space) for s in det3.spaces)
            stats["move_frames"] += 1
            stats["move_ok"] += ok
            stats["move_full_ok"] += board_ok_full(det, r)
        truth_occ = r.truth.occluded
        flagged = set(det.occluded)
        board_ok = True
        for s in det.spaces:
            want = r.truth.board.pieces(s.space)
            if s.space in truth_occ:
                stats["occ_truth"] += 1
                if s.occluded:
                    stats["occ_caught"] += 1
                else:
                    stats["read_through"] += 1
                    board_ok = False
                    if dump:
                        _dump(dump, i, s.space, r, reader, layout, want, Counter(dict(s.pieces)), "readthrough", watched)
                continue
            if s.occluded:
                stats["false_occ"] += 1
                board_ok = False
                continue
            stats["spaces"] += 1
            got = Counter(dict(s.pieces))
            if got == want:
                stats["spaces_ok"] += 1
            else:
                if dump:
                    _dump(dump, i, s.space, r, reader, layout, want, got, image=watched)
                board_ok = False
                for p, n in (want - got).items():
                    errors[f"missed {p.kind}"] += n
                for p, n in (got - want).items():
                    errors[f"extra {p.kind}"] += n
            stats["free_spaces"] += 1
        if truth_occ:
            stats["hand_frames"] += 1
        else:
            stats["clear_frames"] += 1
            stats["clear_ok"] += board_ok
            if flagged:
                stats["clear_false_occ_frames"] += 1
    return {"mode": mode, "size": size, "watch": watch, "stats": stats, "errors": errors, "t_read": t_read, "t_same": t_same,
            "n_spaces": len(layout.spaces), "t_reg": t_reg, "t_move": t_move, "move_spaces": move_spaces, "t_parts": t_parts, "cover": cover, "flags": flags}


def _ms(values: list[float]) -> str:
    if not values:
        return "n/a"
    v = np.asarray(values)
    return f"median {np.median(v):.1f}, mean {v.mean():.1f}, p90 {np.percentile(v, 90):.1f}, min {v.min():.1f}"


def report(res: dict) -> None:
    s, e = res["stats"], res["errors"]
    w, h = res["size"]
    n = s["frames"]
    watch = f" (watched at {res['watch'][0]}x{res['watch'][1]}, tags read at {w}x{h})" if res.get("watch") else ""
    print(f"-- {res['mode']} mode, {w}x{h}{watch}, {n} frames --")
    reg = n - s["unregistered"]
    print(f"registered: {reg}/{n} frames ({s['unregistered']} not: markers hidden by an arm in "
          f"{s['unregistered_hand']}); never read while unregistered")
    if s["spaces"]:
        print(f"per-space accuracy (spaces read): {s['spaces_ok']}/{s['spaces']} = {100 * s['spaces_ok'] / s['spaces']:.3f}%")
    if s["clear_frames"]:
        print(f"whole-board accuracy, frames without a hand: {s['clear_ok']}/{s['clear_frames']} = "
              f"{100 * s['clear_ok'] / s['clear_frames']:.2f}%  (boards with a false occlusion flag: "
              f"{s['clear_false_occ_frames']})")
    if s["occ_truth"]:
        print(f"occlusion: {s['hand_frames']} frames with a hand; occluded spaces flagged {s['occ_caught']}/"
              f"{s['occ_truth']} = {100 * s['occ_caught'] / s['occ_truth']:.2f}% recall; readings through "
              f"an occlusion: {s['read_through']}")
    free = s["spaces"] + s["false_occ"]
    if free:
        print(f"false occlusion flags: {s['false_occ']}/{free} uncovered spaces = {100 * s['false_occ'] / free:.2f}%")
    if e:
        print("errors: " + ", ".join(f"{k} {v}" for k, v in e.most_common()))
    print(f"ms per frame, board not moved, pieces changed (full read): {_ms(res['t_read'])}")
    parts = res["t_parts"]
    print("   of which: " + ", ".join(f"{k} {np.median(v):.1f}" for k, v in parts.items() if k != "total"))
    print(f"ms per frame, nothing changed (reused {s['same_reused']}/{len(res['t_same'])}): {_ms(res['t_same'])}")
    print(f"ms per full registration (marker detection, after a move): {_ms(res['t_reg'])}")
    if res["t_move"]:
        ms = res["move_spaces"]
        print(f"ms per frame, one piece taken away (only changed spaces re-read, {len(ms)}/{s['move_frames']} partial, "
              f"median {np.median(ms) if ms else 0:.0f} of {res['n_spaces']} spaces): {_ms(res['t_move'])}")
        print(f"   one-move boards right (spaces not flagged): {s['move_ok']}/{s['move_frames']} "
              f"(the full reads of the same scenes before the move: {s['move_full_ok']}/{s['move_frames']})")


def coverage(results: list[dict]) -> None:
    cover: dict[str, list[float]] = {}
    flags = Counter()
    total = 0
    for r in results:
        for k, v in r["cover"].items():
            cover.setdefault(k, []).extend(v)
        flags.update(r["flags"])
        total += r["stats"]["frames"]
    print("-- perturbations covered --")
    print(", ".join(f"{k} {min(v):g}..{max(v):g}" for k, v in cover.items() if v))
    print(f"JPEG (q 55-95) in {flags['jpeg']}/{total} frames, a person's soft shadow in {flags['shadow']}/{total}, "
          f"a hand and arm (5 skin tones, 30-150 mm above the board, with its shadow) in {flags['hand']}/{total}; "
          "every frame: random pieces (houses, fortresses, houses on fortresses, 1-6 emissaries per dragon), "
          "placement jitter, per-piece colour jitter, light from a random side")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench vision")
    ap.add_argument("--frames", type=int, default=500, help="frames per mode")
    ap.add_argument("--modes", default="colour,marker")
    ap.add_argument("--board", default="china-a")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--watch", default="1280x720", help="marker mode at a larger --size: the size of the frame "
                                                        "the reader watches (the tags are read at --size)")
    ap.add_argument("--per-pose", type=int, default=10)
    ap.add_argument("--hand", type=float, default=0.3, help="fraction of frames with a hand")
    ap.add_argument("--strength", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="OpenCV threads (1 = one core)")
    ap.add_argument("--dump", help="folder to save crops of misread spaces into")
    ap.add_argument("--move-every", type=int, default=2, help="time a one-piece move on every Nth frame (0: never)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)
    from vision.layout import load_layout

    layout = load_layout(args.board)
    size = _parse_size(args.size)
    print(f"board {layout.id} ({len(layout.spaces)} spaces, {layout.size[0]:g}x{layout.size[1]:g} mm), "
          f"frames {size[0]}x{size[1]}, OpenCV {cv2.__version__}, {args.threads} thread(s)")
    results = []
    for k, mode in enumerate(m.strip() for m in args.modes.split(",") if m.strip()):
        t0 = time.perf_counter()
        res = run_mode(mode, layout, args.frames, size, args.per_pose, args.seed + 1000 * k, args.hand, args.strength,
                       args.dump, args.move_every, _parse_size(args.watch))
        report(res)
        print(f"({time.perf_counter() - t0:.0f} s including rendering)")
        results.append(res)
    coverage(results)
    return 0
