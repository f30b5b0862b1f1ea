"""How well the table reader reads the values printed on counters (layout ``counts_as``: Zhang Yi's
army counters 1-4), counter by counter, on a rendered set (``tableref vision render-set`` writes
where each counter lies to ``counters/<frame>.json``). The set's evaluation (``tableref vision
eval``) scores what the reader reports per space (strength as ``army``); this says why:

    .venv/bin/python tools/read_values.py --board zhang-yi-sample --set /tmp/zy-set [--detail]

Prints the counters on spaces the truth does not mark occluded, how many the reader looked at
(each found alone), how many it read a sure value for, the confusions by value (truth -> read) and
the counters it read as talents or left unsure.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vision.counted_values import MIN_FRAME_PX_PER_MM, frame_scale  # noqa: E402
from vision.eval_readers import make_reader_factory  # noqa: E402
from tableref.commands.vision import WATCH_WIDTH  # noqa: E402
from vision.evaluate import load_set, read_image, watched_frame  # noqa: E402
from vision.registration import to_detail  # noqa: E402
from vision.layout import load_layout  # noqa: E402

NEAR_MM = 6.0  # a counter read this near a truth counter's centre is that counter (parallax, placement)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/read_values.py")
    ap.add_argument("--board", required=True)
    ap.add_argument("--set", required=True)
    ap.add_argument("--detail", action="store_true", help="as tableref vision eval --detail: the frames are detail stills")
    args = ap.parse_args(argv)
    layout = load_layout(args.board)
    frame_set = load_set(args.set, layout)
    reader_for = make_reader_factory(layout, args.set, reader="table")
    stats: Counter = Counter()
    confusion: Counter = Counter()
    for i, fr in enumerate(frame_set.frames, 1):
        path = Path(args.set) / "counters" / f"{fr.stem}.json"
        if not path.exists():
            continue
        truth = [t for t in json.loads(path.read_text("utf-8")) if t["space"] not in fr.truth.occluded]
        reader = reader_for(fr.truth.table)
        watched, detail = watched_frame(read_image(fr.image), WATCH_WIDTH if args.detail else None)
        det = reader.read(watched, at=float(i), detail=detail)
        if not det.registration.usable or getattr(reader, "faces", None) is None:
            stats["frames not read"] += 1
            continue
        stats["counters on visible spaces"] += len(truth)
        H = det.registration.homography if detail is None else to_detail(det.registration.homography, watched.shape,
                                                                          detail.shape)
        stats["of them where the frame is too coarse to read values"] += sum(
            frame_scale(H, tuple(t["at_mm"])) < MIN_FRAME_PX_PER_MM for t in truth)
        taken: set[int] = set()
        for c in reader.faces.last_counters:
            near = [(math.dist(c.at_mm, t["at_mm"]), j) for j, t in enumerate(truth) if j not in taken]
            d, j = min(near, default=(math.inf, -1))
            if d > NEAR_MM:
                stats["looked at, no value counter there (a talent)"] += 1
                continue
            taken.add(j)
            want = truth[j]["piece"].split(":", 1)[1]
            stats["looked at"] += 1
            if c.value.score <= -1.0 and c.value.best is None:
                got = "too coarse"  # the frame shows it coarser than counted_values.MIN_FRAME_PX_PER_MM
            elif c.value.kind is not None:
                got = c.value.kind
            elif c.value.other_piece is not None:
                got = "talent"
            else:
                got = "unsure"
            stats[f"read {got}" if got in ("unsure", "talent", "too coarse") else "read sure"] += 1
            confusion[(want, got)] += 1
    for k in ("counters on visible spaces", "looked at", "read sure", "read unsure", "read talent", "read too coarse",
              "looked at, no value counter there (a talent)", "frames not read",
              "of them where the frame is too coarse to read values"):
        print(f"{k}: {stats[k]}")
    right = sum(n for (w, g), n in confusion.items() if w == g)
    print(f"right: {right} of {stats['read sure']} read sure")
    print("by value (truth -> read):")
    for (w, g), n in sorted(confusion.items()):
        print(f"  {w} -> {g}: {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
