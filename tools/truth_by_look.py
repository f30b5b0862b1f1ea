"""A copy of a rendered set whose truth names each piece as the board reader reads it.

Kinds that look alike from above (``vision.piece_looks``: Zhang Yi's talent counters and army
counters, all 16 mm squares in their state's colour) are read as one kind. ``tableref vision
eval`` on the set itself counts a talent read as an army counter as an error (it is one: the
rules need the talent); on this copy it counts what colour counting can tell at all, so the two
figures together say how much is lost to the look-alike kinds and how much to the reading.

    python -m tools.truth_by_look --board zhang-yi-sample --set /tmp/zy-tune --out /tmp/zy-tune-looks
    tableref vision eval --board zhang-yi-sample --set /tmp/zy-tune-looks --reader table

The frames and tables are linked, not copied; only ``truth/`` and ``set.json`` are written.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, Sequence

from vision.layout import Layout, load_layout
from vision.piece_looks import representatives


def by_look(truth: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """One frame's truth with every ``owner:kind`` renamed to the kind it is read as."""
    reps = representatives(layout)
    out: dict[str, Any] = {}
    for key, value in truth.items():
        if isinstance(value, list) and key != "occluded":
            items = []
            for item in value:
                owner, _, kind = str(item).partition(":")
                items.append(f"{owner}:{reps.get(kind, kind)}" if kind else item)
            out[key] = sorted(items)
        else:
            out[key] = value
    return out


def copy_set(layout: Layout, src: Path, dst: Path) -> int:
    """Write the copy; returns the number of frames."""
    dst.mkdir(parents=True, exist_ok=True)
    for sub in ("frames", "tables"):
        link = dst / sub
        if not link.exists():
            os.symlink((src / sub).resolve(), link)
    (dst / "truth").mkdir(exist_ok=True)
    n = 0
    for f in sorted((src / "truth").glob("*.json")):
        truth = json.loads(f.read_text("utf-8"))
        (dst / "truth" / f.name).write_text(json.dumps(by_look(truth, layout), indent=1) + "\n", "utf-8")
        n += 1
    info = json.loads((src / "set.json").read_text("utf-8"))
    info["note"] = (str(info.get("note", "")) + "; truth by look (tools/truth_by_look.py): look-alike kinds named as the "
                    "kind the board reader reads them as").lstrip("; ")
    (dst / "set.json").write_text(json.dumps(info, indent=1) + "\n", "utf-8")
    return n


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", required=True, help="layout id or JSON file")
    ap.add_argument("--set", required=True, help="the rendered set")
    ap.add_argument("--out", required=True, help="the copy to write")
    args = ap.parse_args(argv)
    n = copy_set(load_layout(args.board), Path(args.set), Path(args.out))
    print(f"{n} frames: truth by look in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
