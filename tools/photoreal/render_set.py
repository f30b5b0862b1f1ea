"""Render a physically based evaluation set for the camera reader (Blender Cycles, CPU).

Run with the photoreal venv (see README.md):
  .venv-photoreal/bin/python tools/photoreal/render_set.py --layout vision/layouts/china-a.json \
      --out data/vision/photoreal --tables 8 --frames-per-table 16 --seed 1

Cheops: --layout vision/layouts/cheops.json (cheops.py: its board, tiles, scarabs and positions).
The Great Wall: --layout vision/layouts/great-wall.json (greatwall.py, greatwall_art.py: play mat, cards, tokens).
Ming Dynasty: --layout vision/layouts/ming-provisional.json (ming.py: its board, family blocks, princes, positions).
Zhang Yi: --layout vision/layouts/zhang-yi-sample.json (zhangyi.py, zhangyi_art.py: map, printed counters, die).

Tables t00..t(tune-1) go to OUT/tune, the rest to OUT/heldout. Every frame is written as soon
as it is rendered, so an interrupted run leaves a valid (smaller) set.
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import artwork  # noqa: E402
import camera as camera_mod  # noqa: E402
import cheops  # noqa: E402
import greatwall  # noqa: E402
import hands as hands_mod  # noqa: E402
import ming  # noqa: E402
import pieces as pieces_mod  # noqa: E402
import sensor  # noqa: E402
import truth as truth_mod  # noqa: E402
import zhangyi  # noqa: E402
from layout_io import Layout  # noqa: E402
from light_colour import kelvin_rgb  # noqa: E402


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def table_params(rng, layout, cam, kind=None):
    tp = {}
    tp["ambient"] = rng.uniform(1.0, 3.0)
    tp["ambient_rgb"] = tuple(float(v) for v in 0.5 * kelvin_rgb(rng.uniform(4000, 8000)) / kelvin_rgb(rng.uniform(4000, 8000)).max())
    u_kind = rng.random()
    if (u_kind < 0.6) if kind is None else (kind == "wood"):
        tp["table_kind"] = "wood"
        base = [(120, 80, 50), (160, 115, 70), (90, 60, 40), (185, 150, 110), (70, 45, 30)][rng.integers(5)]
    else:
        tp["table_kind"] = "cloth"
        base = [(40, 90, 55), (60, 60, 65), (35, 45, 85), (110, 40, 40), (150, 140, 120)][rng.integers(5)]
    dark = tuple(int(c * rng.uniform(0.6, 0.85)) for c in base)
    tp["table_rgb"] = (dark, base)
    tp["table_rot"] = rng.uniform(0, math.pi)
    tp["table_rough"] = rng.uniform(0.3, 0.7)
    tp["board_thick"] = rng.uniform(0.0018, 0.0035)
    tp["varnish"] = bool(rng.random() < 0.35)
    tp["board_rough"] = rng.uniform(0.25, 0.45) if tp["varnish"] else rng.uniform(0.55, 0.9)
    tp["coat"] = rng.uniform(0.3, 1.0)
    tp["coat_rough"] = rng.uniform(0.03, 0.15)
    tp["edge_rgb"] = [(30, 30, 30), (60, 45, 35), (200, 190, 170), (120, 30, 30)][rng.integers(4)]
    tp["skin_rgb"] = [(233, 190, 160), (224, 172, 135), (198, 134, 96), (141, 85, 54), (95, 60, 40), (240, 205, 180)][rng.integers(6)]
    tp["sleeve_rgb"] = tuple(int(v) for v in rng.integers(20, 230, 3))
    # lights
    lights = []
    main_k = rng.uniform(2700, 6500)
    aim = np.array([rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1), 0.0])
    if tp["varnish"] and rng.random() < 0.7:
        # put the main light near the mirror direction of the camera over a board point -> glare
        P = np.array([rng.uniform(-0.2, 0.2), rng.uniform(-0.15, 0.15), 0.0])
        v = cam.C - P
        mdir = np.array([-v[0], -v[1], v[2]]) / np.linalg.norm(v)
        pos = P + mdir * rng.uniform(1.0, 1.6)
        pos[2] = max(pos[2], 0.6)
        aim = P
        tp["glare"] = True
    else:
        ang = rng.uniform(0, 2 * math.pi); off = rng.uniform(0.0, 0.8)
        pos = np.array([off * math.cos(ang), off * math.sin(ang), rng.uniform(0.9, 1.8)])
        tp["glare"] = False
    sz = rng.uniform(0.3, 1.4)
    lights.append(dict(type="AREA", energy=rng.uniform(150, 400), rgb=kelvin_rgb(main_k), kelvin=main_k,
                       size=(sz, sz * rng.uniform(0.5, 1.5)), pos=pos, aim=aim))
    if rng.random() < 0.5:
        k2 = rng.uniform(2700, 6500)
        ang = rng.uniform(0, 2 * math.pi); off = rng.uniform(0.5, 1.5)
        pos2 = np.array([off * math.cos(ang), off * math.sin(ang), rng.uniform(0.6, 1.6)])
        if rng.random() < 0.5:
            s2 = rng.uniform(0.2, 0.8)
            lights.append(dict(type="AREA", energy=lights[0]["energy"] * rng.uniform(0.2, 0.7), rgb=kelvin_rgb(k2), kelvin=k2,
                               size=(s2, s2), pos=pos2, aim=np.zeros(3)))
        else:
            lights.append(dict(type="POINT", energy=lights[0]["energy"] * rng.uniform(0.2, 0.6), rgb=kelvin_rgb(k2), kelvin=k2,
                               radius=rng.uniform(0.03, 0.2), pos=pos2, aim=np.zeros(3)))
    tp["lights"] = lights
    wsum = sum(L["energy"] for L in lights)
    lr = sum(L["rgb"] / L["rgb"].max() * L["energy"] for L in lights) / wsum
    tp["light_rgb"] = lr / lr[1]
    return tp


def sample_hand_for(rng, layout, cam, piece_verts):
    """Sample hands until the board coverage is near a target drawn from 2..30 %."""
    target = math.exp(rng.uniform(math.log(0.02), math.log(0.30)))
    best = None
    for _ in range(40):
        h = hands_mod.sample_hand(rng, layout)
        h = hands_mod.lift_hand(h, piece_verts)
        hm = truth_mod.hand_mask(cam, h)
        cov = truth_mod.board_coverage(cam, layout, hm)
        if not 0.02 <= cov <= 0.30:
            continue
        err = abs(math.log(cov / target))
        if best is None or err < best[3]:
            best = (h, hm, cov, err)
        if err < 0.2:
            break
    if best is None:
        return None, None, 0.0
    return best[:3]


def jsonable(o):
    if isinstance(o, dict):
        return {k: jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [jsonable(v) for v in o]
    if isinstance(o, np.ndarray):
        return [jsonable(v) for v in o.tolist()]
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, (np.integer,)):
        return int(o)
    return o


def stored_truth_agrees(path, truth):
    """How a set's truth file agrees with the truth drawn again: "same"; "pieces differ" (a set drawn by
    an earlier version of the positions whose hand is still this one: the same occluded, partly occluded
    and covered markers); "hand differs"; None when the set has no such file."""
    try:
        with open(path) as f:
            stored = json.load(f)
    except FileNotFoundError:
        return None
    if stored == jsonable(truth):
        return "same"
    same_hand = all(stored.get(key, []) == jsonable(truth[key]) for key in ("occluded", "partly_occluded", "markers_covered"))
    return "pieces differ" if same_hand else "hand differs"


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(jsonable(obj), f, indent=1, sort_keys=False)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layout", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--tune-tables", type=int, default=2, help="first N tables go to OUT/tune")
    ap.add_argument("--frames-per-table", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only-tables", default="", help="comma separated table indices (for tests)")
    ap.add_argument("--hand-prob", type=float, default=0.30)
    ap.add_argument("--no-stratify", action="store_true", help="draw held-out tables i.i.d. like tune tables")
    ap.add_argument("--max-frames", type=int, default=0, help="stop after this many frames per table (debug)")
    ap.add_argument("--width", type=int, default=camera_mod.BASE_W,
                    help="frame width in px, 16:9 (default 1280: 1280x720); e.g. 2560: the same scenes as 2560x1440 "
                         "detail stills (empty and enrolment photos too), for 'tableref vision eval --detail'")
    ap.add_argument("--hand-masks-only", action="store_true",
                    help="render nothing: draw the same scenes again (same --seed, tables and frames) and write only "
                         "each frame's hand mask, hands/<stem>.png, into an existing set; its truth is checked against the "
                         "truth file already there")
    args = ap.parse_args(argv)
    camera_mod.set_size(args.width)
    masks_only = args.hand_masks_only

    if masks_only:
        bpy, version = None, ""
    else:
        import bpy
        version = bpy.app.version_string
    layout = Layout(args.layout)
    game = (cheops if cheops.is_cheops(layout) else greatwall if greatwall.is_great_wall(layout)
            else ming if ming.is_ming(layout) else zhangyi if zhangyi.is_zhang_yi(layout) else None)  # None: China
    if not masks_only:
        from scene import Renderer  # Blender's module: only to render
    rend = None if masks_only else Renderer(tempfile.mkdtemp(prefix="photoreal_"), samples=args.samples, threads=args.threads)
    mismatched = []  # masks-only: frames whose truth drawn again differs from the file (the scenes are not the same)
    other_hand = []  # ... of them, those whose hand differs too: no mask written
    absent = 0  # masks-only: frames drawn that the set does not hold
    tables = list(range(args.tables))
    if args.only_tables:
        tables = [int(t) for t in args.only_tables.split(",")]
    nfr = args.frames_per_table if not args.max_frames else min(args.max_frames, args.frames_per_table)
    total = len(tables) * (nfr + 2)
    done = 0
    # held-out tables are stratified: board fill, camera tilt and table surface spread evenly over
    # the held-out tables, and exactly round(hand_prob * frames) frames per table show a hand.
    # Tune tables (index < --tune-tables) are drawn i.i.d.
    strata = {}
    held = list(range(args.tune_tables, args.tables))
    if held and not args.no_stratify:
        srng = np.random.default_rng([args.seed, 99])
        n = len(held)
        pf, pt, pk = srng.permutation(n), srng.permutation(n), srng.permutation(n)
        for j, ti in enumerate(held):
            strata[ti] = dict(fill=(0.5 + 0.45 * pf[j] / n, 0.5 + 0.45 * (pf[j] + 1) / n),
                              tilt=(35.0 * pt[j] / n, 35.0 * (pt[j] + 1) / n),
                              kind="wood" if pk[j] < n / 2 else "cloth")
    t_start = time.time()
    for ti in tables:
        split = "tune" if ti < args.tune_tables else "heldout"
        setdir = os.path.join(args.out, split)
        tname = f"t{ti:02d}"
        for sub in ("hands",) if masks_only else ("frames", "truth", "hands", os.path.join("tables", tname)):
            os.makedirs(os.path.join(setdir, sub), exist_ok=True)
        if not masks_only:
            write_json(os.path.join(setdir, "set.json"), {
                "board": layout.id, "source": f"tools/photoreal (Blender Cycles {version})", "split": split,
                "seed": args.seed, "size": [camera_mod.W, camera_mod.H],
                "notes": ("Independent physically based renders (Cycles path tracing, CPU) with own board artwork, "
                          + (game.SET_NOTES if game in (greatwall, ming, zhangyi) else
                             "printed cardboard tiles (own face art per kind), wooden domed scarabs, game-like positions, "
                             if game else "wooden piece meshes, ")
                          + "hand/arm meshes, mounted camera bumped per frame, numpy/OpenCV sensor "
                          "model (distortion, gain gradient, vignetting, WB error, noise, Bayer, blur, JPEG). "
                          "Tables: " + ", ".join(f"t{t:02d}" for t in tables if (t < args.tune_tables) == (split == "tune")))})
        trng = np.random.default_rng([args.seed, ti])
        strat = strata.get(ti)
        if strat:
            cam0, cam_info = camera_mod.sample_table_camera(trng, layout, strat["fill"], strat["tilt"])
            tp = table_params(trng, layout, cam0, kind=strat["kind"])
            hand_frames = set(np.random.default_rng([args.seed, ti, 77]).choice(nfr, int(round(args.hand_prob * nfr)), replace=False).tolist())
        else:
            cam0, cam_info = camera_mod.sample_table_camera(trng, layout)
            tp = table_params(trng, layout, cam0)
            hand_frames = None
        if game:
            style = game.table_piece_style(layout, trng, args.seed)
            meshes = game.piece_meshes(layout, style)
            tex = game.make_artwork(layout, trng, ppm=4)
        else:
            style = pieces_mod.table_piece_style(layout, trng)
            meshes = pieces_mod.piece_meshes(style)
            tex = artwork.make_artwork(layout, trng, ppm=4)
        if rend is not None:
            rend.new_table(tp, layout, style, meshes, tex, trng)
        maps0 = cam0.distortion_maps()
        meta = dict(table=tname, camera=cam_info, lights=[{k: v for k, v in L.items()} for L in tp["lights"]],
                    varnish=tp["varnish"], glare=tp["glare"], table_kind=tp["table_kind"],
                    piece_sizes_m=style["sizes"], piece_rgb=style.get("decks") or style["colours"], frames={})
        tdir = os.path.join(setdir, "tables", tname)

        jobs = [("empty", None), ("enrol", None)] + [(f"{tname}-{k:03d}", k) for k in range(nfr)]
        for stem, k in jobs:
            t0 = time.time()
            frng = np.random.default_rng([args.seed, ti, 1000 + (k if k is not None else (0 if stem == "empty" else 1) - 10)])
            cycles_seed = int(frng.integers(0, 100000))
            if rend is not None:
                bpy.context.scene.cycles.seed = cycles_seed
                rend.clear_frame()
            hand = None; hm = None; cov = 0.0
            if stem == "empty":
                cam, maps, pcs, tr = cam0, maps0, [], {}
                sp = sensor.sample_params(frng, calm=True)
                light_scale = 1.0
            elif stem == "enrol":
                cam, maps = cam0, maps0
                pcs, tr = (game or pieces_mod).enrol_position(frng, layout, style)
                sp = sensor.sample_params(frng, calm=True)
                light_scale = 1.0
            else:
                cam = camera_mod.bumped_camera(frng, cam0, layout)
                maps = cam.distortion_maps()
                pcs, tr = game.game_position(frng, layout, style) if game else pieces_mod.random_position(frng, layout, style)
                sp = sensor.sample_params(frng, calm=False)
                light_scale = frng.uniform(0.85, 1.15)
            pverts = [pieces_mod.piece_world_vertices(layout, style, meshes, p) for p in pcs]
            u_hand = frng.random() if k is not None else 1.0
            if k is not None and ((u_hand < args.hand_prob) if hand_frames is None else (k in hand_frames)):
                hand, hm, cov = sample_hand_for(frng, layout, cam, pverts)
            if rend is not None:
                rend.set_light_scale(light_scale)
                rend.add_pieces(layout, pcs)
                if hand is not None:
                    rend.add_hand(hand)
                rend.set_camera(cam)
                bgr = sensor.process(rend.render("frame"), maps, tp["light_rgb"], sp, frng)
            # truth
            occ, part, mcov = [], [], []
            if hand is not None:
                by_space = {}
                for p, v in zip(pcs, pverts):
                    sid = p["space"]
                    by_space.setdefault(sid, []).append((v, meshes[p["kind"]]["faces"]))
                    if hasattr(game, "truth_parts"):  # Great Wall: a card's index counts on its own too
                        by_space[sid] += game.truth_parts(layout, style, p)
                occ, part, mcov = truth_mod.occlusion(cam, layout, hm, by_space, None)
            truth = {sid: toks for sid, toks in tr.items() if sid not in occ}
            truth["occluded"] = occ
            truth["partly_occluded"] = part
            truth["markers_covered"] = mcov
            truth["table"] = tname
            hand_file = os.path.join(setdir, "hands", stem + ".png")
            if masks_only:
                done += 1
                if k is None:
                    continue
                agrees = stored_truth_agrees(os.path.join(setdir, "truth", stem + ".json"), truth)
                if agrees is None:  # a frame the set does not hold (a few frames kept from a set): none to draw
                    absent += 1
                    continue
                if agrees != "same":
                    mismatched.append(stem)
                if agrees == "hand differs":
                    other_hand.append(stem)
                    if os.path.exists(hand_file):
                        os.remove(hand_file)
                    continue
            if k is not None:  # the hand as the frame shows it (lens distortion too): 255 where it lies
                hand_px = np.zeros((camera_mod.H, camera_mod.W), np.uint8) if hm is None else \
                    cv2.remap(hm * 255, maps[0], maps[1], cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
                cv2.imwrite(hand_file, hand_px, [cv2.IMWRITE_PNG_BILEVEL, 1, cv2.IMWRITE_PNG_COMPRESSION, 9])  # 1 bit a pixel: ~2 kB
            if masks_only:
                continue
            if k is None:
                sensor.write_jpeg(os.path.join(tdir, stem + ".jpg"), bgr, 90)
                if stem == "enrol":
                    write_json(os.path.join(tdir, "enrol.json"), truth)
            else:
                sensor.write_jpeg(os.path.join(setdir, "frames", stem + ".jpg"), bgr, sp["jpeg"])
                write_json(os.path.join(setdir, "truth", stem + ".json"), truth)
                if hasattr(game, "counter_rows"):  # Zhang Yi: where each value counter lies, as the project's sets have it
                    os.makedirs(os.path.join(setdir, "counters"), exist_ok=True)
                    write_json(os.path.join(setdir, "counters", stem + ".json"), game.counter_rows(layout, pcs))
            meta["frames"][stem] = dict(hand=hand is not None, hand_board_coverage=cov,
                                        hand_params=hand["params"] if hand else None,
                                        camera_C=cam.C, camera_R_c2w=cam.R_c2w, sensor=sp, n_pieces=len(pcs))
            if game is greatwall:  # where each card and token lies, for overlay.py (mm, degrees)
                meta["frames"][stem]["pieces"] = [[p["kind"], p["space"], round(p["x_mm"], 1), round(p["y_mm"], 1),
                                                   round(math.degrees(p["rot"]), 1)] for p in pcs]
            if game is ming:  # each piece (owner, kind, space, x, y mm, turn deg), for overlay.py
                meta["frames"][stem]["ming_pieces"] = [[p["owner"], p["kind"], p["space"], round(p["x_mm"], 1), round(p["y_mm"], 1),
                                                        round(math.degrees(p["rot"]), 1)] for p in pcs]
            if game is zhangyi:  # each piece (owner, kind, space, x, y mm, turn deg, lift mm, tilt deg, value), for overlay.py
                meta["frames"][stem]["zy_pieces"] = zhangyi.frame_meta(pcs)
            write_json(os.path.join(tdir, "meta.json"), meta)
            done += 1
            dt = time.time() - t0
            el = time.time() - t_start
            eta = el / done * (total - done)
            log(f"[photoreal] frame {done}/{total} {split}/{tname}/{stem}: {dt:.1f} s/frame, "
                f"pieces={len(pcs)} hand={'%.0f%%' % (100 * cov) if hand else '-'} ETA {eta / 60:.1f} min")
    if masks_only:
        log(f"[photoreal] {done} scenes drawn again ({absent} frames not in the set); truth differs in "
            f"{len(mismatched)} frames" + (": " + ", ".join(m + (" (hand differs)" if m in other_hand else "")
                                                           for m in mismatched) if mismatched else "")
            + f"; {len(other_hand)} of them left without a hand mask (not the same hand)")
        return 1 if other_hand else 0
    log(f"[photoreal] done: {done} images in {(time.time() - t_start) / 60:.1f} min")


if __name__ == "__main__":
    sys.exit(main())
