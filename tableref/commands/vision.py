"""``tableref vision``: read a photo of the board, print the marker sheet, render test
frames, calibrate a table's colours."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scorer.core.types import Board

WATCH_WIDTH = 1280  # eval --detail: the width a detail still is watched at (a camera's low-resolution stream)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("vision", help="camera: detect pieces in a photo, print markers, calibrate",
                       description="The camera side of tableref (docs/vision.md).")
    vsub = p.add_subparsers(dest="vision_command", metavar="ACTION")

    d = vsub.add_parser("detect", help="print which pieces stand on which space in a photo (JSON)",
                        description="Registers the board by its four corner markers and prints, as JSON, the pieces "
                                    "per space with a confidence, the spaces hidden under a hand (occluded) and the "
                                    "registration status. Exit 2 with one line if the image is unreadable or the "
                                    "board's markers are not visible.")
    d.add_argument("--board", required=True, help="board id (e.g. china-a: the shipped layout) or a layout JSON file")
    d.add_argument("--image", required=True, help="photo or camera frame (PNG, JPEG, ...)")
    d.add_argument("--mode", choices=("colour", "marker"), default="colour",
                   help="colour: by colour, size and shape (default); marker: by the tag on each piece")
    d.add_argument("--tags", help="marker mode: tag map JSON (tag id -> owner/kind); default: the demo set")
    d.add_argument("--calibration", help="the table's model (.npz from 'vision enrol'; an older 'vision calibrate' "
                                         "file works too)")
    d.add_argument("--fov", type=float, default=66.0, help="camera's horizontal field of view in degrees (parallax)")
    d.add_argument("--at", type=float, default=0.0, help="time stamp to put on the observation")
    d.add_argument("--snapshot", help="also write the rectified board with the spaces drawn to this PNG")
    d.set_defaults(func=cmd_detect)

    m = vsub.add_parser("markers", help="write the printable marker sheet (PNG and PDF, true size)",
                        description="Writes the board's four corner markers (and optionally piece tags) at true size "
                                    "on A4 pages: OUT.png (or OUT-N.png) and OUT.pdf. Print at 100%%.")
    m.add_argument("--board", required=True, help="board id or layout JSON file")
    m.add_argument("--out", required=True, help="output base name, e.g. out/markers")
    m.add_argument("--dpi", type=int, default=300)
    m.add_argument("--tags", help="also print piece tags: a tag map JSON, or 'demo' for the demo set")
    m.add_argument("--copies", type=int, help="stickers per tag id (default: as many as China has pieces of "
                                              "that kind: 20 per house type, 9 per emissary type, 5 fortresses)")
    m.set_defaults(func=cmd_markers)

    r = vsub.add_parser("render", help="render a synthetic camera frame and its ground truth",
                        description="Renders the board with pieces as a camera would see it (for trying the "
                                    "pipeline without a camera). Writes IMAGE and IMAGE.truth.json.")
    r.add_argument("--board", required=True, help="board id or layout JSON file")
    r.add_argument("--out", required=True, help="output image (.png or .jpg)")
    r.add_argument("--pieces", help="board position JSON (space -> [{owner, kind, count}]); default: random")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--size", default="1280x720", help="WIDTHxHEIGHT")
    r.add_argument("--strength", type=float, default=0.5, help="0 = clean frontal view, 1 = full perturbations")
    r.add_argument("--hand", action="store_true", help="put a hand over the board")
    r.add_argument("--mode", choices=("colour", "marker"), default="colour", help="marker: tags on the pieces")
    r.add_argument("--tags", help="marker mode: tag map JSON; default: the demo set")
    r.set_defaults(func=cmd_render)

    c = vsub.add_parser("calibrate", help="calibrate a table's colours from photos",
                        description="EMPTY is a photo of the empty board; SAMPLES (optional) a photo with known "
                                    "pieces given by --pieces (one colour per space). Writes a .npz calibration.")
    c.add_argument("--board", required=True)
    c.add_argument("--empty", required=True, help="photo of the empty board")
    c.add_argument("--samples", help="photo with known pieces")
    c.add_argument("--pieces", help="board position JSON of the samples photo")
    c.add_argument("--out", required=True, help="calibration file to write (.npz)")
    c.set_defaults(func=cmd_calibrate)

    en = vsub.add_parser("enrol", help="learn a table from two photos: the empty board, one piece of each type",
                         description="Step 1: --plan prints where to put one piece of each type. Step 2: with a photo "
                                     "of the EMPTY board (--empty) and a photo with those pieces on those spaces "
                                     "(--pieces), learns how this camera sees this board and these pieces and writes "
                                     "the table model (--out) that 'vision detect/eval --calibration' and the "
                                     "[camera] model setting use. Without --pieces, the pieces' colours and sizes "
                                     "stay the layout's nominal guesses (said in the output).")
    en.add_argument("--board", required=True, help="board id or layout JSON file")
    en.add_argument("--plan", action="store_true", help="print the enrolment plan (space -> piece) and stop")
    en.add_argument("--empty", help="photo of the empty board")
    en.add_argument("--pieces", help="photo with one piece of each type on the plan's spaces")
    en.add_argument("--placed", help="truth JSON of the pieces photo (set format) when it does not follow the plan")
    en.add_argument("--out", help="table model to write (.npz)")
    en.set_defaults(func=cmd_enrol)

    e = vsub.add_parser("eval", help="score the reader on a folder of frames with truth",
                        description="Reads every frame of a set (frames/<stem>.jpg with truth/<stem>.json, "
                                    "docs/vision-eval.md) with a fresh reader and prints per-space and whole-board "
                                    "accuracy, occlusion handling, registration failures, the most frequent errors "
                                    "and the reader's time per frame. Exit 0 after a completed evaluation, whatever "
                                    "the scores; 2 with one line on bad input.")
    e.add_argument("--board", required=True, help="board id or layout JSON file")
    e.add_argument("--set", required=True, dest="set_dir", metavar="DIR", help="the set's folder")
    e.add_argument("--calibration", help="one calibration (.npz) for every frame; default: per table from "
                                         "tables/<table>/empty.jpg (+ enrol.jpg), else the default calibration")
    e.add_argument("--mode", choices=("colour", "marker"), default="colour")
    e.add_argument("--tags", help="marker mode: tag map JSON; default: the demo set")
    e.add_argument("--json", action="store_true", help="print the metrics as JSON (no progress)")
    e.add_argument("--limit", type=int, help="read only the first N frames (by name)")
    e.add_argument("--reader", choices=("learned", "table", "legacy"), default="learned",
                   help="colour mode: learned = the reader that learns the table, each space read by the learned "
                        "classifier (the layout's model: vision/models/space_classifier-<layout id>, else China's "
                        "vision/models/space_classifier; default); table = the same reader counting colour "
                        "blobs instead; legacy = the former BoardReader")
    e.add_argument("--dump", metavar="DIR", help="write each wrong frame with its wrong spaces outlined here")
    e.add_argument("--detail", action="store_true",
                   help="the frames are high-resolution stills (e.g. 3840x2160): each is watched scaled down to "
                        f"{WATCH_WIDTH} px wide, as a camera's low-resolution stream shows it, and given whole to the "
                        "reader as its detail frame, read where more pixels are needed (values printed on counters)")
    e.set_defaults(func=cmd_eval)

    rs = vsub.add_parser("render-set", help="write a frame set (docs/vision-eval.md) from the project's renderer",
                         description="Renders N frames with truth, plus per table an empty-board photo and an "
                                     "enrolment photo, in the set format that 'vision eval' reads. Conditions: "
                                     "tilt 0-35 deg, any yaw, roll +-4 deg, FOV 50-75 deg, board filling 50-95%% of "
                                     "1280x720, blur 0-2 px, noise 0-12, gain 0.6-1.3 with vignetting, colour cast "
                                     "+-15%%, JPEG 40-95, hands in a share of the frames.")
    rs.add_argument("--board", required=True, help="board id or layout JSON file")
    rs.add_argument("--out", required=True, help="folder to create (must not exist or be empty)")
    rs.add_argument("--frames", required=True, type=int, help="number of frames")
    rs.add_argument("--seed", type=int, default=0)
    rs.add_argument("--hands", type=float, default=0.3, help="share of frames with a hand over the board")
    rs.add_argument("--tables", type=int, default=1, help="number of tables (camera poses and lamps)")
    rs.add_argument("--positions", choices=("layout", "game"), default="layout",
                    help="where the pieces come from: layout = random pieces on the spaces that hold them (default); "
                         "game = positions reached in random complete games of the layout's game (its engine's simulator)")
    rs.add_argument("--size", default="1280x720",
                    help="WIDTHxHEIGHT of the frames (default 1280x720); larger: the same scenes as detail stills, "
                         "for 'vision eval --detail'")
    rs.set_defaults(func=cmd_render_set)

    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _read_image(path: str):
    import cv2

    from vision.errors import UnreadableImage

    if not Path(path).is_file():
        raise UnreadableImage(f"cannot read image {path}: no such file")
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise UnreadableImage(f"cannot read image {path}: not an image OpenCV can decode")
    return img


def _tag_map(arg: str | None, layout):
    from vision.render import default_tag_map
    from vision.tags import load_tag_map

    if not arg or arg == "demo":
        return default_tag_map(layout)
    return load_tag_map(arg)


def _load_board(path: str) -> Board:
    from scorer.core.schema import read_json
    from scorer.core.types import InvalidRecord

    data = read_json(path, "pieces")
    try:
        return Board.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidRecord(f"not a board position ({exc})", where=f"pieces {path}") from None


def cmd_detect(args: argparse.Namespace) -> int:
    from vision.calibration import Calibration
    from vision.errors import NotRegistered
    from vision.layout import load_layout
    from vision.reader import BoardReader
    from vision.snapshot import rectified_snapshot_png

    layout = load_layout(args.board)
    image = _read_image(args.image)
    if args.mode == "colour":
        from vision.card_reader import reader_for_layout  # TableReader, or CardReader for card rows
        from vision.enrolment import TableModel

        model = TableModel.load(args.calibration, layout) if args.calibration else None
        reader = reader_for_layout(layout, model)
    else:
        cal = Calibration.load(args.calibration) if args.calibration else None
        reader = BoardReader(layout, mode=args.mode, calibration=cal, tag_map=_tag_map(args.tags, layout), fov_deg=args.fov)
    det = reader.read(image, at=args.at)
    reg = det.registration
    if not reg.usable:
        seen = ", ".join(map(str, reg.found)) or "none"
        raise NotRegistered(f"{reg.message.en} (markers seen: {seen}; status {reg.status}) / {reg.message.zh}")
    out = det.to_json()
    out["board"] = layout.id
    out["provisional_layout"] = layout.provisional
    if args.snapshot:
        Path(args.snapshot).write_bytes(rectified_snapshot_png(image, reg, layout, occluded=det.occluded))
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return 0


def cmd_enrol(args: argparse.Namespace) -> int:
    from vision.enrolment import enrolment_plan, model_from_photos, placed_from_board
    from vision.layout import load_layout

    layout = load_layout(args.board)
    from vision.card_rows import is_card_layout

    if is_card_layout(layout):  # cards in rows (The Great Wall): several cards per section (vision.card_enrol)
        from vision.card_enrol import enrol_from_files
        from vision.evaluate import load_truth

        if not args.plan and (not args.empty or not args.out):
            print("tableref: vision enrol needs --empty and --out (or --plan)", file=sys.stderr)
            return 2
        out = enrol_from_files(layout, None if args.plan else _read_image(args.empty),
                               _read_image(args.pieces) if args.pieces and not args.plan else None,
                               load_truth(Path(args.placed), layout).board() if args.placed else None, args.out, args.plan)
        json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    plan = enrolment_plan(layout)
    if args.plan:
        json.dump({"board": layout.id, "plan": {sid: f"{p.owner}:{p.kind}" for sid, p in plan.items()}},
                  sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    if not args.empty or not args.out:
        print("tableref: vision enrol needs --empty and --out (or --plan)", file=sys.stderr)
        return 2
    placed = None
    if args.placed:
        from vision.evaluate import load_truth

        placed = placed_from_board(load_truth(Path(args.placed), layout).board())
    elif args.pieces:
        placed = plan
    print("enrol: reading the photos ...", file=sys.stderr)
    model = model_from_photos(layout, _read_image(args.empty), _read_image(args.pieces) if args.pieces else None,
                              placed, empty_name=args.empty, pieces_name=args.pieces or "")
    model.save(args.out)
    print(f"enrol: wrote {args.out}", file=sys.stderr)
    out = {"model": args.out, "board": layout.id, "enrolled": model.enrolled, "notes": list(model.notes),
           "sizes_mm2": {f"{p.owner}:{p.kind}": round(sz.area_mm2, 1) for p, sz in model.sizes.items()},
           "colours_lab": {o: [[round(float(v), 1) for v in c] for c in cs] for o, cs in model.colours.items()}}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return 0


def cmd_markers(args: argparse.Namespace) -> int:
    from vision.layout import load_layout
    from vision.markers import corner_sheet_items, sheet_pages, tag_sheet_items, write_sheet
    from vision.render import DEFAULT_SET, tag_size_mm

    layout = load_layout(args.board)
    items = corner_sheet_items(layout)
    if args.tags:
        tm = _tag_map(args.tags, layout)
        names = {t: f"{p.owner} {p.kind}" for t, p in tm.items()}
        by_kind: dict[str, list[int]] = {}
        for t, p in sorted(tm.items()):
            by_kind.setdefault(p.kind, []).append(t)
        for kind, ids in by_kind.items():
            size = tag_size_mm(layout.pieces[kind], layout=layout) if kind in layout.pieces else 12.0
            # a tag names a piece type: identical pieces carry identical stickers
            copies = args.copies if args.copies else DEFAULT_SET.get(kind, 1)
            items += tag_sheet_items([t for t in ids for _ in range(max(1, copies))], size, names)
    pages = sheet_pages(items, dpi=args.dpi, title=f"tableref markers for {layout.id}")
    pngs, pdf = write_sheet(pages, Path(args.out), dpi=args.dpi)
    print(f"corner markers: {layout.dictionary[5:]} ids {', '.join(str(m.id) for m in layout.markers)}, "
          f"{layout.marker_size:g} mm black square each (print at 100%, check the 50 mm bar)")
    for p in pngs:
        print(p)
    print(pdf)
    return 0


def _frame_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` -> (width, height)."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SystemExit("tableref: --size must be WIDTHxHEIGHT") from None
    if w < 320 or h < 240:
        raise SystemExit("tableref: --size must be at least 320x240")
    return w, h


def cmd_render(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.layout import load_layout
    from vision.render import Hand, random_board, random_conditions, render
    from dataclasses import replace

    layout = load_layout(args.board)
    w, h = _frame_size(args.size)
    rng = np.random.default_rng(args.seed)
    board = _load_board(args.pieces) if args.pieces else random_board(layout, rng)
    unknown = [s for s in board.spaces() if s not in layout.space_ids]
    if unknown:
        from scorer.core.types import InvalidRecord

        raise InvalidRecord(f"spaces not on board {layout.id}: {', '.join(unknown)}", where="pieces")
    cond = random_conditions(layout, rng, size=(w, h), hand_probability=0.0, strength=args.strength)
    if args.hand:
        sp = layout.spaces[int(rng.integers(len(layout.spaces)))]
        cond = replace(cond, hand=Hand(sp.centre, float(rng.uniform(0, 360)), 70.0))
    tags = _tag_map(args.tags, layout) if args.mode == "marker" else None
    r = render(layout, board, cond, tag_map=tags)
    if not cv2.imwrite(args.out, r.image):
        from vision.errors import UnreadableImage

        raise UnreadableImage(f"cannot write {args.out}")
    truth = {"board": layout.id, "pieces": r.truth.board.to_json(), "occluded": sorted(r.truth.occluded),
             "conditions": cond.describe(), "homography_board_mm_to_image": np.round(r.truth.homography, 6).tolist()}
    Path(args.out + ".truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(args.out)
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from vision.layout import load_layout
    from vision.photo_calibration import calibration_from_photos

    layout = load_layout(args.board)
    empty = _read_image(args.empty)
    samples = board = None
    if args.samples:
        if not args.pieces:
            raise SystemExit("tableref: --samples needs --pieces")
        samples = _read_image(args.samples)
        board = _load_board(args.pieces)
    cal = calibration_from_photos(layout, empty, samples, board)
    cal.save(args.out)
    print(json.dumps({"calibration": args.out, "layout": layout.id, "notes": list(cal.notes)}, ensure_ascii=False))
    return 0


def _progress_printer(label: str):
    """Progress on stderr: one updating line on a terminal, else about 20 lines in all."""
    tty = sys.stderr.isatty()

    def show(i: int, n: int, text: str) -> None:
        if tty:
            sys.stderr.write(f"\r{label} {i}/{n} {text}\x1b[K" + ("\n" if i == n else ""))
        elif i == n or i == 1 or i % max(1, n // 20) == 0:
            sys.stderr.write(f"{label} {i}/{n} {text}\n")
        sys.stderr.flush()

    return show


def cmd_eval(args: argparse.Namespace) -> int:
    import cv2

    from vision.errors import FrameSetError
    from vision.eval_readers import make_reader_factory
    from vision.evaluate import (evaluate_set, failure_image, fixed_spaces_of, hidden_under_of, load_set, summarise,
                                 watched_frame)
    from vision.layout import load_layout

    if args.limit is not None and args.limit < 1:
        raise FrameSetError("--limit must be at least 1")
    layout = load_layout(args.board)
    warnings: list[str] = []

    def warn(msg: str) -> None:
        if msg not in warnings:
            warnings.append(msg)
            if not args.json:
                print(f"tableref: warning: {msg}", file=sys.stderr)

    fs = load_set(args.set_dir, layout)
    for w in fs.warnings:
        warn(w)
    tags = _tag_map(args.tags, layout) if args.mode == "marker" else None
    reader_for = make_reader_factory(layout, fs.root, args.calibration, args.mode, tags, warn=warn, reader=args.reader)
    dump = Path(args.dump) if args.dump else None
    if dump:
        dump.mkdir(parents=True, exist_ok=True)

    def on_frame(frame, image, det, res) -> None:
        if dump and res.score.failed:
            if args.detail:  # the detection's pose is the watched frame's: outline the spaces there
                image = watched_frame(image, WATCH_WIDTH)[0]
            if not cv2.imwrite(str(dump / f"{frame.stem}.jpg"), failure_image(image, det, res, layout)):
                raise FrameSetError(f"cannot write {dump / (frame.stem + '.jpg')}")
            (dump / f"{frame.stem}.json").write_text(json.dumps(res.to_json(), indent=1) + "\n", "utf-8")

    show = None if args.json else _progress_printer("frame")
    progress = (lambda i, n, res, acc: show(i, n, f"{res.stem}: per-space so far {100 * acc:.2f}%")) if show else None
    results, skipped = evaluate_set(fs, reader_for, layout.space_ids, limit=args.limit, progress=progress,
                                    on_frame=on_frame, warn=warn, watch_width=WATCH_WIDTH if args.detail else None,
                                    hidden_under=hidden_under_of(layout), fixed=fixed_spaces_of(layout))
    if not results:
        raise FrameSetError(f"{fs.root}: no frame could be read")
    summary = summarise(results)
    tables = fs.tables
    if args.calibration:
        cal = args.calibration
    elif tables:
        cal = "per table from tables/<table>/empty.jpg (+ enrol.jpg): " + ", ".join(tables)
    else:
        cal = "default (none given)"
    out = {"set": str(fs.root), "board": layout.id, "mode": args.mode, "calibration": cal,
           "info": {k: v for k, v in fs.info.items() if k in ("board", "source", "split")},
           "environment": _environment(),
           "orphans_skipped": len(fs.orphans), "unreadable_skipped": len(skipped), **summary,
           "warnings": warnings, "per_frame": [r.to_json() for r in results]}
    if args.json:
        json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        _print_eval(out)
    return 0


def _environment() -> dict[str, str]:
    """What the figures were read with. The reader decides at thresholds a pixel can cross, so the same
    code and set can score a few tenths of a point apart on another OpenCV, numpy or processor (2026-12-02:
    China held-out 94.04 % on a fresh machine where 93.80 % had been read, same pinned packages)."""
    import platform

    import cv2
    import numpy as np

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith(("model name", "Model"))), cpu)
    except OSError:
        pass
    return {"opencv": cv2.__version__, "numpy": np.__version__, "python": platform.python_version(),
            "machine": platform.machine(), "cpu": cpu}


def _pct(r: dict, unit: str = "") -> str:
    unit = f" {unit}" if unit else ""
    return f"{r['count']}/{r['of']}{unit} = {r['percent']:.2f}%" if r["of"] else f"{r['count']}/0{unit}"


def _print_eval(m: dict) -> None:
    info = m["info"]
    about = ", ".join(f"{k} {info[k]}" for k in ("source", "split") if k in info)
    print(f"set {m['set']}: {m['frames']} frames read, board {m['board']}, {m['mode']} mode" + (f" ({about})" if about else ""))
    if m["orphans_skipped"] or m["unreadable_skipped"]:
        print(f"skipped: {m['orphans_skipped']} without truth or frame, {m['unreadable_skipped']} unreadable")
    print(f"calibration: {m['calibration']}")
    print(f"per-space accuracy: {_pct(m['per_space'], 'visible spaces')}")
    wb = m["whole_board"]
    print(f"whole-board accuracy: frames without a hand {_pct(wb['without_hand'])}; "
          f"with a hand {_pct(wb['with_hand'])}")
    vs = m["with_state"]
    if vs["spaces"]:
        print(f"right but for what the game state supplies (a value left out: token-?; a piece hidden under "
              f"another: a fortress under a house; a marker the rules never move: Cheops' dots): "
              f"{vs['spaces']} spaces; with it (the truth taken as the state): "
              f"per space {_pct(vs['per_space'])}, whole board without a hand {_pct(vs['whole_board_without_hand'])}")
    rt = m["read_through_occlusion"]
    print(f"readings through an occlusion: {rt['count']} of {rt['of']} occluded spaces"
          + (f" = {rt['percent']:.2f}%" if rt["of"] else ""))
    print(f"false occlusion flags: {_pct(m['false_occlusion_flags'], 'visible spaces')}"
          + (f" (of which {m['unsure']} not for a hand: seen, not read sure)" if m.get("unsure") else ""))
    print(f"frames not registered: {_pct(m['not_registered'], 'frames')}")
    ho = m.get("hand_outline")
    if ho:
        print(f"hand outline (the set's hands/, {ho['frames']} frames, {ho['frames_with_hand']} with a hand): "
              + (f"{ho['missed_percent']:.2f}% of the hand not taken for one; " if ho["missed_percent"] is not None else "")
              + (f"{ho['beyond_mm2_per_hand_frame']:.0f} mm² per hand frame taken for a hand beyond 5 mm of it; "
                 if ho["beyond_mm2_per_hand_frame"] is not None else "")
              + f"a hand read in {ho['frames_without_hand_with_one_read']} frames without one")
    po = m["partly_occluded"]
    if po["flagged"] or po["read"]:
        print(f"partly occluded spaces: {po['flagged']} flagged (left out), {po['read']} read (scored)")
    if m["confusion"]:
        print(f"most frequent errors (truth -> read), {m['errors_total']} in all:")
        for c in m["confusion"]:
            print(f"  {c['truth']} \u2192 {c['read']} x{c['count']}")
    else:
        print("errors (truth -> read): none")
    t = m["read_ms"]
    print(f"reader time per frame: median {t['median']:.1f} ms, p90 {t['p90']:.1f} ms ({t['frames']} frames)")
    env = m["environment"]
    print(f"read with OpenCV {env['opencv']}, numpy {env['numpy']}, Python {env['python']} on {env['cpu']} ({env['machine']})")


def cmd_render_set(args: argparse.Namespace) -> int:
    from vision.errors import VisionError
    from vision.layout import load_layout
    from vision.render_set import render_set

    if args.frames < 1 or args.tables < 1:
        raise VisionError("--frames and --tables must be at least 1")
    if not 0.0 <= args.hands <= 1.0:
        raise VisionError("--hands must be between 0 and 1")
    layout = load_layout(args.board)
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise VisionError(f"{out} already exists and is not an empty folder: choose a new one")
    show = _progress_printer("rendered")
    info = render_set(layout, out, args.frames, seed=args.seed, hands=args.hands, tables=args.tables,
                      positions=args.positions, progress=lambda i, n, stem: show(i, n, stem),
                      size=_frame_size(args.size))
    hands = sum(1 for c in info["conditions"].values() if c["hand"])
    print(f"{out}: {args.frames} frames ({hands} with a hand), {args.tables} table(s), board {layout.id}")
    return 0
