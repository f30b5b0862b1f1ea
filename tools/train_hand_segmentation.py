"""Trains the learned hand outline the reader vetoes its hand test with (``vision/models/hand_outline``).

False occlusion flags start from board the hand test takes for a hand beyond the true one (shadows,
blur, lost print: docs/vision.md "The hand's true outline, measured"). This trains a small U-Net on
the true outlines of photoreal sets (``hands/<stem>.png``, ``tools/photoreal/render_set.py``) and of the
project's own renders (``tableref vision render-set`` writes them too), and compares, pixel by pixel on sets
it was not trained on, three hands with the true one: the reader's own (``Detection.hand_mask``, measured
with no network), the network's, and the reader's vetoed by the network's (``vision.hand_network.vetoed``:
the parts of the reader's hand, ``JOIN_MM`` apart joined, in which the network sees ``SUPPORT_MM2`` of hand,
trimmed to ``KEEP_MM`` of the network's hand but for what reaches within ``EDGE_MM`` of the board's edge).

Input: the light-corrected board and the table's empty board as the reader sees them (board pixels,
brought to ``MM_PER_PX``), and their lightness difference (``vision.hand_network.network_input``); output:
hand or not per pixel. ``--out`` exports the network as ONNX with its ``model.json`` (threshold, veto, how
it was trained and what it scored on the held-out sets); the reader runs it with OpenCV's dnn.

Run with the training venv (pyproject extra ``train``); the committed model's own command is in its model.json:

    .venv-train/bin/python tools/train_hand_segmentation.py \\
        --train china-a:learned:data/vision/photoreal-china9/tune --train cheops:table:evalsets/photoreal-cheops/tune \\
        --heldout china-a:learned:evalsets/photoreal-china-a/heldout --steps 6000 --threads 2 --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.hand_network import at_scale, network_input, padded, vetoed  # noqa: E402

MM_PER_PX = 2.0
NEAR_MM = 5.0  # as vision.hand_outline: the reader's margin round a hand is still the hand
# the veto compared, by default the committed model's (its model.json; docs/vision.md, "The learned hand outline in
# the reader", for how it was chosen)
KEEP_MM = 40.0  # the reader's hand kept this close to the network's
SUPPORT_MM2 = 100.0  # ... in the parts of it the network sees this much hand in
JOIN_MM = 25.0  # ... parts this close counted as one (twice the hand test's finger reach, vision.occlusion.FINGERS_MM)
EDGE_MM = 12.0  # ... but what trimming would take this close to the board's edge is kept (an arm coming in)
SPACE_THRESHOLD = 0.02  # a space the kept hand touches stays occluded only where the network's output exceeds this
CROP = 80  # px of training crops (160 mm)
CACHE = ROOT / "build" / "hand_segmentation"


def extract(board: str, reader: str, set_dir: str) -> dict[str, list]:
    """Per frame with a true outline: the board as the reader sees it (frame and empty board, BGR), the true
    hand and the reader's, all at MM_PER_PX. Cached in build/hand_segmentation/."""
    key = hashlib.sha1(f"{board}:{reader}:{Path(set_dir).resolve()}".encode()).hexdigest()[:12]
    path = CACHE / f"{Path(set_dir).parent.name}-{Path(set_dir).name}-{key}.npz"
    if path.exists():
        d = np.load(path, allow_pickle=True)
        return {k: [np.asarray(a, dtype=np.uint8 if k == "x" else bool) for a in d[k]] for k in ("x", "true", "read")}
    import vision.table_reader as tr
    from vision import hand_network
    from vision.eval_readers import make_reader_factory
    from vision.eval_set import load_set, read_image
    from vision.hand_outline import load_hand_mask
    from vision.layout import load_layout

    seen: dict = {}
    rectify = tr.TableReader._rectify

    def keep(self, *a, **k):  # the board the reader rectified, to show the network the same
        out = rectify(self, *a, **k)
        seen.update(reader=self, rect=out)
        return out

    tr.TableReader._rectify = keep
    hand_network.set_committed(None)  # the hand test's own hand, not kept near a committed network's
    layout = load_layout(board)
    frames = load_set(set_dir, layout)
    factory = make_reader_factory(layout, set_dir, reader=reader)
    out: dict[str, list] = {"x": [], "true": [], "read": []}
    try:
        for fr in frames.frames:
            if fr.hand is None:
                continue
            seen.clear()
            det = factory(fr.truth.table).read(read_image(fr.image))
            if det.hand_mask is None or "rect" not in seen:
                continue
            r = seen["reader"]
            true = r.to_board(load_hand_mask(fr.hand), det.registration) > 0

            def small(im: np.ndarray) -> np.ndarray:
                return at_scale(im, r.s, MM_PER_PX)

            out["x"].append(np.concatenate([small(r.light.correct(seen["rect"])), small(r.model.reference)], axis=2))
            out["true"].append(small(true.astype(np.float32)) > 0.5)
            out["read"].append(small(det.hand_mask.astype(np.float32)) > 0.5)
    finally:
        tr.TableReader._rectify = rectify
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **{k: _ragged(v) for k, v in out.items()})
    print(f"{set_dir}: {len(out['x'])} frames with a true outline", flush=True)
    return out


def _ragged(arrays: list[np.ndarray]) -> np.ndarray:
    """A 1-d object array holding the arrays themselves (``np.array`` of equal shapes would make an array
    of Python scalars, slow to use)."""
    out = np.empty(len(arrays), dtype=object)
    out[:] = arrays
    return out


def inputs(x: np.ndarray) -> np.ndarray:
    """HxWx6 (frame, empty board) -> 7xHxW float32, as the reader makes it (``vision.hand_network``)."""
    return network_input(x[..., :3], x[..., 3:])


def make_net(width: int = 8):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def block(a: int, b: int):
        return nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(inplace=True),
                             nn.Conv2d(b, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(inplace=True))

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            w = width
            self.e1, self.e2, self.e3, self.m = block(7, w), block(w, 2 * w), block(2 * w, 4 * w), block(4 * w, 4 * w)
            self.d3, self.d2, self.d1 = block(8 * w, 2 * w), block(4 * w, w), block(2 * w, w)
            self.out = nn.Conv2d(w, 1, 1)

        def forward(self, x):
            e1 = self.e1(x)
            e2 = self.e2(F.max_pool2d(e1, 2))
            e3 = self.e3(F.max_pool2d(e2, 2))
            m = self.m(F.max_pool2d(e3, 2))
            # sides a multiple of ALIGN (``padded``): upsampling by 2 meets the skip exactly, and the ONNX
            # graph has no shape arithmetic for OpenCV's dnn to follow
            d3 = self.d3(torch.cat([F.interpolate(m, scale_factor=2.0), e3], 1))
            d2 = self.d2(torch.cat([F.interpolate(d3, scale_factor=2.0), e2], 1))
            return self.out(self.d1(torch.cat([F.interpolate(d2, scale_factor=2.0), e1], 1)))

    return UNet()


def train(data: dict[str, list], steps: int, seed: int = 0, width: int = 8, pos_weight: float = 2.0):
    import torch
    import torch.nn.functional as F

    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    xs, ys = data["x"], data["true"]
    with_hand = [i for i, y in enumerate(ys) if y.any()]

    def crop(i: int) -> tuple[np.ndarray, np.ndarray]:
        x, y = xs[i].astype(np.float32), ys[i].astype(np.float32)
        y0, x0 = rng.integers(0, max(1, y.shape[0] - CROP)), rng.integers(0, max(1, y.shape[1] - CROP))
        x, y = x[y0:y0 + CROP, x0:x0 + CROP], y[y0:y0 + CROP, x0:x0 + CROP]
        pad = ((0, CROP - y.shape[0]), (0, CROP - y.shape[1]))
        x, y = np.pad(x, pad + ((0, 0),), mode="reflect"), np.pad(y, pad, mode="reflect")
        x[..., :3] = np.clip(x[..., :3] * rng.uniform(0.75, 1.25) * rng.uniform(0.9, 1.1, 3), 0, 255)  # the frame's light
        k = int(rng.integers(4))
        x, y = np.rot90(x, k), np.rot90(y, k)
        if rng.random() < 0.5:
            x, y = x[:, ::-1], y[:, ::-1]
        return inputs(np.ascontiguousarray(x)), np.ascontiguousarray(y)[None]

    net = make_net(width)
    opt = torch.optim.Adam(net.parameters(), 2e-3)
    t0 = time.time()
    for step in range(steps):
        picks = [with_hand[rng.integers(len(with_hand))] if rng.random() < 0.5 else int(rng.integers(len(xs)))
                 for _ in range(16)]  # half the crops from frames with a hand
        batch = [crop(i) for i in picks]
        x = torch.from_numpy(np.stack([b[0] for b in batch]))
        y = torch.from_numpy(np.stack([b[1] for b in batch]))
        loss = F.binary_cross_entropy_with_logits(net(x), y, pos_weight=torch.tensor(pos_weight))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == int(0.7 * steps):
            for g in opt.param_groups:
                g["lr"] = 5e-4
        if step % 500 == 0:
            print(f"step {step}/{steps}: loss {float(loss.detach()):.3f} ({time.time() - t0:.0f} s)", flush=True)
    return net.eval()


def compare(net, data: dict[str, list], threshold: float, keep_mm: float | None = KEEP_MM,
            support_mm2: float = SUPPORT_MM2, join_mm: float = JOIN_MM,
            edge_mm: float | None = EDGE_MM) -> dict[str, dict[str, float]]:
    """Missed share of the true hand, mm² beyond NEAR_MM of it per frame with a hand, and frames without a
    hand with one read, for the reader's hand, the network's, and the reader's vetoed by the network's
    (``vision.hand_network.vetoed``: the parts the network sees a hand in, trimmed to ``keep_mm`` of it)."""
    import torch

    near_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(NEAR_MM / MM_PER_PX) + 1,) * 2)
    px_mm2 = MM_PER_PX ** 2
    stats = {k: {"missed": 0.0, "beyond": 0.0, "false_frames": 0} for k in ("reader", "network", "reader vetoed")}
    hand_mm2, hand_frames = 0.0, 0
    for x, true, read in zip(data["x"], data["true"], data["read"]):
        with torch.no_grad():
            p = torch.sigmoid(net(torch.from_numpy(padded(inputs(x)))[None]))[0, 0].numpy()[:x.shape[0], :x.shape[1]]
        learned = p > threshold
        masks = {"reader": read, "network": learned,
                 "reader vetoed": vetoed(read, learned, 1 / MM_PER_PX, support_mm2, keep_mm, join_mm, edge_mm)}
        near = cv2.dilate(true.astype(np.uint8), near_k) > 0
        if true.any():
            hand_frames += 1
            hand_mm2 += true.sum() * px_mm2
        for name, m in masks.items():
            if true.any():
                stats[name]["missed"] += (true & ~m).sum() * px_mm2
                stats[name]["beyond"] += (m & ~near).sum() * px_mm2
            elif m.sum() * px_mm2 > 200:  # more than a speck
                stats[name]["false_frames"] += 1
    return {name: {"missed_percent": round(100 * s["missed"] / max(hand_mm2, 1), 2),
                   "beyond_mm2_per_hand_frame": round(s["beyond"] / max(hand_frames, 1)),
                   "frames_without_hand_with_one_read": s["false_frames"],
                   "frames": len(data["x"]), "frames_with_hand": hand_frames} for name, s in stats.items()}


def export(net, out: Path, threshold: float, keep_mm: float | None, support_mm2: float, join_mm: float,
           edge_mm: float | None, record: dict, space_threshold: float | None = None) -> None:
    """``net`` as ``out``/hand.onnx with its model.json (``vision.hand_network``); checks that OpenCV's dnn
    gives what torch gives on a board-sized input."""
    import json

    import torch

    from vision.hand_network import FORMAT, HandNetwork

    out.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 7, CROP, CROP)
    torch.onnx.export(net, dummy, str(out / "hand.onnx"), input_names=["board"], output_names=["logits"],
                      dynamic_axes={"board": {2: "h", 3: "w"}, "logits": {2: "h", 3: "w"}}, opset_version=13, dynamo=False)
    meta = {"format": FORMAT, "onnx": "hand.onnx", "mm_per_px": MM_PER_PX, "threshold": threshold,
            "support_mm2": support_mm2, "keep_mm": keep_mm, "join_mm": join_mm, "edge_mm": edge_mm,
            "space_threshold": space_threshold, "trained": record}
    (out / "model.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", "utf-8")
    x = np.random.default_rng(0).uniform(0, 1, (1, 7, 200, 304)).astype(np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    model = HandNetwork.load(out)
    model.net.setInput(x)
    got = model.net.forward()
    err = float(np.abs(got - want).max())
    if err > 1e-3:
        raise SystemExit(f"{out / 'hand.onnx'}: OpenCV's dnn differs from torch by {err}")
    print(f"wrote {out} (OpenCV's dnn agrees with torch within {err:.1e})", flush=True)


def _sets(specs: list[str]) -> list[tuple[str, str, str]]:
    out = []
    for spec in specs:
        parts = spec.split(":", 2)
        if len(parts) != 3:
            raise SystemExit(f"{spec}: give BOARD:READER:SET (e.g. china-a:learned:evalsets/photoreal-china-a/tune)")
        out.append((parts[0], parts[1], parts[2]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", action="append", required=True, metavar="BOARD:READER:SET")
    ap.add_argument("--heldout", action="append", required=True, metavar="BOARD:READER:SET")
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--threshold", type=float, action="append", help="network output taken for a hand (0.2, 0.5); "
                    "the first is the exported model's")
    ap.add_argument("--width", type=int, default=8, help="channels of the first level (doubled twice below it)")
    ap.add_argument("--pos-weight", type=float, default=2.0, help="weight of a hand pixel in the loss (a missed hand "
                    "reads spaces through it; board wrongly taken for a hand only flags them)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep-mm", type=float, default=KEEP_MM, help="of the hand test's hand kept, only what lies this "
                    "close to the network's hand (default %(default)s mm, as the committed model)")
    ap.add_argument("--edge-mm", type=float, default=EDGE_MM, help="what trimming would take this close to the board's "
                    "edge is kept (an arm coming in, in a sleeve the network does not see; default %(default)s mm)")
    ap.add_argument("--join-mm", type=float, default=JOIN_MM, help="parts of the hand test's hand this close are one")
    ap.add_argument("--support-mm2", type=float, default=SUPPORT_MM2, help="a part of the hand test's hand is kept "
                    "when the network sees this much hand in it")
    ap.add_argument("--space-threshold", type=float, default=SPACE_THRESHOLD, help="a space the kept hand touches "
                    "stays occluded only where the network's output on it exceeds this (default %(default)s; "
                    "chosen on the reader's figures, docs/vision.md)")
    ap.add_argument("--load", type=Path, help="weights saved by an earlier run: compare (and export) them, no training")
    ap.add_argument("--out", type=Path, help="export the model here (the reader's: vision/models/hand_outline)")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    data: dict[str, list] = {"x": [], "true": [], "read": []}
    for board, reader, set_dir in _sets(args.train):
        part = extract(board, reader, set_dir)
        for k in data:
            data[k] += part[k]
    print(f"training on {len(data['x'])} frames, {sum(t.any() for t in data['true'])} with a hand", flush=True)
    if args.load:  # a network trained before (its weights, as saved below): compared again, not trained
        net = make_net(args.width)
        net.load_state_dict(torch.load(args.load))
        net.eval()
    else:
        net = train(data, args.steps, args.seed, args.width, args.pos_weight)
        CACHE.mkdir(parents=True, exist_ok=True)
        torch.save(net.state_dict(), CACHE / "last-network.pt")
        print(f"weights saved in {CACHE / 'last-network.pt'} (--load to compare them again)", flush=True)
    figures: dict = {}
    for board, reader, set_dir in _sets(args.heldout):
        part = extract(board, reader, set_dir)
        for th in args.threshold or [0.2, 0.5]:
            print(f"{set_dir} (threshold {th}):")
            result = compare(net, part, th, args.keep_mm, args.support_mm2, args.join_mm, args.edge_mm)
            figures.setdefault(str(th), {})[set_dir] = result
            for name, r in result.items():
                print(f"  {name:20s} missed {r['missed_percent']:6.2f} % of the hand, {r['beyond_mm2_per_hand_frame']:6d} mm² "
                      f"beyond it per hand frame ({r['frames_with_hand']} of {r['frames']} frames), a hand read in "
                      f"{r['frames_without_hand_with_one_read']} frames without one")
    if args.out:
        th = (args.threshold or [0.2])[0]
        export(net, args.out, th, args.keep_mm, args.support_mm2, args.join_mm, args.edge_mm, {
            "command": "tools/train_hand_segmentation.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "train": args.train, "frames": len(data["x"]), "frames_with_hand": int(sum(t.any() for t in data["true"])),
            "steps": args.steps, "seed": args.seed, "width": args.width, "pos_weight": args.pos_weight,
            "heldout": figures.get(str(th), {})}, args.space_threshold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
