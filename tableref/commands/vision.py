"""``tableref vision``: read a photo of the board, print the marker sheet, render test
frames, calibrate a table's colours."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scorer.core.types import Board


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
    d.add_argument("--calibration", help="a table's colour calibration (.npz from 'vision calibrate')")
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
    cal = Calibration.load(args.calibration) if args.calibration else None
    tags = _tag_map(args.tags, layout) if args.mode == "marker" else None
    reader = BoardReader(layout, mode=args.mode, calibration=cal, tag_map=tags, fov_deg=args.fov)
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


def cmd_render(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.layout import load_layout
    from vision.render import Hand, random_board, random_conditions, render
    from dataclasses import replace

    layout = load_layout(args.board)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise SystemExit("tableref: --size must be WIDTHxHEIGHT") from None
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
    from vision.calibration import PX_PER_MM, calibrate, rectify
    from vision.errors import NotRegistered
    from vision.layout import load_layout
    from vision.registration import Registrar

    layout = load_layout(args.board)
    empty = _read_image(args.empty)
    reg = Registrar(layout).detect(empty)
    if not reg.usable:
        raise NotRegistered(f"empty-board photo: {reg.message.en} / {reg.message.zh}")
    empty_r = rectify(empty, reg.homography, layout, PX_PER_MM)
    samples_r = board = None
    if args.samples:
        if not args.pieces:
            raise SystemExit("tableref: --samples needs --pieces")
        img = _read_image(args.samples)
        reg2 = Registrar(layout).detect(img)
        if not reg2.usable:
            raise NotRegistered(f"samples photo: {reg2.message.en} / {reg2.message.zh}")
        samples_r = rectify(img, reg2.homography, layout, PX_PER_MM)
        board = _load_board(args.pieces)
    cal = calibrate(layout, empty_r, PX_PER_MM, samples_r, board)
    cal.save(args.out)
    print(json.dumps({"calibration": args.out, "layout": layout.id, "notes": list(cal.notes)}, ensure_ascii=False))
    return 0
